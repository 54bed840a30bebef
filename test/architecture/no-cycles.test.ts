/**
 * No import cycle anywhere in src/ (docs/architecture.md#one-direction-of-imports): every file sits
 * strictly above what it imports. In the console, views and dialogs are modules a registry lists and
 * the store names dialogs through declaration merging; elsewhere, a type two files share lives in a
 * third (the attach planner's shapes in attach-types.ts, an event draft in watchers/types.ts). Type-only
 * imports count too: a cycle of types is still a knot a maintainer has to untie.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

/** Relative imports of a file (static, dynamic, type-only, side-effect, re-exports) resolved to source files. */
function edges(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|declare module\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm,
  )) {
    // `declare module './x.js'` adds to x's types; it is not an import of x (x never sees it).
    if (m[3]) continue;
    const spec = (m[1] ?? m[2] ?? m[4])!;
    if (!spec.startsWith('.')) continue;
    const base = resolve(dirname(file), spec).replace(/\.js$/, '');
    const hit = [`${base}.ts`, `${base}.tsx`].find((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if (hit) out.push(hit);
  }
  return out;
}

/** Cycles found by a depth-first walk of `graph` (file → files it imports), each as a path. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (!graph.has(g)) continue;
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

const show = (c: string[]) => c.map((f) => relative(SRC, f)).join(' → ');

const graphOf = (files: readonly string[]) => new Map(files.map((f) => [f, edges(f)]));

describe('no import cycles', () => {
  it('src/ forms no cycle, type-only imports included', () => {
    expect(cycles(graphOf(sourceFiles(SRC))).map(show)).toEqual([]);
  });

  it('the walk reports a cycle when there is one, and reads type-only imports', () => {
    // Guards against a walk that can never report (a test that cannot fail is a defect).
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c', 'a']]);
    // wizard-state.ts imports its DispatchContext as a type: the edge is seen.
    const wizard = join(SRC, 'ui/wizard/wizard-state.ts');
    expect(edges(wizard).some((f) => f.endsWith('ui/context.ts'))).toBe(true);
  });
});
