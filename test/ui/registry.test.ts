/**
 * The view and dialog registries are the one list the console derives its views, tabs, number keys,
 * palette and dialog handling from: these are the rules a new entry has to keep.
 */
import { describe, expect, it } from 'vitest';
import { DIALOGS } from '../../src/ui/dialogs/registry.js';
import { PALETTE, viewForDigit } from '../../src/ui/keymap.js';
import { VIEW_IDS } from '../../src/ui/view-store.js';
import { VIEWS } from '../../src/ui/views/registry.js';

describe('view registry', () => {
  it('number keys are 1..n, one per view, in the order of the tabs', () => {
    expect(VIEWS.map((v) => v.key)).toEqual(VIEWS.map((_, i) => i + 1));
    expect(VIEW_IDS).toEqual(VIEWS.map((v) => v.id));
    for (const v of VIEWS) expect(viewForDigit(String(v.key))).toBe(v.id);
    expect(viewForDigit(String(VIEWS.length + 1))).toBeUndefined();
  });

  it('every view is a palette command, and no palette name or alias means two things', () => {
    for (const v of VIEWS) expect(PALETTE.find((c) => c.name === v.id)?.view).toBe(v.id);
    const words = PALETTE.flatMap((c) => [c.name, ...c.aliases]);
    expect(words.filter((w, i) => words.indexOf(w) !== i)).toEqual([]);
  });

  it('column ids are unique within a view (sorting names a column by its id)', () => {
    for (const v of VIEWS) {
      const ids = v.columns.map((c) => c.id);
      expect(new Set(ids).size, v.id).toBe(ids.length);
    }
  });
});

describe('dialog registry', () => {
  it('each kind maps to the module of that kind', () => {
    for (const [kind, module] of Object.entries(DIALOGS)) expect(module.kind).toBe(kind);
  });
});
