/**
 * The Journal view over a journal with malformed lines (through the real app layer on the
 * `--demo healthy` simulator): the console does not crash, the good entries are listed, and each
 * malformed line is a problem of its own in the view — never "journal is empty".
 */
import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_STATE_DIR, type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

let t: DemoConsole | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const entry = (over: Record<string, unknown>) =>
  JSON.stringify({
    id: 'a1',
    phase: 'begin',
    at: '2026-11-30T04:00:00.000Z',
    who: { uid: 0, user: 'root' },
    host: 'node-a',
    hostKind: 'real',
    action: 'cleanup',
    subject: 'session 4',
    ...over,
  });

describe('the Journal view and malformed journal lines', () => {
  it('lists the good entries and names each bad line', async () => {
    t = await mountDemo({
      scenario: 'healthy',
      prepare(host) {
        const dir = `${host.root}${DEMO_STATE_DIR}`;
        fs.mkdirSync(dir, { recursive: true });
        const lines = [
          entry({}),
          entry({ id: 'b', at: 'not-a-time' }),
          '{"__proto__":{"polluted":true},"id":"c","phase":"begin"}',
          entry({ id: { nested: 1 } }),
          entry({ id: 'd', phase: 'end', ok: false, steps: 'logout' }),
          entry({ phase: 'end', ok: true, steps: [{ id: 'logout', status: 'done', commands: [] }] }),
        ];
        fs.writeFileSync(`${dir}/journal.jsonl`, `${lines.join('\n')}\n`, { mode: 0o600 });
      },
    });
    await t.press('7');
    const f = await t.waitFor('session 4');
    expect(f).toContain('✓ ok');
    expect(f).not.toContain('journal is empty');
    expect(f).toMatch(/journal line 2: not a journal entry: at: not a time/);
    expect(f).toMatch(/journal line 3: not a journal entry/);
    expect(f).toMatch(/journal line 4: not a journal entry: id:/);
    expect(f).toMatch(/journal line 5: not a journal entry: steps:/);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    // The entry opens (plan, steps) and closes again.
    await t.press(KEY.enter);
    await t.waitFor('succeeded');
    await t.press(KEY.escape);
    await t.waitFor('journal line 2');
  }, 60_000);
});
