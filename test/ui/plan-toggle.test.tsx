/**
 * cleanup's `--remove-driver-files` in the console: the plan of a session a CSI driver's metadata
 * file claims offers it as tab (a checkbox line at the plan's top), tab re-plans through the same
 * planner and shows the unlink step before consent, tab again takes it out; the plan's warning
 * speaks the key, never the flag. A plan the option does not change offers no toggle. Expected
 * texts come from the `csi` scenario (src/sim/scenarios/csi.ts): session 2 (csi-queue) is claimed
 * by csi-driver-iscsi's connector file /var/run/iscsi.csi.k8s.io/iscsi-csi-queue-handle.json while
 * the driver runs; session 3 (csi-leftover) has no driver file. A CSI volume's cleanup (the Volumes
 * view) offers the same toggle where a driver's file names the volume: etl-job-1's Trident volume
 * pvc-00000102-…, whose tracking file /var/lib/trident/tracking/pvc-00000102-….json names its
 * staging dir. Opening a plan plans once; each tab plans once more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';
import { flatText, readScrolled } from './helpers/scrolled-dialog.js';

const FILE = '/var/run/iscsi.csi.k8s.io/iscsi-csi-queue-handle.json';
const OFF = "[ ] also remove the CSI driver's own file (tab adds it)";
const ON = "[x] also remove the CSI driver's own file (tab undoes it)";

let c: DemoConsole | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

async function planFor(m: DemoConsole, sid: number): Promise<string> {
  await m.press('/');
  await m.type(`sid=${sid}`);
  await m.press(KEY.enter);
  await m.waitFor(/1 of 1 \(11 total\)/);
  await m.press('c');
  return m.waitFor('Plan: Clean up session');
}

const TRACKING = '/var/lib/trident/tracking/pvc-00000102-1111-4222-8333-444455556666.json';

/** Counts the plans the console asks for (the backend's `plan`: no frame shows how often it planned). */
function countPlans(m: DemoConsole): { calls: number } {
  const count = { calls: 0 };
  const plan = m.backend.plan.bind(m.backend);
  m.backend.plan = (...args) => {
    count.calls++;
    return plan(...args);
  };
  return count;
}

/** The Volumes view filtered to the Trident volume of etl-job-1, and c pressed on it. */
async function csiPlan(m: DemoConsole): Promise<string> {
  await m.press('3', '/');
  await m.type('pvc-00000102');
  await m.press(KEY.enter);
  await m.waitFor(/1 of 1 \(\d+ total\)/);
  await m.press('c');
  return m.waitFor('Plan: Clean up CSI volume dirs');
}

/** Back to the plan's top (g), then tab: waits for the toggle's line to say `to`; the new first frame. */
async function pressToggle(m: DemoConsole, to: string): Promise<string> {
  await m.press('g');
  await m.press(KEY.tab);
  return m.waitFor(to);
}

async function readPlan(m: DemoConsole, first: string): Promise<string> {
  const { lines } = await readScrolled(first, async () => {
    const before = m.lastFrame();
    await m.press(KEY.pageDown);
    return m.waitFor((f) => f !== before, 5_000).catch(() => m.lastFrame());
  });
  return flatText(lines);
}

describe.each([
  [80, 24],
  [160, 45],
])('the driver-files toggle in the cleanup plan at %ix%i', (columns, rows) => {
  it('tab adds the unlink step to the plan and takes it out again; the warning names the key', async () => {
    c = await mountDemo({ scenario: 'csi', columns, rows, write: true });
    let f = await planFor(c, 2);
    expect(f).toContain(OFF);
    let text = await readPlan(c, f);
    expect(text).toContain(`${FILE} is kept`);
    expect(text).toContain('(tab in this plan removes it too)');
    expect(text).not.toContain('--remove-driver-files');
    expect(text).not.toContain(`unlink ${FILE}`);

    f = await pressToggle(c, ON);
    text = await readPlan(c, f);
    expect(text).toContain(`unlink ${FILE}`);
    expect(text).toContain('Steps (5)');
    expect(text).not.toContain(`${FILE} is kept`);

    f = await pressToggle(c, OFF);
    expect(await readPlan(c, f)).toContain('Steps (4)');
  });

  it("a CSI volume's cleanup offers the toggle where a driver's file names it; tab unlinks the file", async () => {
    c = await mountDemo({ scenario: 'csi', columns, rows, write: true });
    const plans = countPlans(c);
    let f = await csiPlan(c);
    expect(f).toContain(OFF);
    // Opening the dialog planned once: the toggle came from the plan itself.
    expect(plans.calls).toBe(1);
    let text = await readPlan(c, f);
    expect(text).toContain(`${TRACKING} still names`);
    expect(text).toContain('(tab in this plan removes it too)');
    expect(text).not.toContain('--remove-driver-files');
    expect(text).not.toContain(`unlink ${TRACKING}`);

    f = await pressToggle(c, ON);
    expect(plans.calls).toBe(2);
    text = await readPlan(c, f);
    // The unlink comes last, after kubelet's six dir steps (a long path wraps with ↩ at 80 columns).
    expect(text).toContain('Steps (7)');
    expect(text).toContain('7. unlink /var/lib/trident/tracking/pvc-00000102-1111-4222-8333-444455556666.');
    expect(text).not.toContain(`${TRACKING} still names`);
  });

  it('a cleanup the option does not change offers no toggle', async () => {
    c = await mountDemo({ scenario: 'csi', columns, rows, write: true });
    const plans = countPlans(c);
    const f = await planFor(c, 3);
    expect(f).not.toContain('tab adds it');
    expect(plans.calls).toBe(1);
    await c.press(KEY.tab);
    expect(c.lastFrame()).not.toContain('[x]');
  });
});

describe('the toggled plan runs as shown', () => {
  it('with the override typed, the session is logged out and the driver file is gone', async () => {
    c = await mountDemo({ scenario: 'csi', columns: 160, rows: 45, write: true });
    await planFor(c, 2);
    await c.press(KEY.tab);
    await c.waitFor(ON);
    await c.press('o');
    // The override's own token (consent.ts): "override <hostname>".
    await c.waitFor('Type override sim-node-1 to override this refusal');
    const token = 'override sim-node-1';
    await c.type(token);
    await c.press(KEY.enter);
    await c.waitFor('succeeded', 30_000);
    const snap = c.backend.store.getState().snapshot!;
    expect(snap.sessions.some((s) => s.sid === 2)).toBe(false);
    expect(c.host.readText(FILE)).toBeUndefined();
  });
});
