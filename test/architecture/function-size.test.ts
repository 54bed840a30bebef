/**
 * Functions a reader can hold (docs/architecture.md, Conventions): none in src/ over 120 lines or
 * 40 branches, except the ones docs/architecture.md lists with their reason under `## Exceptions`
 * (`### Long functions`: "- `src/file.ts` `name`: reason"). An exception that no longer exceeds a
 * limit, or names a function that is gone, fails too, so the list stays true.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureFile, measureSource } from './function-size.js';
import { SRC, sourceFiles } from './sources.js';

const MAX_LINES = 120;
const MAX_BRANCHES = 40;
const ROOT = join(SRC, '..');
const GUIDE = join(ROOT, 'docs/architecture.md');

/** `src/file.ts name` → reason, from the guide's `### Long functions` under `## Exceptions`. */
function listedExceptions(): Map<string, string> {
  const text = readFileSync(GUIDE, 'utf8');
  const section = /^## Exceptions\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const long = /^### Long functions\n([\s\S]*?)(?=^###? |(?![\s\S]))/m.exec(section)?.[1] ?? '';
  const out = new Map<string, string>();
  for (const m of long.matchAll(/^- `(src\/[^`]+)` `([^`]+)`[^:\n]*:\s*(.*)$/gm))
    out.set(`${m[1]} ${m[2]}`, m[3]!);
  return out;
}

function oversized(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    for (const f of measureFile(file)) {
      if (f.lines <= MAX_LINES && f.branches <= MAX_BRANCHES) continue;
      out.set(
        `${relative(ROOT, file)} ${f.name}`,
        `line ${f.line}: ${f.lines} lines, ${f.branches} branches`,
      );
    }
  }
  return out;
}

describe('function size', () => {
  it('counts what the guide says it counts (hand-counted)', () => {
    const [f] = measureSource(`function f(a, b) {
      if (a) return 1;
      else if (b) return 2;
      for (const x of a) while (x) do {} while (b);
      for (let i = 0; i < 1; i++) for (const k in b) {}
      switch (a) { case 1: break; case 2: break; default: break; }
      try { g(a ?? b, a && b, a || b, a ? 1 : 2); } catch { x ||= 1; y &&= 2; z ??= 3; }
      const inner = () => (a ? b && a : 0);
      return a?.b;
    }`);
    // 2 if + 5 loops + 2 case + 4 (?? && || ?:) + catch + 3 (||= &&= ??=) = 17; the arrow's 2 are its own.
    expect(f).toMatchObject({ name: 'f', line: 1, lines: 10, branches: 17 });
  });

  it('names methods, arrows and object members by where they are', () => {
    const names = measureSource(`export const action = {
      plan(x) { return x; },
      run: async () => 1,
    };
    class C { m() { [1].map(() => 2); } }`).map((f) => f.name);
    expect(names).toEqual(['action.plan', 'action.run', 'C.m', 'C.m.<anonymous>@5']);
  });

  it('a function over a limit fails (positive control)', () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  x += ${i};`).join('\n');
    const [long] = measureSource(`function long(x) {\n${body}\n  return x;\n}`);
    expect(long!.lines).toBe(MAX_LINES + 3);
    const ifs = Array.from({ length: MAX_BRANCHES + 1 }, (_, i) => `if (x === ${i}) return ${i};`).join(' ');
    const [branchy] = measureSource(`function branchy(x) { ${ifs} }`);
    expect(branchy!.branches).toBe(MAX_BRANCHES + 1);
  });

  it(`no function in src/ over ${MAX_LINES} lines or ${MAX_BRANCHES} branches unless listed with its reason`, () => {
    const found = oversized();
    const listed = listedExceptions();
    const unlisted = [...found].filter(([k]) => !listed.has(k)).map(([k, v]) => `${k} (${v})`);
    expect(unlisted, 'split these into named stages, or list them under Exceptions with the reason').toEqual(
      [],
    );
    const stale = [...listed.keys()].filter((k) => !found.has(k));
    expect(stale, 'listed as exceptions but within the limits (or gone): remove them from the list').toEqual(
      [],
    );
    const noReason = [...listed].filter(([, reason]) => reason.trim().length < 20).map(([k]) => k);
    expect(noReason, 'each exception says why it stays whole').toEqual([]);
  });
});
