/**
 * No unused export in src/: an export nothing imports is dead weight a reader must still check, or
 * a name that says "public" about a file's private helper. The rule: an export of a file under src/
 * is used when another file of the repository imports it by name — from src/, or from test/ or
 * bench/ (a test that calls a unit directly is the point of exporting it: the unit is tested where
 * it lives, not through a caller). `import * as`, `export *` and `import()` of a module count as
 * using every export of it. Type and value exports are held alike. The walk is syntactic (the
 * TypeScript parser, no type check), so it is fast and sees what the files say.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

const ROOT = join(SRC, '..');

interface ModuleFacts {
  /** Names this file exports itself (declarations and `export { a }`). */
  own: Set<string>;
  /** `export * from`: modules whose exports this one passes on. */
  star: string[];
  /** Names used from other modules: module → names, or '*' for all. */
  uses: Map<string, Set<string>>;
}

const onDisk = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

function resolveSpec(from: string, spec: string, exists: (p: string) => boolean): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find(exists);
}

const hasExport = (n: ts.Node) =>
  ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** What one file exports and imports, from its syntax. */
function factsOf(file: string, text: string, exists: (p: string) => boolean): ModuleFacts {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const facts: ModuleFacts = { own: new Set(), star: [], uses: new Map() };
  const use = (spec: string, name: string) => {
    const target = resolveSpec(file, spec, exists);
    if (!target) return;
    if (!facts.uses.has(target)) facts.uses.set(target, new Set());
    facts.uses.get(target)!.add(name);
  };
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const spec = n.moduleSpecifier.text;
      const clause = n.importClause;
      if (clause?.name) use(spec, 'default');
      const nb = clause?.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) use(spec, '*');
      if (nb && ts.isNamedImports(nb))
        for (const e of nb.elements) use(spec, (e.propertyName ?? e.name).text);
    } else if (ts.isExportDeclaration(n)) {
      const spec =
        n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier) ? n.moduleSpecifier.text : undefined;
      if (!n.exportClause) {
        if (spec) {
          const target = resolveSpec(file, spec, exists);
          if (target) facts.star.push(target);
        }
      } else if (ts.isNamedExports(n.exportClause)) {
        for (const e of n.exportClause.elements) {
          facts.own.add(e.name.text);
          if (spec) use(spec, (e.propertyName ?? e.name).text);
        }
      } else if (ts.isNamespaceExport(n.exportClause)) {
        facts.own.add(n.exportClause.name.text);
        if (spec) use(spec, '*');
      }
    } else if (ts.isExportAssignment(n)) {
      facts.own.add('default');
    } else if (hasExport(n)) {
      if (ts.isVariableStatement(n)) {
        for (const d of n.declarationList.declarations)
          if (ts.isIdentifier(d.name)) facts.own.add(d.name.text);
      } else if (
        (ts.isFunctionDeclaration(n) ||
          ts.isClassDeclaration(n) ||
          ts.isInterfaceDeclaration(n) ||
          ts.isTypeAliasDeclaration(n) ||
          ts.isEnumDeclaration(n)) &&
        n.name
      ) {
        facts.own.add(n.name.text);
      }
    } else if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    ) {
      use(n.arguments[0].text, '*');
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return facts;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    if (statSync(p).isDirectory()) return filesUnder(p);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `file name` of every export of a src/ file that no other file imports. */
function unusedExports(
  srcFiles: readonly string[],
  allFiles: readonly string[],
  read = (f: string) => readFileSync(f, 'utf8'),
  exists = onDisk,
) {
  const facts = new Map(allFiles.map((f) => [f, factsOf(f, read(f), exists)]));
  const used = new Map<string, Set<string>>();
  const mark = (file: string, name: string, seen = new Set<string>()) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!used.has(file)) used.set(file, new Set());
    used.get(file)!.add(name);
    // A name used through a re-export (`export { a } from`, `export *`) uses it where it is declared.
    const f = facts.get(file);
    for (const star of f?.star ?? []) mark(star, name, seen);
  };
  for (const [, f] of facts) for (const [target, names] of f.uses) for (const n of names) mark(target, n);
  // A re-exported name that is itself used passes the use on (handled by `uses` of the re-exporter).
  return srcFiles.flatMap((file) => {
    const own = facts.get(file)?.own ?? new Set<string>();
    const u = used.get(file) ?? new Set<string>();
    if (u.has('*')) return [];
    return [...own].filter((n) => !u.has(n)).map((n) => `${relative(ROOT, file)} ${n}`);
  });
}

/** The entry points: imported by no one, yet the build starts there. */
const ENTRIES = new Set(['src/cli.ts']);

/**
 * Files the planner split (applyPlan, planAttach, computeVerdicts and the PlanStep type as named
 * stages) rewrites at the same time: their unused exports go with that rewrite, not under it.
 */
const IN_REWRITE = new Set([
  'src/engine/actions/apply.ts',
  'src/engine/actions/attach.ts',
  'src/engine/actions/types.ts',
  'src/engine/snapshot/verdicts.ts',
]);

describe('no unused export in src/', () => {
  it('every export of src/ is imported by another file (src/, test/ or bench/)', () => {
    const src = sourceFiles(SRC).filter(
      (f) => !ENTRIES.has(relative(ROOT, f)) && !IN_REWRITE.has(relative(ROOT, f)),
    );
    const all = [...sourceFiles(SRC), ...filesUnder(join(ROOT, 'test')), ...filesUnder(join(ROOT, 'bench'))];
    const unused = unusedExports(src, all);
    if (process.env.PRINT_UNUSED) console.log(`UNUSED:${JSON.stringify(unused)}`);
    expect(unused).toEqual([]);
  });

  it('finds an export nobody imports, and follows re-exports (negative control)', () => {
    const a = join(SRC, 'x/a.ts');
    const b = join(SRC, 'x/b.ts');
    const index = join(SRC, 'x/index.ts');
    const texts: Record<string, string> = {
      [a]: 'export function used() {}\nexport function unused() {}\nexport type T = 1;\nexport const viaStar = 1;',
      [index]: "export * from './a.js';\nexport { other } from './b.js';",
      [b]: "import { used, type T } from './a.js';\nexport const other = 2;\nexport const lonely = 3;",
      [join(SRC, 'y.ts')]: "import { viaStar, other } from './x/index.js';",
    };
    const files = Object.keys(texts);
    const found = unusedExports(
      [a, b],
      files,
      (f) => texts[f]!,
      (p) => p in texts,
    );
    expect(found.sort()).toEqual(['src/x/a.ts unused', 'src/x/b.ts lonely']);
  });
});
