/**
 * Function size as the function-size test measures it, with the TypeScript compiler's parser: every
 * function, method, accessor, constructor, function expression and arrow, with its lines (first to
 * last, nested functions included: what a reader scrolls through) and its branches (if and else-if,
 * case, ?:, &&, ||, ?? and their assignments, each loop, catch; a nested function's branches are its
 * own, not its parent's).
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface FunctionSize {
  /** Qualified by the named declarations around it: `attachAction.inputFromCli`, `Class.method`. */
  name: string;
  line: number;
  lines: number;
  branches: number;
}

const BRANCH_OPERATORS = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

function isFunction(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isFunctionExpression(n) ||
    ts.isArrowFunction(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n)
  );
}

function isBranch(n: ts.Node): boolean {
  switch (n.kind) {
    case ts.SyntaxKind.IfStatement:
    case ts.SyntaxKind.CaseClause:
    case ts.SyntaxKind.ConditionalExpression:
    case ts.SyntaxKind.ForStatement:
    case ts.SyntaxKind.ForInStatement:
    case ts.SyntaxKind.ForOfStatement:
    case ts.SyntaxKind.WhileStatement:
    case ts.SyntaxKind.DoStatement:
    case ts.SyntaxKind.CatchClause:
      return true;
    case ts.SyntaxKind.BinaryExpression:
      return BRANCH_OPERATORS.has((n as ts.BinaryExpression).operatorToken.kind);
    default:
      return false;
  }
}

/** The name a declaration gives the scope below it, if any. */
function ownName(n: ts.Node, sf: ts.SourceFile): string | undefined {
  if (
    (ts.isFunctionDeclaration(n) ||
      ts.isClassDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isGetAccessorDeclaration(n) ||
      ts.isSetAccessorDeclaration(n) ||
      ts.isVariableDeclaration(n) ||
      ts.isPropertyAssignment(n) ||
      ts.isPropertyDeclaration(n)) &&
    n.name
  )
    return n.name.getText(sf);
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  return undefined;
}

/** Branches in `body`, not counting those of the functions nested in it. */
function branchesIn(body: ts.Node): number {
  let count = 0;
  const visit = (n: ts.Node): void => {
    if (isFunction(n)) return;
    if (isBranch(n)) count++;
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(body, visit);
  return count;
}

/** Every function of one source text. */
export function measureSource(text: string, fileName = 'source.tsx'): FunctionSize[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const out: FunctionSize[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (n: ts.Node, scope: string[]): void => {
    const name = ownName(n, sf);
    const inner = name ? [...scope, name] : scope;
    if (isFunction(n) && n.body) {
      const line = lineOf(n.getStart(sf));
      // An arrow or function expression is named by the variable or property it is assigned to.
      const named =
        name !== undefined ||
        ts.isVariableDeclaration(n.parent) ||
        ts.isPropertyAssignment(n.parent) ||
        ts.isPropertyDeclaration(n.parent);
      out.push({
        name: named ? inner.join('.') : `${[...scope, '<anonymous>'].join('.')}@${line}`,
        line,
        lines: lineOf(n.getEnd()) - line + 1,
        branches: branchesIn(n),
      });
    }
    ts.forEachChild(n, (c) => visit(c, inner));
  };
  visit(sf, []);
  return out;
}

export function measureFile(path: string): FunctionSize[] {
  return measureSource(readFileSync(path, 'utf8'), path);
}
