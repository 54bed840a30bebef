/**
 * Hand-built snapshots and a fake backend for component tests: the node store filled directly,
 * actions whose plans and apply are scripted, so each test controls exactly what the UI sees
 * (layout, windowing, hostile names, the dialogs' key handling). The scripted plans are not the
 * engine's: what the console shows of real plans and runs is tested over the simulator through
 * the real app layer (helpers/demo.tsx, demo-console.test.tsx, consent-outage.test.tsx).
 */

import { createStore } from 'zustand/vanilla';
import type { ConsoleBackend, JournalEntry, Selection } from '../../../src/app/backend.js';
import { EMPTY_BLAST } from '../../../src/engine/actions/plan-kit.js';
import type { ActionDef, ApplyResult, Plan, StepProgress } from '../../../src/engine/actions/types.js';
import {
  lunKey,
  SCHEMA_VERSION,
  type ScsiDevice,
  type Session,
  type Snapshot,
  sessionKey,
} from '../../../src/engine/model.js';
import type { NodeState } from '../../../src/watchers/types.js';
import { handFilledParts } from '../../helpers/backend-parts.js';

export const T1 = 'iqn.2024-01.lab.example:storage.target1';
export const T2 = 'iqn.2024-01.lab.example:storage.target2';
export const KUBELET = '/var/lib/kubelet';
export const VOL_PATH = `${KUBELET}/plugins/kubernetes.io/iscsi/iface-default/10.0.0.5:3260-${T1}-lun-1`;

function device(
  iqn: string,
  portal: string,
  host: number,
  lun: number,
  extra: Partial<ScsiDevice> = {},
): ScsiDevice {
  return {
    hctl: `${host}:0:0:${lun}`,
    host,
    channel: 0,
    target: 0,
    lun,
    holders: [],
    partitions: [],
    mountpoints: [],
    swap: false,
    loops: [],
    byPath: [],
    key: lunKey(iqn, portal, 'default', lun),
    ...extra,
  };
}

export function session(sid: number, iqn: string, portal: string, extra: Partial<Session> = {}): Session {
  return {
    sid,
    name: `session${sid}`,
    targetIqn: iqn,
    portal,
    tpgt: 1,
    iface: 'default',
    state: 'LOGGED_IN',
    hostNumber: sid + 1,
    connections: [
      {
        name: `connection${sid}:0`,
        persistentAddress: portal.split(':')[0],
        persistentPort: 3260,
        address: portal.split(':')[0],
        port: 3260,
        state: 'up',
      },
    ],
    devices: [],
    verdict: 'in-use',
    health: 'ok',
    reasons: [],
    kubeletBusy: false,
    kubeletVolumes: [],
    pods: [],
    key: sessionKey(iqn, portal, 'default'),
    ...extra,
  };
}

export function incidentSnapshot(): Snapshot {
  const s1 = session(1, T1, '10.0.0.5:3260', {
    devices: [
      device(T1, '10.0.0.5:3260', 2, 0, { type: 12, state: 'running' }),
      device(T1, '10.0.0.5:3260', 2, 1, {
        name: 'sdb',
        state: 'running',
        sizeBytes: 1 << 30,
        holders: ['dm-0'],
        wwid: 'naa.6001405aaa',
      }),
    ],
    kubeletVolumes: [VOL_PATH],
    pods: ['pod-a-uid'],
    reasons: ['sdb is held by dm-0 mounted at the kubelet global dir'],
  });
  const s2 = session(2, T2, '10.0.0.6:3260', {
    state: 'FAILED',
    verdict: 'stale',
    health: 'failed',
    connections: [{ name: 'connection2:0', persistentAddress: '10.0.0.6', persistentPort: 3260 }],
    devices: [
      device(T2, '10.0.0.6:3260', 3, 1, { name: 'sdc', state: 'transport-offline', sizeBytes: 1 << 30 }),
    ],
    reasons: ['FAILED for 14 min; recovery_tmo 120 s elapsed', 'no mounts, no holders, no kubelet reference'],
    kubeletBusy: false,
  });
  const s3 = session(3, T1, '10.0.0.7:3260', {
    devices: [
      device(T1, '10.0.0.7:3260', 4, 1, {
        name: 'sdd',
        state: 'running',
        sizeBytes: 1 << 30,
        holders: ['dm-0'],
      }),
    ],
    kubeletVolumes: [VOL_PATH],
    pods: ['pod-a-uid'],
  });
  return {
    schemaVersion: SCHEMA_VERSION,
    takenAt: '2026-11-30T04:00:00.000Z',
    readMs: 3,
    node: {
      hostname: 'node-17',
      root: '/',
      kind: 'sim',
      kubeletRoot: KUBELET,
      initiatorName: 'iqn.1993-08.org.debian:01:node17',
      iscsiLoaded: true,
    },
    sessions: [s1, s2, s3],
    // The status bar's iscsid word comes from this fact (Snapshot.iscsid).
    iscsid: 'running',
    outages: [],
    portalHostMap: { [T1]: { '10.0.0.5:3260': 2, '10.0.0.7:3260': 4 }, [T2]: { '10.0.0.6:3260': 3 } },
    multipath: [
      {
        name: 'dm-0',
        alias: 'mpatha',
        wwid: '36001405aaa',
        uuid: 'mpath-36001405aaa',
        slaves: ['sdb', 'sdd'],
        holders: [],
        mountpoints: [VOL_PATH],
        failedSlaves: [],
        mapperLink: true,
        sizeBytes: 1 << 30,
      },
    ],
    mounts: [],
    swaps: [],
    loops: {},
    kubelet: {
      root: KUBELET,
      volumes: [
        {
          path: VOL_PATH,
          mode: 'filesystem',
          iface: 'default',
          portal: '10.0.0.5:3260',
          iqn: T1,
          lun: '1',
          metadata: {
            Portals: ['10.0.0.5:3260', '10.0.0.7:3260', 'storage.example.com:3260'],
            Iqn: T1,
            Lun: '1',
          },
          metadataSource: 'iscsi.json',
          mounted: true,
          podDevices: [],
          sessions: [1, 3],
          pods: ['pod-a-uid'],
          problems: [],
        },
        {
          path: `${KUBELET}/plugins/kubernetes.io/iscsi/iface-default/10.0.0.9:3260-iqn.2024-01.lab.example:gone-lun-0`,
          mode: 'filesystem',
          iface: 'default',
          portal: '10.0.0.9:3260',
          iqn: 'iqn.2024-01.lab.example:gone',
          lun: '0',
          metadataSource: 'path',
          mounted: false,
          podDevices: [],
          sessions: [],
          pods: [],
          problems: ['orphaned: no session'],
        },
      ],
      podVolumes: [
        {
          podUid: 'pod-a-uid',
          volName: 'data',
          path: `${KUBELET}/pods/pod-a-uid/volumes/kubernetes.io~iscsi/data`,
          mode: 'filesystem',
          globalPath: VOL_PATH,
          mounted: true,
        },
      ],
    },
    nodeRecords: [
      {
        targetIqn: T1,
        portal: '10.0.0.5:3260',
        tpgt: 1,
        iface: 'default',
        startup: 'automatic',
        chap: false,
        path: `/etc/iscsi/nodes/${T1}/10.0.0.5,3260,1/default`,
      },
      {
        targetIqn: T2,
        portal: '10.0.0.6:3260',
        tpgt: 1,
        iface: 'default',
        startup: 'manual',
        chap: true,
        path: `/etc/iscsi/nodes/${T2}/10.0.0.6,3260,1/default`,
      },
    ],
    ifaces: [{ name: 'default', transport: 'tcp', path: '/etc/iscsi/ifaces/default' }],
    problems: [],
  };
}

/** A node with `n` sessions (the scale scenario's shape) for windowing and latency tests. */
export function scaleSnapshot(n: number): Snapshot {
  const base = incidentSnapshot();
  const sessions: Session[] = [];
  for (let i = 1; i <= n; i++) {
    const iqn = `iqn.2024-01.lab.example:storage.pvc-${String(i).padStart(5, '0')}`;
    const portal = `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}:3260`;
    const failed = i % 97 === 0;
    sessions.push(
      session(i, iqn, portal, {
        state: failed ? 'FAILED' : 'LOGGED_IN',
        verdict: failed ? 'stale' : 'in-use',
        health: failed ? 'failed' : 'ok',
        devices: [
          device(iqn, portal, i + 1, 1, { name: `sd${i}`, state: failed ? 'transport-offline' : 'running' }),
        ],
      }),
    );
  }
  return { ...base, sessions, multipath: [], kubelet: { ...base.kubelet, volumes: [], podVolumes: [] } };
}

export function nodeState(snapshot: Snapshot | undefined): NodeState {
  return {
    ...(snapshot ? { snapshot } : {}),
    events: [],
    actions: [],
    health: {
      lastRefreshAt: Date.now(),
      refreshCount: 1,
      errors: [],
      sources: [{ name: 'iscsid', active: true }],
    },
    busy: 0,
  };
}

function plan(over: Partial<Plan> & Pick<Plan, 'action' | 'title' | 'subject'>): Plan {
  return {
    steps: [],
    refusals: [],
    warnings: [],
    blastRadius: structuredClone(EMPTY_BLAST),
    risk: 'low',
    confirm: 'yn',
    undo: [],
    before: [],
    ...over,
  };
}

/** Two registry-shaped actions: cleanup (destructive, typed sid) and rescan (y/N). */
export function fakeActions(): ActionDef[] {
  const base = { usage: '', cliOptions: [], examples: [], inputFromCli: () => ({}) };
  return [
    {
      ...base,
      id: 'cleanup',
      title: 'Clean up',
      key: 'c',
      scopes: ['session', 'volume'],
      destructive: true,
      summary: 'Log out a stale session and remove its devices',
      plan: () => plan({ action: 'cleanup', title: 'Clean up', subject: '' }),
    },
    {
      ...base,
      id: 'rescan',
      title: 'Rescan',
      key: 'r',
      scopes: ['session'],
      destructive: false,
      summary: 'Rescan the session for LUN changes',
      plan: () => plan({ action: 'rescan', title: 'Rescan', subject: '' }),
    },
    {
      ...base,
      id: 'attach',
      title: 'Attach',
      key: 'a',
      scopes: ['node'],
      destructive: false,
      summary: 'Log in to a target (wizard)',
      plan: () => plan({ action: 'attach', title: 'Attach', subject: '' }),
    },
  ];
}

export interface FakeBackend extends ConsoleBackend {
  calls: {
    plan: { action: string; selections: Selection[]; write: boolean }[];
    /** ctrl-r and anything else that asked for a re-read (the app re-reads after a run by itself). */
    refresh: number;
    apply: { plan: Plan; force?: boolean | undefined; secrets?: Record<string, string> | undefined }[];
  };
  /** Resolve the pending apply (tests drive step progress by hand). */
  finishApply(result?: Partial<ApplyResult>): void;
  /** Reports a step's progress of the pending apply into the store's `actions`. */
  progress?: (p: StepProgress) => void;
  journal: JournalEntry[];
}

export function fakeBackend(snapshot: Snapshot | undefined = incidentSnapshot()): FakeBackend {
  const store = createStore<NodeState>(() => nodeState(snapshot));
  let resolveApply: ((r: ApplyResult) => void) | undefined;
  let pendingPlan: Plan | undefined;
  const b: FakeBackend = {
    ...handFilledParts(),
    store,
    actions: fakeActions(),
    calls: { plan: [], apply: [], refresh: 0 },
    journal: [],
    refreshNow: () => {
      b.calls.refresh++;
    },
    plan(action, selections, write) {
      b.calls.plan.push({ action, selections, write });
      const snap = store.getState().snapshot!;
      const sessions = selections.map((s) => snap.sessions.find((x) => x.key === s.key)!).filter(Boolean);
      const destructive = action === 'cleanup';
      return plan({
        action: action as Plan['action'],
        title: destructive ? 'Clean up' : 'Rescan',
        subject: sessions.map((s) => `session ${s.sid} ${s.targetIqn} @ ${s.portal}`).join('; '),
        steps: sessions.flatMap((s) =>
          destructive
            ? [
                {
                  id: `logout-${s.sid}`,
                  why: 'log out of the stale session',
                  argv: ['iscsiadm', '-m', 'session', '-r', String(s.sid), '-u'],
                  effect: { kind: 'none' as const },
                  preconditions: [],
                },
                {
                  id: `delete-${s.sid}`,
                  why: 'remove the node record so it does not come back at boot',
                  argv: ['iscsiadm', '-m', 'node', '-T', s.targetIqn, '-p', s.portal, '-o', 'delete'],
                  effect: { kind: 'none' as const },
                  preconditions: [],
                },
              ]
            : [
                {
                  id: `rescan-${s.sid}`,
                  why: 'find new LUNs',
                  argv: ['iscsiadm', '-m', 'session', '-r', String(s.sid), '-R'],
                  effect: { kind: 'none' as const },
                  preconditions: [],
                },
              ],
        ),
        blastRadius: {
          ...structuredClone(EMPTY_BLAST),
          sessions: sessions.map((s) => `session ${s.sid}`),
          devices: sessions.flatMap((s) => s.devices.flatMap((d) => (d.name ? [d.name] : []))),
        },
        risk: destructive ? 'high' : 'low',
        confirm: destructive ? 'typed' : 'yn',
        ...(destructive && sessions.length === 1 ? { confirmToken: String(sessions[0]!.sid) } : {}),
        refusals: write ? [] : [{ id: 'read-only', reason: 'the console is read-only', overridable: false }],
      });
    },
    apply(p, options) {
      b.calls.apply.push({ plan: p, force: options.force, secrets: options.secrets });
      // Tracked in the store's `actions`, as the app's runner does: the dialog reads progress there.
      const id = `${p.action}-${b.calls.apply.length}`;
      const steps = p.steps.map((s) => ({ stepId: s.id, status: 'pending' as const }));
      store.setState({
        actions: [...store.getState().actions, { id, plan: p, steps, startedAt: Date.now() }],
      });
      b.progress = (progress) => {
        store.setState({
          actions: store
            .getState()
            .actions.map((a) =>
              a.id === id
                ? { ...a, steps: a.steps.map((s) => (s.stepId === progress.stepId ? progress : s)) }
                : a,
            ),
        });
      };
      pendingPlan = p;
      return new Promise<ApplyResult>((r) => {
        resolveApply = r;
      });
    },
    finishApply(result = {}) {
      const p = pendingPlan!;
      const ok = result.ok ?? true;
      if (ok && p.action === 'cleanup') {
        const st = store.getState();
        const gone = new Set(p.subject.split('; ').map((x) => Number(/session (\d+)/.exec(x)?.[1])));
        store.setState({
          snapshot: { ...st.snapshot!, sessions: st.snapshot!.sessions.filter((s) => !gone.has(s.sid)) },
        });
      }
      resolveApply!({
        ok,
        steps: p.steps.map((s) => ({
          stepId: s.id,
          status: ok ? 'done' : 'failed',
          detail: ok ? 'exit 0' : 'exit 8 ISCSI_ERR_TRANS_TIMEOUT',
        })),
        verified: ok,
        verification: ok ? ['session is gone from sysfs'] : [],
        ...result,
      });
    },
    readJournal: () => b.journal,
  };
  return b;
}
