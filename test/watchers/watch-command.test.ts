import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/cli/command.js';
import { watchCommand } from '../../src/cli/commands/watch.js';
import { readGlobals } from '../../src/cli/globals.js';
import { FixtureRoot, KROOT } from '../snapshot/fixture-root.js';
import { failSession } from './fixture-changes.js';

let fixture: FixtureRoot | undefined;
afterEach(() => fixture?.cleanup());

/** Runs `watch` on a fixture with a captured stdout; `until` resolves when a line matches. */
function runWatch(json: boolean) {
  fixture = new FixtureRoot('single-sysfs.json');
  fs.mkdirSync(fixture.at(`${KROOT}/plugins/kubernetes.io/iscsi`), { recursive: true });
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  const controller = new AbortController();
  const globals = readGlobals({ refresh: '0.1', json }, {});
  const ctx: CommandContext = {
    host: fixture.host(),
    globals,
    out: {
      stdout: (t) => {
        lines.push(...String(t).split('\n').filter(Boolean));
        wake?.();
      },
      stderr: () => undefined,
      isTTY: false,
    },
    signal: controller.signal,
  };
  const done = watchCommand.run(ctx, { positionals: [], options: {} });
  const until = async (re: RegExp) => {
    while (!lines.some((l) => re.test(l))) await new Promise<void>((r) => (wake = r));
    return lines.find((l) => re.test(l))!;
  };
  return { lines, until, stop: () => controller.abort(), done, fixture };
}

describe('iscsi-console watch', () => {
  it('streams NDJSON events until interrupted, starting with a summary', async () => {
    const w = runWatch(true);
    const first = JSON.parse(await w.until(/"kind":"watcher"/));
    expect(first).toMatchObject({ id: 1, kind: 'watcher', severity: 'info', subject: 'watcher' });
    expect(new Date(first.at).toISOString()).toBe(first.at);
    expect(first.message).toMatch(/1 session\b/);
    failSession(w.fixture);
    const ev = JSON.parse(await w.until(/LOGGED_IN→FAILED/));
    expect(Object.keys(ev)).toEqual(['id', 'at', 'kind', 'severity', 'subject', 'message']);
    expect(ev).toMatchObject({ kind: 'session', severity: 'warn', subject: expect.stringContaining('|') });
    w.stop();
    expect(await w.done).toBe(0);
    const ids = w.lines.map((l) => JSON.parse(l).id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('prints one human line per event', async () => {
    const w = runWatch(false);
    await w.until(/watching node-a/);
    w.fixture.setAttr('/sys/block/sdb/device/state', 'offline\n');
    const line = await w.until(/sdb state running→offline/);
    expect(line).toMatch(/^\d\d:\d\d:\d\d UTC warn {2}device {4}sdb state running→offline$/);
    w.stop();
    expect(await w.done).toBe(0);
  });
});
