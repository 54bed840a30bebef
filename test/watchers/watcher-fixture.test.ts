/**
 * The watcher on a `--root` fixture: the real single-session sysfs capture, changed the way the
 * kernel, kubelet and mount would change it. Each change must produce its event on the next poll
 * tick (or at once, for file events), and only once.
 */
import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_BLAST } from '../../src/engine/actions/plan-kit.js';
import type { ActionContext, ApplyOptions, ApplyResult, Plan } from '../../src/engine/actions/types.js';
import type { Host, StreamHandlers } from '../../src/engine/host/host.js';
import { spawnLineStream } from '../../src/engine/host/runner.js';
import type { NodeEvent } from '../../src/watchers/types.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { startWatcher, type Watcher } from '../../src/watchers/watcher.js';
import { FixtureRoot, IQN1, iscsiJson, KROOT, P1 } from '../snapshot/fixture-root.js';
import { failSession, logout } from './fixture-changes.js';

let fixture: FixtureRoot | undefined;
let watcher: Watcher | undefined;
afterEach(async () => {
  await watcher?.stop();
  fixture?.cleanup();
  watcher = undefined;
  fixture = undefined;
});

function start(host?: Host): Watcher {
  fixture ??= new FixtureRoot('single-sysfs.json');
  watcher = startWatcher({ host: host ?? fixture.host(), kubeletRoot: KROOT, autoPoll: false, udev: false });
  return watcher;
}

/** Waits for a published event whose message matches, newer than `after`. */
async function eventMatching(w: Watcher, re: RegExp, after = 0): Promise<NodeEvent> {
  const s = await waitFor(w.store, (st) => st.events.some((e) => e.id > after && re.test(e.message)), 5_000);
  return s.events.find((e) => e.id > after && re.test(e.message))!;
}

const lastId = (w: Watcher) => {
  w.store.flush();
  return w.store.getState().events.at(-1)?.id ?? 0;
};

const GLOBAL_MOUNT = (dir: string) => `40 22 8:16 / ${dir} rw,relatime shared:30 - ext4 /dev/sdb rw`;

describe('watcher on a --root fixture', () => {
  it('starts with a summary and reports each change once, on the next tick', async () => {
    fixture = new FixtureRoot('single-sysfs.json');
    const f = fixture;
    // A node where kubelet has attached iSCSI volumes before: its plugin and pods dirs exist.
    fs.mkdirSync(f.at(`${KROOT}/plugins/kubernetes.io/iscsi`), { recursive: true });
    fs.mkdirSync(f.at(`${KROOT}/pods`), { recursive: true });
    const w = start();
    await w.ready;
    const first = await eventMatching(w, /^watching node-a: 1 session \(/);
    expect(first.kind).toBe('watcher');
    expect(await w.poll()).toBe(false);

    // Session goes FAILED (a computed sysfs value, seen only by the poll); the kernel blocks its
    // SCSI target at the same time (__iscsi_block_session).
    let after = lastId(w);
    failSession(f);
    expect(await w.poll()).toBe(true);
    expect((await eventMatching(w, /^session 1 LOGGED_IN→FAILED/, after)).severity).toBe('warn');

    // The session comes back, then a device goes offline (someone wrote to its state).
    after = lastId(w);
    f.setAttr('/sys/class/iscsi_session/session1/state', 'LOGGED_IN\n');
    for (const d of ['0:0:0:0', '0:0:0:1', '0:0:0:2'])
      f.setAttr(`/sys/bus/scsi/devices/${d}/state`, 'running\n');
    expect(await w.poll()).toBe(true);
    await eventMatching(w, /^session 1 FAILED→LOGGED_IN/, after);
    after = lastId(w);
    f.setAttr('/sys/block/sdb/device/state', 'offline\n');
    expect(await w.poll()).toBe(true);
    await eventMatching(w, /^sdb state running→offline$/, after);

    // kubelet writes iscsi.json: the file watch triggers the refresh, no poll needed.
    after = lastId(w);
    const dir = f.fsVolume(P1, IQN1, 2, iscsiJson('pv-x', [P1], IQN1, 2));
    await eventMatching(w, /^iscsi\.json written for pv-x$/, after);

    // Mount and umount of the global dir.
    after = lastId(w);
    f.mountinfo([GLOBAL_MOUNT(dir)]);
    expect(await w.poll()).toBe(true);
    await eventMatching(w, new RegExp(`^mounted /dev/sdb \\(ext4\\) on ${dir}`), after);
    after = lastId(w);
    f.mountinfo([]);
    expect(await w.poll()).toBe(true);
    await eventMatching(w, /^mount of .* gone$/, after);

    // kubelet's UnmountDevice removes the global dir, iscsi.json with it (RemoveAll): the file
    // watch on its iface dir triggers the refresh (what the dir holds is not watched).
    after = lastId(w);
    fs.rmSync(f.at(dir), { recursive: true });
    await eventMatching(w, /^iscsi\.json removed for pv-x$/, after);
    await eventMatching(w, /^kubelet volume dir removed: /, after);

    // Logout: the session and its disks vanish.
    after = lastId(w);
    logout(f);
    expect(await w.poll()).toBe(true);
    await eventMatching(w, /^session 1 gone/, after);
    await eventMatching(w, /^sdb gone/, after);

    // Quiet again: nothing more, and nothing was ever said twice.
    expect(await w.poll()).toBe(false);
    await w.refreshNow('extra');
    w.store.flush();
    const messages = w.store.getState().events.map((e) => e.message);
    expect(new Set(messages).size).toBe(messages.length);
    expect(w.store.getState().events.filter((e) => e.severity === 'error')).toEqual([]);
    expect(w.store.getState().busy).toBe(0);
  });

  it('reports sources and their health', async () => {
    const w = start();
    await w.ready;
    w.store.flush();
    const h = w.store.getState().health;
    const byName = Object.fromEntries(h.sources.map((s) => [s.name, s]));
    expect(byName['sysfs-poll']?.active).toBe(false);
    expect(byName.udev?.active).toBe(false);
    expect(byName.mountinfo?.active).toBe(true);
    // No kubelet dirs in the fixture yet: absent, re-checked each tick.
    expect(byName['kubelet-files']).toMatchObject({ active: false });
    expect(h.refreshCount).toBeGreaterThan(0);
    expect(h.lastRefreshMs).toBeGreaterThanOrEqual(0);
    // The plugin dir appears: the next tick starts watching it.
    fixture!.fsVolume(P1, IQN1, 1);
    await w.poll();
    w.store.flush();
    expect(w.store.getState().health.sources.find((s) => s.name === 'kubelet-files')?.active).toBe(true);
  });

  it('a session vanishing mid-read produces no error event', async () => {
    fixture = new FixtureRoot('single-sysfs.json');
    const f = fixture;
    const inner = f.host();
    let vanishOnRead = false;
    // Logs the session out while the snapshot is reading it (between its state and its devices).
    const host = new Proxy(inner, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (prop !== 'readText' && prop !== 'readTextOrError')
          return typeof v === 'function' ? v.bind(target) : v;
        return (p: string) => {
          if (vanishOnRead && p.includes('session1/iscsi_session/session1/tpgt')) {
            vanishOnRead = false;
            logout(f);
          }
          return (v as (p: string) => unknown).call(target, p);
        };
      },
    }) as Host;
    const w = start(host);
    await w.ready;
    const after = lastId(w);
    vanishOnRead = true;
    await w.refreshNow('test');
    await w.poll();
    w.store.flush();
    const events = w.store.getState().events.filter((e) => e.id > after);
    expect(events.filter((e) => e.severity === 'error' || e.kind === 'watcher')).toEqual([]);
    expect(w.store.getState().health.errors).toEqual([]);
    await eventMatching(w, /^session 1 gone/, 0);
  });
});

describe('runAction', () => {
  it('tracks step progress in the store and re-reads the node once, after the plan', async () => {
    fixture = new FixtureRoot('single-sysfs.json');
    const f = fixture;
    const plan = {
      action: 'delete-device',
      title: 'Offline sdb',
      subject: 'sdb',
      steps: [
        {
          id: 'offline',
          why: 'test',
          write: { path: '/sys/block/sdb/device/state', data: 'offline\n' },
          effect: { kind: 'none' as const },
          preconditions: [],
        },
        {
          id: 'check',
          why: 'test',
          wait: { what: 'the check', timeoutMs: 0 },
          effect: { kind: 'none' as const },
          preconditions: [],
        },
      ],
      refusals: [],
      warnings: [],
      blastRadius: structuredClone(EMPTY_BLAST),
      risk: 'low',
      confirm: 'none',
      undo: [],
      before: [],
    } satisfies Plan;
    let stepDoneBeforeStep2 = false;
    let offlineSeenBeforeEnd = true;
    const applyPlan = async (p: Plan, _ctx: ActionContext, o: ApplyOptions = {}): Promise<ApplyResult> => {
      o.onProgress?.({ stepId: 'offline', status: 'running' });
      f.setAttr('/sys/block/sdb/device/state', 'offline\n');
      o.onProgress?.({ stepId: 'offline', status: 'done', durationMs: 1 });
      // Progress reaches the store at once; the node is not re-read between steps (applyPlan
      // re-reads it itself before each step), only once after the plan.
      w.store.flush();
      const s = w.store.getState();
      stepDoneBeforeStep2 = s.actions[0]?.steps[0]?.status === 'done';
      offlineSeenBeforeEnd = s.events.some((e) => /sdb state running→offline/.test(e.message));
      o.onProgress?.({ stepId: 'check', status: 'done' });
      return {
        ok: true,
        steps: p.steps.map((x) => ({ stepId: x.id, status: 'done' as const })),
        verified: true,
        verification: [],
      };
    };
    watcher = startWatcher({ host: f.host(), kubeletRoot: KROOT, autoPoll: false, udev: false, applyPlan });
    const w = watcher;
    await w.ready;
    const ctx = {} as ActionContext;
    const result = await w.runAction(plan, ctx);
    expect(result.ok).toBe(true);
    expect(stepDoneBeforeStep2).toBe(true);
    expect(offlineSeenBeforeEnd).toBe(false);
    w.store.flush();
    const st = w.store.getState();
    // The one re-read after the plan published what the step changed.
    expect(st.events.some((e) => /sdb state running→offline/.test(e.message))).toBe(true);
    expect(st.actions).toHaveLength(1);
    expect(st.actions[0]).toMatchObject({ plan, finishedAt: expect.any(Number), result });
    expect(st.events.filter((e) => e.kind === 'action').map((e) => e.message)).toEqual([
      'Offline sdb: started',
      'Offline sdb: done',
    ]);
    expect(st.busy).toBe(0);
  });
});

describe('udev source', () => {
  it('goes inactive with a timeline event when udevadm cannot run, and the poll carries on', async () => {
    fixture = new FixtureRoot('single-sysfs.json');
    const inner = fixture.host();
    // A node without udevadm: the stream cannot start (ENOENT).
    const host = new Proxy(inner, {
      get(target, prop) {
        if (prop === 'spawnStream')
          return (_argv: readonly string[], h: StreamHandlers) =>
            spawnLineStream(['no-such-udevadm-here'], h);
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Host;
    watcher = startWatcher({ host, kubeletRoot: KROOT, autoPoll: false, udev: true });
    const w = watcher;
    await w.ready;
    const s = await waitFor(w.store, (st) => st.events.some((e) => e.subject === 'udev'));
    expect(s.events.find((e) => e.subject === 'udev')).toMatchObject({ kind: 'watcher', severity: 'warn' });
    expect(s.health.sources.find((x) => x.name === 'udev')).toMatchObject({
      active: false,
      detail: expect.stringMatching(/udevadm not available/),
    });
    failSession(fixture);
    expect(await w.poll()).toBe(true);
  });
});
