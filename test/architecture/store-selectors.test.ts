/**
 * Every part of the console subscribes to the stores through a selector (docs/architecture.md#store-discipline):
 * a bare `useStore(store)` re-renders on every change of anything, the whole console with it.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

/** `useStore(x)` calls without a selector argument, as `file: call`. */
function bareSubscriptions(file: string, text = readFileSync(file, 'utf8')): string[] {
  return [...text.matchAll(/useStore\(\s*([\w.]+)\s*\)/g)].map((m) => `${relative(SRC, file)}: ${m[0]}`);
}

describe('store subscriptions', () => {
  it('no file under src/ui subscribes to a whole store', () => {
    expect(sourceFiles(`${SRC}/ui`).flatMap((f) => bareSubscriptions(f))).toEqual([]);
  });

  it('the check sees a bare subscription', () => {
    const f = `${SRC}/ui/app.tsx`;
    expect(bareSubscriptions(f, 'const s = useStore(ui);\nconst v = useStore(props.ui);')).toHaveLength(2);
    expect(
      bareSubscriptions(f, 'useStore(ui, (x) => x.view); useStore(\n  ui,\n  useShallow(pick),\n)'),
    ).toEqual([]);
  });
});
