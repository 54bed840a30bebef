/**
 * The root frame names no view and no dialog (docs/architecture.md, "What lives where in the
 * console"): src/ui/app.tsx reaches views and dialogs only through their registries and shapes, and
 * spells no view id or dialog kind, so adding or changing one never touches the root.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALOGS } from '../../src/ui/dialogs/registry.js';
import { VIEWS } from '../../src/ui/views/registry.js';
import { SRC } from './sources.js';

/** What of the views and dialogs a file names: modules it imports from them, and ids it spells. */
function named(text: string): string[] {
  const shapes = /^\.\/(views\/(registry|view|table-body)|dialogs\/(registry|dialog|dialog-types))\.js$/;
  const modules = [...text.matchAll(/from\s+['"](\.\/(?:views|dialogs)\/[^'"]+)['"]/g)]
    .map((m) => m[1]!)
    .filter((spec) => !shapes.test(spec));
  const ids = [...VIEWS.map((v) => v.id), ...Object.keys(DIALOGS)];
  // A feed ('events', 'journal') is where a view's rows come from, not a view, though views share its name.
  const code = text.replace(/\.feed === ['"][a-z]+['"]/g, '');
  const literals = [...code.matchAll(/['"]([a-z-]+)['"]/g)].map((m) => m[1]!).filter((l) => ids.includes(l));
  return [...modules, ...literals];
}

describe('the root frame', () => {
  it('src/ui/app.tsx names no view and no dialog', () => {
    expect(named(readFileSync(join(SRC, 'ui/app.tsx'), 'utf8'))).toEqual([]);
  });

  it('the check sees a view module and a dialog kind (negative control)', () => {
    expect(
      named("import { safeJournal } from './views/journal.js';\nif (d?.kind === 'progress') {}"),
    ).toEqual(['./views/journal.js', 'progress']);
  });
});
