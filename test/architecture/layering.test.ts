/**
 * One direction of imports, with the table of docs/architecture.md#the-layers as the rules: the test
 * reads that table, so the guide and the check cannot drift apart. Every import is seen — static,
 * dynamic, type-only, side-effect (`import './x.js'`), re-exports — and packages and `node:` built-ins
 * are held to the same row as relative imports.
 */
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

const ROOT = join(SRC, '..');
const GUIDE = join(ROOT, 'docs/architecture.md');

interface Import {
  spec: string;
  /** `import type` / `export type`: erased at build, no module is loaded. */
  typeOnly: boolean;
  /** `import('…')`: loaded when the code runs, not with the file. */
  dynamic: boolean;
}

/** Every module a file's text imports (static, dynamic, side-effect and re-exports), and how. */
function importsOf(text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(
    /(?:import|export)\s(type\s)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm,
  )) {
    found.push({ spec: (m[2] ?? m[3] ?? m[4])!, typeOnly: m[1] !== undefined, dynamic: m[3] !== undefined });
  }
  return found;
}

type Qualifier = 'types only' | 'lazily' | undefined;

interface Rule {
  /** `src/engine/host/` (a folder) or `src/cli.ts` (one file), relative to the repository. */
  folder: string;
  sources: { path: string; qualifier: Qualifier }[];
  packages: string[];
}

/** The rows of the layers table: folder, and the `src/` paths and packages each may import. */
function rulesOf(markdown: string): Rule[] {
  const lines = markdown.split('\n');
  const head = lines.findIndex((l) => /^\| folder \| job \| may import from `src\/` \| packages \|$/.test(l));
  if (head < 0) throw new Error('the layers table is missing from docs/architecture.md');
  const rules: Rule[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, ''));
    const folder = /`([^`]+)`/.exec(cells[0]!)?.[1];
    if (!folder || cells.length !== 4) throw new Error(`unreadable row of the layers table: ${line}`);
    const sources = [...cells[2]!.matchAll(/`([^`]+)`(?: \((types only|lazily)\))?/g)].map((m) => ({
      path: m[1]!,
      qualifier: m[2] as Qualifier,
    }));
    // Packages are the code spans before any parenthesised note (the note may name files).
    const packages = [...cells[3]!.replace(/\(.*$/, '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rules.push({ folder, sources, packages });
  }
  return rules;
}

/** The row a file belongs to: the one whose folder is the nearest (longest) that holds it. */
function ruleFor(rules: readonly Rule[], file: string): Rule | undefined {
  return rules
    .filter((r) => (r.folder.endsWith('/') ? file.startsWith(r.folder) : file === r.folder))
    .sort((a, b) => b.folder.length - a.folder.length)[0];
}

const covers = (entry: string, path: string) =>
  entry.endsWith('/') ? path.startsWith(entry) : path.replace(/\.tsx?$/, '') === entry.replace(/\.tsx?$/, '');

function allowedPackage(rule: Rule, spec: string): boolean {
  const name = isBuiltin(spec) && !spec.startsWith('node:') ? `node:${spec}` : spec;
  return rule.packages.some(
    (p) => p === name || name.startsWith(`${p}/`) || (p === 'node:*' && name.startsWith('node:')),
  );
}

/** Why an import breaks its file's row, or undefined when the row allows it. */
function breach(rules: readonly Rule[], file: string, imp: Import): string | undefined {
  const rule = ruleFor(rules, file);
  if (!rule) return 'no row of the layers table holds this file';
  if (!imp.spec.startsWith('.')) return allowedPackage(rule, imp.spec) ? undefined : `package not in its row`;
  const target = relative(ROOT, resolve(dirname(join(ROOT, file)), imp.spec)).replace(/\.js$/, '.ts');
  const entry = rule.sources
    .filter((s) => covers(s.path, target))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!entry) return `${target} is not in its row`;
  if (entry.qualifier === 'types only' && !imp.typeOnly)
    return 'value import where the row allows types only';
  if (entry.qualifier === 'lazily' && !imp.typeOnly && !imp.dynamic)
    return 'static import where the row allows import() only';
  return undefined;
}

function violations(
  rules: readonly Rule[],
  files: readonly string[],
  read = (f: string) => readFileSync(f, 'utf8'),
) {
  return files.flatMap((abs) => {
    const file = relative(ROOT, abs);
    return importsOf(read(abs)).flatMap((imp) => {
      const why = breach(rules, file, imp);
      return why ? [`${file} imports ${imp.spec}: ${why}`] : [];
    });
  });
}

describe('one direction of imports, as the layers table of docs/architecture.md says', () => {
  const rules = rulesOf(readFileSync(GUIDE, 'utf8'));

  it('the table has a row for every part of src/', () => {
    expect(rules.map((r) => r.folder)).toEqual([
      'src/engine/host/',
      'src/engine/',
      'src/sim/',
      'src/watchers/',
      'src/app/',
      'src/ui/',
      'src/cli/',
      'src/cli.ts',
    ]);
  });

  it('every import of every file in src/ is one its row allows', () => {
    expect(violations(rules, sourceFiles(SRC))).toEqual([]);
  });

  it('the rule catches what it claims to (negative controls)', () => {
    // Guards against rules that can never fail (a test that cannot fail is a defect).
    const at = (file: string, text: string) => violations(rules, [join(ROOT, file)], () => text);
    // I/O in the engine outside the Host, in every import form.
    expect(at('src/engine/actions/x.ts', "import { readFileSync } from 'node:fs';")).toHaveLength(1);
    expect(at('src/engine/actions/x.ts', "import { readFileSync } from 'fs';")).toHaveLength(1);
    expect(at('src/engine/actions/x.ts', "import 'node:child_process';")).toHaveLength(1);
    expect(at('src/engine/actions/x.ts', "const m = await import('node:os');")).toHaveLength(1);
    expect(at('src/engine/actions/x.ts', "import { createHash } from 'node:crypto';")).toEqual([]);
    expect(at('src/engine/host/x.ts', "import { readFileSync } from 'node:fs';")).toEqual([]);
    // execa only in the Host; a UI package never below the UI.
    expect(at('src/engine/actions/x.ts', "import { execa } from 'execa';")).toHaveLength(1);
    expect(at('src/watchers/x.ts', "import { Box } from 'ink';")).toHaveLength(1);
    expect(at('src/watchers/x.ts', "import { createStore } from 'zustand/vanilla';")).toEqual([]);
    // Layers upward, and a side-effect import of one.
    expect(at('src/engine/actions/x.ts', "import '../../ui/app.js';")).toHaveLength(1);
    expect(at('src/sim/x.ts', "import { w } from '../watchers/index.js';")).toHaveLength(1);
    expect(at('src/engine/host/x.ts', "import type { Plan } from '../actions/types.js';")).toHaveLength(1);
    expect(at('src/engine/host/x.ts', "import { UserError } from '../errors.js';")).toEqual([]);
    // The UI takes only types from the engine; the app layer loads the simulator only lazily.
    expect(at('src/ui/x.ts', "import { consentFor } from '../engine/actions/consent.js';")).toHaveLength(1);
    expect(at('src/ui/x.ts', "import type { Plan } from '../engine/actions/types.js';")).toEqual([]);
    expect(at('src/app/x.ts', "import { openSimHost } from '../sim/index.js';")).toHaveLength(1);
    expect(at('src/app/x.ts', "const { openSimHost } = await import('../sim/index.js');")).toEqual([]);
  });

  it('every engine file outside the Host that imports a node: built-in is listed, with why, under Exceptions', () => {
    const guide = readFileSync(GUIDE, 'utf8');
    const section = guide.slice(guide.indexOf('### Engine files that import a `node:` built-in'));
    const listed = [...section.matchAll(/^\| `(src\/[^`]+)` \| `(node:[a-z]+)`/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    const engine = sourceFiles(join(SRC, 'engine')).filter((f) => !f.includes('/engine/host/'));
    const actual = engine.flatMap((abs) =>
      importsOf(readFileSync(abs, 'utf8'))
        .filter((i) => i.spec.startsWith('node:'))
        .map((i) => `${relative(ROOT, abs)} ${i.spec}`),
    );
    expect(actual.sort()).toEqual(listed.sort());
  });

  it('reads every import form', () => {
    expect(
      importsOf(
        "import type { Plan } from '../engine/actions/types.js';\n" +
          "import { consentFor } from '../engine/actions/consent.js';\n" +
          "export type { Snapshot } from '../engine/model.js';\n" +
          "import './side-effect.js';\n" +
          "const m = await import('node:os');\n",
      ),
    ).toEqual([
      { spec: '../engine/actions/types.js', typeOnly: true, dynamic: false },
      { spec: '../engine/actions/consent.js', typeOnly: false, dynamic: false },
      { spec: '../engine/model.js', typeOnly: true, dynamic: false },
      { spec: './side-effect.js', typeOnly: false, dynamic: false },
      { spec: 'node:os', typeOnly: false, dynamic: true },
    ]);
  });
});
