/**
 * The watcher's promise (src/watchers/watcher.ts) on the simulated node: each change produces the right event after ONE poll
 * tick (driven explicitly: "within one refresh interval"), nothing is reported twice, and a session
 * vanishing mid-read produces no error event. The simulator's add/remove uevents are on, as udev
 * would be on a node; state changes and mounts are only visible to the poll, as on a node.
 */
import { describe, expect, it } from 'vitest';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import type { SimHost } from '../../src/sim/index.js';
import { openSimHost } from '../../src/sim/index.js';
import type { Pacer } from '../../src/watchers/pacer.js';
import type { NodeEvent, NodeState } from '../../src/watchers/types.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { startWatcher, type Watcher } from '../../src/watchers/watcher.js';
import { manualPacer } from './manual-pacer.js';
import { simAndWatcherPerTest } from './sim-per-test.js';

const KROOT = '/var/lib/kubelet';
const REFRESH_MS = 2_000;
const PORTAL = '10.0.0.12:3260';
const IQN = 'iqn.2026-01.lab.example:watch-test';

const slot = simAndWatcherPerTest();

async function open(
  autoPoll = false,
  refreshMs = REFRESH_MS,
  pacer?: Pacer,
): Promise<{ host: SimHost; w: Watcher }> {
  const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
  slot.close = close;
  slot.watcher = startWatcher({ host, kubeletRoot: KROOT, refreshMs, autoPoll, ...(pacer ? { pacer } : {}) });
  await slot.watcher.ready;
  return { host, w: slot.watcher };
}

function published(w: Watcher): NodeState {
  w.store.flush();
  return w.store.getState();
}

/**
 * Makes a change, runs one poll tick, and waits (at most one refresh interval) for an event matching
 * `re` that is newer than the change. Returns it.
 */
async function afterOneTick(w: Watcher, change: () => unknown, re: RegExp): Promise<NodeEvent> {
  const after = published(w).events.at(-1)?.id ?? 0;
  await change();
  await w.poll();
  const match = (e: NodeEvent) => e.id > after && re.test(e.message);
  const s = await waitFor(w.store, (st) => st.events.some(match), REFRESH_MS);
  return s.events.find(match)!;
}

describe('watcher on the simulator', () => {
  it('reports login, logout, device offline, path failure, iscsi.json, mount and umount once each', async () => {
    const { host, w } = await open();
    const sim = host.sim;
    const start = published(w);
    expect(start.events[0]!.message).toMatch(/^watching sim-node-1: \d+ sessions/);
    const udev = start.health.sources.find((s) => s.name === 'udev');
    expect(udev).toMatchObject({ active: true, detail: expect.stringMatching(/simulated/) });

    // Login (iscsiadm through the Host, as an admin would).
    sim.addTarget({ iqn: IQN, portals: [PORTAL], luns: [{ lun: 1, sizeBytes: 1 << 30 }] });
    const login = await afterOneTick(
      w,
      async () => {
        await host.run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', PORTAL]);
        const r = await host.run(['iscsiadm', '-m', 'node', '-T', IQN, '-p', PORTAL, '--login']);
        expect(r.exitCode).toBe(0);
      },
      new RegExp(`^session \\d+ appeared: ${IQN} @ ${PORTAL}`),
    );
    expect(login.kind).toBe('session');
    const mine = published(w).snapshot!.sessions.find((s) => s.targetIqn === IQN)!;
    const disk = mine.devices.find((d) => d.name)!;

    // A device goes offline (someone wrote to its state).
    await afterOneTick(
      w,
      () => sim.deviceOffline(disk.name!),
      new RegExp(`^${disk.name} state running→offline$`),
    );

    // Logout.
    await afterOneTick(
      w,
      () => host.run(['iscsiadm', '-m', 'node', '-T', IQN, '-p', PORTAL, '--logout']),
      new RegExp(`^session ${mine.sid} gone`),
    );

    // One path of the multipath map fails.
    const map = published(w).snapshot!.multipath[0]!;
    const path = map.slaves[1]!;
    const failed = await afterOneTick(
      w,
      () => sim.pathFail(path),
      new RegExp(`^path ${path} of ${map.alias} failed$`),
    );
    expect(failed).toMatchObject({ kind: 'multipath', severity: 'warn' });

    // A global dir with its iscsi.json (kubelet's persistISCSI), then its removal.
    const dir = `${KROOT}/plugins/kubernetes.io/iscsi/iface-default/${PORTAL}-${IQN}-lun-7`;
    const json = JSON.stringify({
      VolName: 'pv-watch',
      Portals: [PORTAL],
      Iqn: IQN,
      Lun: '1',
      Iface: 'default',
    });
    await afterOneTick(
      w,
      () => {
        host.mkdir(dir);
        host.writeText(`${dir}/iscsi.json`, json);
      },
      /^iscsi\.json written for pv-watch$/,
    );
    // Removed with the dir (kubelet's RemoveAll): the file watch sees the dir go, not what it holds.
    await afterOneTick(
      w,
      () => {
        host.unlink(`${dir}/iscsi.json`);
        host.rmdir(dir);
      },
      /^iscsi\.json removed for pv-watch$/,
    );
    expect(published(w).events.some((e) => /^kubelet volume dir removed: /.test(e.message))).toBe(true);

    // kubelet attaches a volume (login, scan, mkfs, mount) and detaches it (umount, logout).
    const state = await sim.kubeletAttach({
      portals: [PORTAL],
      iqn: IQN,
      lun: 1,
      volName: 'pv-m',
      podUIDs: ['pod-1'],
    });
    const mounted = await afterOneTick(
      w,
      () => undefined,
      new RegExp(`^mounted /dev/\\S+ \\(ext4\\) on ${state.globalPath}$`),
    );
    expect(mounted.kind).toBe('mount');
    await afterOneTick(
      w,
      () => sim.kubeletDetach(state.globalPath),
      new RegExp(`^mount of ${state.globalPath} gone$`),
    );

    // Quiet: a tick finds nothing, and no change was ever reported twice.
    expect(await w.poll()).toBe(false);
    const end = published(w);
    const messages = end.events.map((e) => e.message);
    const twice = messages.filter((m, i) => messages.indexOf(m) !== i);
    expect(twice).toEqual([]);
    expect(end.events.filter((e) => e.severity === 'error')).toEqual([]);
    expect(end.health.errors).toEqual([]);
    expect(end.busy).toBe(0);
  });

  it('a session vanishing mid-read produces no error event', async () => {
    const { host, close } = await openSimHost({ scenario: 'healthy', clock: 'manual' });
    slot.close = close;
    let arm: number | undefined;
    // Arms the simulator's fault as the snapshot starts (after the poll's probe): the session is
    // logged out by the kernel the moment the read engine first touches its sysfs dir.
    const readArmed = (o: { kubeletRoot: string }) => {
      if (arm !== undefined) host.sim.vanishOnRead(arm);
      arm = undefined;
      return takeSnapshot(host, o);
    };
    slot.watcher = startWatcher({
      host,
      kubeletRoot: KROOT,
      autoPoll: false,
      takeSnapshot: (_h, o) => readArmed(o),
    });
    const w = slot.watcher;
    await w.ready;
    const before = published(w);
    const victim = before.snapshot!.sessions[0]!;
    arm = victim.sid;
    await w.refreshNow('vanish test');
    expect(arm).toBeUndefined();
    await w.poll();
    const after = published(w);
    const fresh = after.events.filter((e) => e.id > (before.events.at(-1)?.id ?? 0));
    expect(fresh.filter((e) => e.severity === 'error' || e.kind === 'watcher')).toEqual([]);
    expect(after.health.errors).toEqual([]);
    expect(fresh.filter((e) => e.message.startsWith(`session ${victim.sid} gone`))).toHaveLength(1);
    expect(after.snapshot!.sessions.some((s) => s.sid === victim.sid)).toBe(false);
  });

  it('finds a change by itself on its poll timer', async () => {
    // The timer runs on a hand-driven clock: no poll() call, and no real waiting for the tick.
    const pacer = manualPacer();
    const { host, w } = await open(true, 200, pacer);
    const disk = published(w)
      .snapshot!.sessions.flatMap((s) => s.devices)
      .find((d) => d.name)!;
    host.sim.deviceOffline(disk.name!);
    const re = new RegExp(`^${disk.name} state running→offline$`);
    const found = () => published(w).events.some((e) => re.test(e.message));
    pacer.advance(200);
    // The tick is running; its read finishes within a few turns of the event loop.
    for (let turn = 0; !found() && turn < 100; turn++) await new Promise((r) => setImmediate(r));
    expect(found()).toBe(true);
  });
});
