/**
 * attach: kubelet's AttachDisk step for step (docs/kubelet-iscsi.md#attachdisk), then optionally SafeFormatAndMount (docs/kubelet-iscsi.md#format-and-mount) onto
 * the kubelet global path with iscsi.json written first (docs/kubelet-iscsi.md#iscsijson), so kubelet can later detach it.
 * Beyond kubelet: IPv6 portals normalised, LUN ≥ 256 by-path names, hostname portals resolved (and
 * warned about), a timeout on every command, event-driven waits instead of 1 s sleeps.
 */

import { UserError } from '../errors.js';
import { parseLun } from '../iscsi/lun.js';
import { formatPortal, parseTargetPortal } from '../iscsi/portal.js';
import { lazyModule } from '../lazy-module.js';
import type { Snapshot } from '../model.js';
import { validateAttachInput } from './attach-input.js';
import { attachOptionSpecs, DEFAULT_FS_TYPE, DEFAULT_IFACE } from './attach-params.js';
import { planIface, planLunScan, planPortalLogin } from './attach-portal.js';
import { planDiscoveryRecords, rollbackNote } from './attach-records.js';
import type { AttachInput } from './attach-types.js';
import { planFindMultipath, planFormatAndMount, planMetadata } from './attach-volume.js';
import { DISCOVERY_CHAP_KEYS, SESSION_CHAP_KEYS } from './chap-keys.js';
import { kubeletGlobalPath } from './deps.js';
import { refuseEscapingPaths } from './path-guard.js';
import { addStep, addUnique, newPlan } from './plan-kit.js';
import type { ActionDef, Plan } from './types.js';

export { DISCOVERY_CHAP_KEYS, SESSION_CHAP_KEYS };

/** kubelet portalMounter (docs/kubelet-iscsi.md#data-model-and-naming) plus IPv6 normalisation. */
function normalise(p: string): { portal: string; hostname: boolean; addr: string } {
  const parts = parseTargetPortal(p);
  if (!parts) throw new UserError(`invalid portal ${p}`, 'use ADDR[:PORT]; IPv6 as [ADDR]:PORT');
  return {
    portal: formatPortal(parts.address, parts.port),
    hostname: parts.family === 'hostname',
    addr: parts.address,
  };
}

/** The exact bytes kubelet's json.Encoder writes for iscsiDisk (docs/kubelet-iscsi.md#iscsijson): one line plus "\n". */
export function iscsiJson(
  i: Pick<AttachInput, 'volName' | 'portals' | 'iqn' | 'lun' | 'initIface' | 'initiatorName'> & {
    iface: string;
  },
): string {
  const text = JSON.stringify({
    VolName: i.volName,
    Portals: i.portals,
    Iqn: i.iqn,
    Lun: String(i.lun),
    InitIface: i.initIface,
    Iface: i.iface,
    InitiatorName: i.initiatorName ?? '',
    MetricsProvider: null,
  });
  // Go's encoder escapes <, > and & (HTML-safe) and U+2028/2029.
  return `${text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** Where an attach lands: its normalised portals, the iface it logs in through, kubelet's global path. */
interface AttachLayout {
  norm: ReturnType<typeof normalise>[];
  portals: string[];
  iface: string;
  globalPath: string;
}

function attachLayout(input: AttachInput, ctx: Parameters<ActionDef['plan']>[2]): AttachLayout {
  const norm = input.portals.map(normalise);
  const portals = [...new Set(norm.map((n) => n.portal))];
  const primary = portals[0]!;
  const iface = input.initiatorName ? `${primary}:${input.volName}` : input.initIface;
  const globalPath = kubeletGlobalPath(
    ctx.kubeletRoot,
    input.mode,
    iface,
    primary,
    input.iqn,
    String(input.lun),
  );
  return { norm, portals, iface, globalPath };
}

/** Refuses a volume that is attached already; warns when kubelet manages the target too. */
function checkKubelet(plan: Plan, input: AttachInput, s: Snapshot, globalPath: string): void {
  const existing = s.kubelet.volumes.find((v) => v.path === globalPath);
  if (existing && (existing.mounted || existing.mode === 'block')) {
    plan.refusals.push({
      id: 'already-attached',
      reason: `${globalPath} already exists${existing.mounted ? ' and is mounted' : ''}`,
      hint: 'nothing to do; kubelet will use it as is',
      overridable: false,
    });
  }
  const kubeletOwned = s.kubelet.volumes.filter((v) => v.iqn === input.iqn && v.path !== globalPath);
  if (kubeletOwned.length > 0) {
    // kubelet's per-IQN lock lives in its memory (docs/kubelet-iscsi.md#latent-behaviours item 1): we cannot take it, only warn.
    plan.warnings.push(
      `kubelet also manages ${input.iqn} (${kubeletOwned.map((v) => v.path).join(', ')}); its per-target lock is in its memory, so avoid running this while pods using the target start or stop`,
    );
  }
}

/** A hostname portal is resolved first, to the address sysfs and by-path names show. */
function planResolveHostnames(plan: Plan, norm: readonly ReturnType<typeof normalise>[]): void {
  for (const n of norm.filter((n) => n.hostname)) {
    plan.warnings.push(
      `portal ${n.portal} is a hostname: kubelet's portal→host map only holds addresses, so kubelet would log in again (rancher/rancher#12433); it is resolved with getent first`,
    );
    addStep(plan, {
      id: `resolve:${n.addr}`,
      why: `resolve ${n.addr} to the address sysfs and /dev/disk/by-path will show`,
      argv: ['getent', 'hosts', n.addr],
      timeoutMs: 10_000,
      preconditions: [],
      dynamic: { kind: 'resolve-hostname', name: n.addr },
      effect: { kind: 'none' },
    });
  }
}

/** Each portal: log in (unless a session is there already, as kubelet skips it), then scan the LUN. */
function planPortals(
  plan: Plan,
  input: AttachInput,
  layout: AttachLayout,
  hostMap: Readonly<Record<string, number>>,
): void {
  for (const tp of layout.portals) {
    const host = hostMap[tp];
    if (host !== undefined) {
      plan.warnings.push(`already logged in to ${tp} (host${host}): login skipped, as kubelet does`);
    } else {
      planPortalLogin(plan, {
        iqn: input.iqn,
        portal: tp,
        iface: layout.iface,
        discover: true,
        chapDiscovery: input.chapDiscovery,
        chapSession: input.chapSession,
        secretKeys: input.secretKeys,
      });
    }
    planLunScan(plan, { iqn: input.iqn, portal: tp, iface: layout.iface, lun: input.lun, host });
  }
}

/** The node records discovery creates (named, tidied, rolled back on failure: attach-records.ts). */
function planRecords(
  plan: Plan,
  input: AttachInput,
  s: Snapshot,
  layout: AttachLayout,
  hostMap: Readonly<Record<string, number>>,
): void {
  const discoveryPortals = layout.portals.filter((tp) => hostMap[tp] === undefined);
  const recordsPlan = {
    iqn: input.iqn,
    iface: layout.iface,
    loginPortals: discoveryPortals,
    discoveryPortals,
    ...(input.initiatorName ? { clone: layout.iface } : {}),
    globalPath: layout.globalPath,
    keep: input.keepOnFailure === true,
  };
  planDiscoveryRecords(plan, s, recordsPlan, input.discovered);
  plan.warnings.push(rollbackNote(recordsPlan));
}

/** CHAP switched on without its user name or password in the Secret: said before consent. */
function warnMissingChap(plan: Plan, input: AttachInput): void {
  if (!input.chapDiscovery && !input.chapSession) return;
  const needed = [
    ...(input.chapDiscovery ? DISCOVERY_CHAP_KEYS.slice(0, 2) : []),
    ...(input.chapSession ? SESSION_CHAP_KEYS.slice(0, 2) : []),
  ];
  const missing = needed.filter((k) => !input.secretKeys.includes(k));
  if (missing.length > 0) plan.warnings.push(`CHAP enabled but the Secret has no ${missing.join(', ')}`);
}

/**
 * The attach plan, in kubelet's order: hostnames resolved, the iface, each portal's login and LUN
 * scan, the node records, the multipath map, kubelet's global dir and iscsi.json, format-and-mount.
 */
export function planAttach(input: AttachInput, s: Snapshot, ctx: Parameters<ActionDef['plan']>[2]): Plan {
  validateAttachInput(input);
  const layout = attachLayout(input, ctx);
  const { portals, iface, globalPath } = layout;
  const plan = newPlan(
    'attach',
    'Attach volume',
    `${input.iqn} LUN ${input.lun} @ ${portals.join(', ')} → ${globalPath}`,
    ctx,
  );
  plan.risk = 'medium';
  plan.lockKeys = [input.iqn];
  addUnique(plan.blastRadius.kubeletVolumes, globalPath);
  checkKubelet(plan, input, s, globalPath);
  const hostMap = s.portalHostMap[input.iqn] ?? {};
  planResolveHostnames(plan, layout.norm);
  planIface(plan, {
    initIface: input.initIface,
    iface,
    ...(input.initiatorName ? { initiatorName: input.initiatorName } : {}),
  });
  planPortals(plan, input, layout, hostMap);
  planRecords(plan, input, s, layout, hostMap);
  planFindMultipath(plan, portals.length, input.initiatorName ? iface : undefined);
  const mounting = input.mode === 'filesystem' && input.mount;
  planMetadata(plan, globalPath, iscsiJson({ ...input, portals, iface }), mounting);
  if (mounting) planFormatAndMount(plan, globalPath, input);
  warnMissingChap(plan, input);
  return refuseEscapingPaths(plan, ctx);
}

function optString(o: Record<string, unknown>, name: string): string | undefined {
  const v = o[name];
  return typeof v === 'string' ? v : undefined;
}

function optList(o: Record<string, unknown>, name: string): string[] {
  const v = o[name];
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
}

/**
 * The one manifest reader (manifest.ts), loaded on first need: it brings yaml and zod, and the
 * console imports attach (through the registry) long before anyone loads a manifest. The CLI awaits
 * `attachAction.loadCli()` before `inputFromCli`; the console loads it once its first frame is drawn.
 */
export const manifestModule = lazyModule('the manifest reader', () => import('./manifest.js'));

/** Reads a manifest file named on the command line (an admin's local file, not a host path). */
function secretsFromOptions(o: Record<string, unknown>, secretName?: string): Record<string, string> {
  const file = optString(o, 'secret');
  if (!file) return {};
  const { chapFromSecret, readManifestFile } = manifestModule.get();
  return chapFromSecret(readManifestFile(file), file, secretName);
}

export const attachAction: ActionDef<AttachInput> = {
  id: 'attach',
  title: 'Attach volume',
  key: 'a',
  scopes: ['node'],
  destructive: false,
  summary:
    'Attach an iSCSI volume exactly as kubelet attaches it (login, scan, format-and-mount, iscsi.json)',
  usage:
    'attach (--manifest FILE [--volume-name NAME] | --portal P [--portal P2] --iqn IQN --lun N --volume-name NAME) [--secret FILE] [--fs-type ext4] [--read-only] [--block] [--iface NAME] [--initiator-name IQN] [--chap-discovery] [--chap-session] [--no-mount] [--mount-option OPT] [--keep-on-failure]',
  cliOptions: attachOptionSpecs(),
  examples: [
    'iscsi-console attach --manifest pv.yaml --secret chap-secret.yaml --write',
    'iscsi-console attach --portal 10.0.0.1:3260 --iqn iqn.2024-01.lab.example:t1 --lun 1 --volume-name pv1 --dry-run',
    'iscsi-console attach --portal [fd00::1]:3260 --iqn iqn.2024-01.lab.example:t1 --lun 300 --volume-name pv6 --block --write',
  ],
  inputFromCli(positionals, o) {
    if (positionals.length > 0)
      throw new UserError(`attach takes no positional arguments (got ${positionals.join(' ')})`);
    const file = optString(o, 'manifest');
    let input: AttachInput;
    if (file) {
      const { attachFromManifest, readManifestFile } = manifestModule.get();
      input = attachFromManifest(readManifestFile(file), file, optString(o, 'volume-name')).input;
      if (o['no-mount'] === true) input.mount = false;
    } else {
      const portals = optList(o, 'portal');
      const iqn = optString(o, 'iqn');
      const lun = optString(o, 'lun');
      const volName = optString(o, 'volume-name');
      if (portals.length === 0 || !iqn || lun === undefined || !volName) {
        throw new UserError(
          'attach needs --manifest FILE, or --portal, --iqn, --lun and --volume-name',
          'see iscsi-console attach --help',
        );
      }
      const block = o.block === true;
      const initiatorName = optString(o, 'initiator-name');
      input = {
        volName,
        portals,
        iqn,
        lun: parseLun(lun),
        mode: block ? 'block' : 'filesystem',
        fsType: optString(o, 'fs-type') ?? DEFAULT_FS_TYPE,
        readOnly: o['read-only'] === true,
        initIface: optString(o, 'iface') ?? DEFAULT_IFACE,
        ...(initiatorName ? { initiatorName } : {}),
        chapDiscovery: o['chap-discovery'] === true,
        chapSession: o['chap-session'] === true,
        secretKeys: [],
        mount: !block && o['no-mount'] !== true,
        mountOptions: optList(o, 'mount-option'),
      };
    }
    input.secretKeys = Object.keys(secretsFromOptions(o));
    if (o['keep-on-failure'] === true) input.keepOnFailure = true;
    validateAttachInput(input);
    return input;
  },
  async loadCli() {
    await manifestModule.load();
  },
  secretsFromCli(_positionals, o) {
    return secretsFromOptions(o);
  },
  plan: planAttach,
};
