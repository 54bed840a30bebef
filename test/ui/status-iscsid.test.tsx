/**
 * The status bar's iscsid word is the node's fact (`Snapshot.iscsid`), the one the problems rule
 * and the planners use, and it follows iscsid live: the `healthy` demo's iscsid stopped (the
 * simulator removes its pid file and process, as systemd's stop does) shows as down after one poll
 * tick, with the node problem in the summary line, and as up again after it starts, at 80×24 and
 * 160×45.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';

let c: DemoConsole | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const statusLine = (f: string) => f.split('\n')[0]!;

describe.each([
  [80, 24],
  [160, 45],
])('status bar iscsid at %ix%i', (columns, rows) => {
  it('says what the last read says, and follows iscsid stopping and starting within a poll', async () => {
    c = await mountDemo({ scenario: 'healthy', columns, rows });
    expect(c.backend.store.getState().snapshot!.iscsid).toBe('running');
    let f = await c.waitFor((x) => statusLine(x).includes('iscsid ● up'));
    expect(statusLine(f).length).toBeLessThanOrEqual(columns);

    c.host.sim.stopDaemon('iscsid');
    await c.backend.watcher!.poll();
    f = await c.waitFor((x) => statusLine(x).includes('iscsid ✗ down'));
    expect(c.backend.store.getState().snapshot!.iscsid).toBe('down');
    // The same fact is the node's problem under the tabs.
    expect(f).toContain('iscsid');
    expect(f.split('\n').slice(1, 5).join('\n')).toMatch(/iscsid (is )?(not running|down)/);

    c.host.sim.startDaemon('iscsid');
    await c.backend.watcher!.poll();
    await c.waitFor((x) => statusLine(x).includes('iscsid ● up'));
  });
});
