import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPlan } from '../../src/engine/actions/apply.js';
import type { AttachInput } from '../../src/engine/actions/attach-types.js';
import { actionContext } from '../../src/engine/actions/context.js';
import { ACTIONS, findAction } from '../../src/engine/actions/registry.js';
import type { ActionContext, ApplyOptions, ApplyResult, Plan } from '../../src/engine/actions/types.js';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { fakeTime } from '../helpers/fake-time.js';

export const KUBELET_ROOT = '/var/lib/kubelet';
export const STATE_DIR = '/var/log/iscsi-console';

export interface SimEnv {
  host: SimHost;
  ctx: ActionContext;
  snap: () => Snapshot;
  close: () => Promise<void>;
  /** Plans an action from CLI-style arguments on a fresh snapshot. */
  plan: (id: string, positionals: string[], options?: Record<string, unknown>) => Plan;
  /** Plans and applies with write enabled (and --yes semantics). */
  run: (
    id: string,
    positionals: string[],
    options?: Record<string, unknown>,
    apply?: ApplyOptions,
  ) => Promise<{ plan: Plan; result: ApplyResult }>;
}

export async function simEnv(scenario: string, write = true): Promise<SimEnv> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'actions-test-'));
  const opened = await openSimHost({ scenario, clock: 'manual', dir });
  const host = opened.host;
  const snap = () => takeSnapshot(host, { kubeletRoot: KUBELET_ROOT });
  const ctx = actionContext({ host, kubeletRoot: KUBELET_ROOT, stateDir: STATE_DIR, write });
  // What the CLI awaits before inputFromCli (attach's manifest reader), so `plan` stays synchronous.
  await Promise.all(ACTIONS.map((def) => def.loadCli?.()));
  const plan = (id: string, positionals: string[], options: Record<string, unknown> = {}) => {
    const def = findAction(id);
    const s = snap();
    return def.plan(def.inputFromCli(positionals, options, s), s, ctx);
  };
  return {
    host,
    ctx,
    snap,
    plan,
    async run(id, positionals, options = {}, apply = {}) {
      const p = plan(id, positionals, options);
      // Waits and backoffs on an instant clock unless the test brings its own: never real time.
      const result = await applyPlan(p, ctx, { ...fakeTime(), ...apply });
      return { plan: p, result };
    },
    close: async () => {
      await opened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The `attach` command's options for LUN 1 of the lab's storage.target1 on the loopback portal
 * (the sim scenarios serve it), no mount, with overrides.
 */
export const attachArgs = (extra: Record<string, unknown> = {}) => ({
  portal: ['127.0.0.1:3260'],
  iqn: 'iqn.2026-01.lab.example:storage.target1',
  lun: '1',
  'volume-name': 'pv1',
  'no-mount': true,
  ...extra,
});

/** A valid attach input (filesystem, one portal, no CHAP), with overrides. */
export const attachInput = (o: Partial<AttachInput> = {}): AttachInput => ({
  volName: 'pv1',
  portals: ['10.0.0.1'],
  iqn: 'iqn.2024-01.lab.example:t1',
  lun: 1,
  mode: 'filesystem',
  fsType: 'ext4',
  readOnly: false,
  initIface: 'default',
  chapDiscovery: false,
  chapSession: false,
  secretKeys: [],
  mount: true,
  mountOptions: [],
  ...o,
});

/**
 * A PersistentVolume with session CHAP and its `kubernetes.io/iscsi-chap` Secret (the user and
 * password base64, as kubectl stores them), written as files in `dir`: what `--manifest`/`--secret` read.
 */
export function writeChapPv(
  dir: string,
  o: { portal: string; iqn: string; lun: number; user: string; password: string },
): { pv: string; secret: string } {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const pv = join(dir, `pv-${o.password}-${o.lun}.yaml`);
  const secret = join(dir, `secret-${o.password}.yaml`);
  fs.writeFileSync(
    pv,
    `apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-secure }
spec:
  capacity: { storage: 4Gi }
  accessModes: [ReadWriteOnce]
  iscsi:
    targetPortal: ${o.portal}
    iqn: ${o.iqn}
    lun: ${o.lun}
    fsType: ext4
    chapAuthSession: true
    secretRef: { name: chap-secret, namespace: default }
`,
  );
  fs.writeFileSync(
    secret,
    `apiVersion: v1
kind: Secret
metadata: { name: chap-secret, namespace: default }
type: kubernetes.io/iscsi-chap
data:
  node.session.auth.username: ${b64(o.user)}
  node.session.auth.password: ${b64(o.password)}
`,
  );
  return { pv, secret };
}
