/**
 * Every view a way in, at 80×24 and 160×45 on the `--demo` scenarios (the same app layer, planners
 * and consent as `iscsi-console --demo`): Devices groups each multipath map with its paths and names
 * the pod behind each row; Targets groups by target; ⏎ opens the detail of a device, a map, a
 * volume, a node record, a target and an event. Expected values are what the scenarios hold
 * (src/sim/scenarios/incident.ts: kafka-0 in namespace streaming on kafka-data through 10.0.0.10
 * and 10.0.0.11, its second path failed; nightly-backup logged in by hand with node.startup
 * automatic), never the code's output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { fakeBackend } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY } from './helpers/render-tui.js';

const SIZES = [
  [80, 24],
  [160, 45],
] as const;

const VIEW_KEYS = {
  '1': 'sessions',
  '2': 'targets',
  '3': 'volumes',
  '4': 'devices',
  '5': 'records',
} as const;

/**
 * Goes to the view by its number key with no detail open and no filter (reset in the UI store: an
 * esc right before `/` can reach Ink as one alt-key), then filters to `text` with the keys.
 */
async function filterTo(m: DemoConsole, view: keyof typeof VIEW_KEYS, text: string): Promise<void> {
  const s = m.ui.getState();
  m.ui.setState({ detail: undefined, filter: { ...s.filter, [VIEW_KEYS[view]]: '' } });
  await m.press(view, '/');
  await m.type(text);
  await m.press(KEY.enter);
}

/** Filters the view to one row and opens its detail (⏎); the frame once `title` shows. */
async function openDetail(m: DemoConsole, view: keyof typeof VIEW_KEYS, filter: string, title: string) {
  await filterTo(m, view, filter);
  await m.press(KEY.enter);
  return m.waitFor(title);
}

/** One simulated node per describe block (a scenario costs seconds), closed after it. */
function demoFor(o: Parameters<typeof mountDemo>[0]): () => DemoConsole {
  let t: DemoConsole | undefined;
  beforeAll(async () => {
    t = await mountDemo(o);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });
  return () => t!;
}

describe.each(SIZES)('incident at %ix%i', (columns, rows) => {
  const demo = demoFor({ scenario: 'incident', columns, rows });

  it('Devices: each map then its paths, a POD column, MOUNTS and SID kept', async () => {
    const t = demo();
    await t.press('4');
    const f = await t.waitFor('POD');
    const header = f.split('\n').find((l) => l.includes('DEVICE'))!;
    for (const c of ['STATE', 'MOUNTS', 'SID', 'POD', 'PROBLEMS']) expect(header).toContain(c);
    // The degraded map, then its two paths, on consecutive lines.
    expect(f).toMatch(/dm-0 mpatha .*\n.*├ sdb .*\n.*└ sdc /);
    // sdc (session 3) and sda (session 1) name their pods (at 80 columns PROBLEMS grows first, so
    // streaming/kafka-0 may be cut after its namespace); the stale sdd has none.
    expect(f).toMatch(/└ sdc .*transport-offline .*kubelet\(2\)\s+3 streaming\/kaf/);
    expect(f).toMatch(/ sda .*kubelet\(2\)\s+1 db\/postgres-0/);
    expect(f).toMatch(/ sdd .*running\s+.*-\s+4 -/);
    if (columns >= 160) expect(f).toMatch(/└ sdc .*streaming\/kafka-0 /);
  });

  it('⏎ on sdc: its pod by namespace/name, session, target, portal and LUN', async () => {
    const t = demo();
    const f = await openDetail(t, '4', 'name=sdc', 'Device sdc');
    expect(f).toContain('pod streaming/kafka-0');
    expect(f).toMatch(/session 3 \(LOGGED_IN, in-use\)\s+LUN 1/);
    expect(f).toContain('target iqn.2026-01.lab.example:kafka-data');
    expect(f).toContain('portal 10.0.0.11:3260');
    // One path of mpatha, whose other path runs: degraded, as in the Devices row (problems.ts).
    expect(f).toContain('! sdc transport-offline');
  });

  it('⏎ on a map: its paths with their sessions, and its pod', async () => {
    const t = demo();
    const f = await openDetail(t, '4', 'alias=mpatha', 'Map dm-0 mpatha');
    expect(f).toContain('1/2 paths ok');
    expect(f).toContain('pod streaming/kafka-0');
    if (rows >= 45) {
      expect(f).toMatch(/sdb .*running .*session 2 LOGGED_IN @ 10\.0\.0\.10:3260/);
      expect(f).toMatch(/sdc .*transport-offline .*session 3 LOGGED_IN @ 10\.0\.0\.11:3260/);
    }
  });

  it('⏎ on a kubelet volume: target, pods by name, its sessions', async () => {
    const t = demo();
    const f = await openDetail(t, '3', 'kafka', 'Kubelet volume');
    expect(f).toContain('target iqn.2026-01.lab.example:kafka-data  LUN 1');
    expect(f).toContain('Pods (1)');
    expect(f).toContain('pod streaming/kafka-0');
    if (rows >= 45) {
      expect(f).toMatch(/session 2\s+10\.0\.0\.10:3260/);
      expect(f).toMatch(/session 3\s+10\.0\.0\.11:3260/);
    }
  });

  it('⏎ on a node record: startup, CHAP (set or not, never a value) and its session', async () => {
    const t = demo();
    const f = await openDetail(t, '5', 'nightly', 'Node record');
    expect(f).toContain('Node record iqn.2026-01.lab.example:nightly-backup');
    expect(f).toContain('node.startup automatic: iscsid logs it in at boot');
    expect(f).toContain('CHAP not set');
    expect(f).toMatch(/Session 6\s+LOGGED_IN\s+foreign/);
  });

  it('Targets: one row per target with its portals under it; ⏎ opens the target', async () => {
    const t = demo();
    await filterTo(t, '2', '');
    const f = await t.waitFor('portals logged in');
    expect(f).toMatch(
      /…:kafka-data\s+2\/2 portals logged in\s+(\d\s+)?2,3 LOGGED_IN.*\n.*├\s+10\.0\.0\.10:3260.*\n.*└\s+10\.0\.0\.11:3260/,
    );
    expect(f).toMatch(/…:metrics-tsdb\s+0\/1 portal logged in\s+(\d\s+)?7 FAILED/);
    const d = await openDetail(t, '2', 'kafka', 'Target iqn.2026-01.lab.example:kafka-data');
    expect(d).toMatch(/Portals \(2 expected, 2 logged in\)/);
    if (rows >= 45) {
      expect(d).toContain('Sessions (2)');
      expect(d).toContain('LUNs (1)');
      expect(d).toContain('LUN 1  → dm-0');
    }
  });
});

describe.each(SIZES)('events at %ix%i', (columns, rows) => {
  let t: Mounted | undefined;
  afterAll(() => t?.unmount());
  it('⏎ on an event: UTC time, the whole message wrapped, its subject now', async () => {
    const backend = fakeBackend();
    t = await mountConsole({ backend, columns, rows });
    await t.press('6');
    await t.waitFor('no events');
    const message =
      'session 2 LOGGED_IN→FAILED: the connection to 10.0.0.6:3260 dropped (conn 0 state FAILED), iscsid retries the login';
    backend.store.setState({
      events: [
        {
          id: 1,
          at: Date.UTC(2026, 10, 30, 4, 0, 29),
          kind: 'session',
          severity: 'error',
          subject: 'x|y|z',
          message,
        },
      ],
    });
    await t.waitFor('✗ error');
    await t.press(KEY.enter);
    const f = await t.waitFor('Event 1');
    expect(f).toContain('at 2026-11-30 04:00:29.000 UTC');
    expect(f).toContain('error · session');
    // Wrapped to the dialog, nothing cut: the message's last words are on screen.
    expect(f.replace(/[│\s]+/g, ' ')).toContain('iscsid retries the login');
    expect(f).toContain('not on the node any more');
    await t.press(KEY.escape);
    await t.waitFor((x) => !x.includes('Event 1 '));
  });
});

describe.each(SIZES)('--demo csi at %ix%i', (columns, rows) => {
  const demo = demoFor({ scenario: 'csi', columns, rows, write: true });

  it('a CSI leftover session names the driver that left it', async () => {
    const t = demo();
    await filterTo(t, '1', 'csi-leftover');
    const f = await t.waitFor('stale');
    expect(f).toMatch(/left by/);
    if (columns >= 160) expect(f).toContain('left by iscsi.csi.k8s.io');
    expect(f).not.toContain('no kubelet volume');
  });

  it("hints in a plan speak the console's keys, not the CLI's flags", async () => {
    const t = demo();
    // csi-queue: claimed by csi-driver-iscsi, not mounted; its cleanup is refused (overridable).
    await filterTo(t, '1', 'csi-queue');
    await t.press('c');
    const f = await t.waitFor('Plan: Clean up');
    const text = f.replace(/[│\s]+/g, ' ');
    expect(text).toContain('o in the plan (override)');
    expect(text).not.toContain('--force');
    await t.press(KEY.escape);
    await t.waitFor((x) => !x.includes('Plan: Clean up'));
  });

  it("c on a leftover CSI dir in Volumes: the cleanup's plan and consent, then the dirs are gone", async () => {
    const t = demo();
    await filterTo(t, '3', 'pv-csi-gone');
    await t.press('c');
    const f = await t.waitFor('Plan: Clean up CSI volume dirs');
    expect(f).toContain('CSI volume pv-csi-gone (csi-driver-iscsi)');
    expect(f).toContain('Type sim-node-1 to apply');
    if (rows < 45) return;
    await t.type('sim-node-1');
    await t.press(KEY.enter);
    await t.waitFor('succeeded', 20_000);
    await t.press(KEY.escape);
    await t.waitFor((x) => !x.includes('succeeded') && x.includes('nothing matches'), 20_000);
  });
});
