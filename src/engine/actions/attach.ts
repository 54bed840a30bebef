/**
 * attach: kubelet's AttachDisk step for step (docs/kubelet-iscsi.md#attachdisk), then optionally SafeFormatAndMount (docs/kubelet-iscsi.md#format-and-mount) onto
 * the kubelet global path with iscsi.json written first (docs/kubelet-iscsi.md#iscsijson), so kubelet can later detach it.
 * Beyond kubelet: IPv6 portals normalised, LUN ≥ 256 by-path names, hostname portals resolved (and
 * warned about), a timeout on every command, event-driven waits instead of 1 s sleeps.
 */

import { UserError } from '../errors.js';
import { kernelLunOf, kubeletLunProblem, parseLun } from '../iscsi/lun.js';
import { formatPortal, parseTargetPortal } from '../iscsi/portal.js';
import {
  discoverNewArgv,
  discoverydbArgv,
  ifaceDeleteArgv,
  ifaceNewArgv,
  ifaceShowArgv,
  loginArgv,
  logoutArgv,
  nodeArgv,
  nodeDeleteArgv,
  nodeStartupAllIfacesArgv,
  nodeUpdateArgv,
  recordOpArgv,
} from '../iscsiadm/argv.js';
import type { Snapshot } from '../model.js';
import { lunKey, sessionKey } from '../model.js';
import { validateAttachInput } from './attach-input.js';
import { attachOptionSpecs, DEFAULT_FS_TYPE, DEFAULT_IFACE } from './attach-params.js';
import { planDiscoveryRecords, rollbackNote } from './attach-records.js';
import type { AttachInput } from './attach-types.js';
import { DISCOVERY_CHAP_KEYS, SESSION_CHAP_KEYS } from './chap-keys.js';
import { chapSteps } from './chap-steps.js';
import { byPathName, kubeletGlobalPath } from './deps.js';
import { discoveryRecordKey } from './effects.js';
import { shellLine } from './format.js';
import { attachFromManifest, chapFromSecret, readManifestFile } from './manifest.js';
import { refuseEscapingPaths } from './path-guard.js';
import { addStep, addUnique, newPlan, pre, TIMEOUTS } from './plan-kit.js';
import { hostScanPath, scanData } from './sysfs-writes.js';
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

export function planAttach(input: AttachInput, s: Snapshot, ctx: Parameters<ActionDef['plan']>[2]): Plan {
  validateAttachInput(input);
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
  const plan = newPlan(
    'attach',
    'Attach volume',
    `${input.iqn} LUN ${input.lun} @ ${portals.join(', ')} → ${globalPath}`,
    ctx,
  );
  plan.risk = 'medium';
  plan.lockKeys = [input.iqn];
  addUnique(plan.blastRadius.kubeletVolumes, globalPath);
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
  const hostMap = s.portalHostMap[input.iqn] ?? {};
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
  addStep(plan, {
    id: 'probe-transport',
    // kubelet's AttachDisk step 1 (docs/kubelet-iscsi.md#attachdisk).
    why: `read iface ${input.initIface}'s transport, as kubelet does first (<empty> means tcp)`,
    argv: ifaceShowArgv(input.initIface),
    timeoutMs: TIMEOUTS.iscsiadm,
    preconditions: [],
    dynamic: { kind: 'probe-transport', iface: input.initIface },
    effect: { kind: 'none' },
  });
  if (input.initiatorName) {
    if (input.initIface === iface)
      throw new UserError('the iface clone would replace the iface it is cloned from');
    addStep(plan, {
      id: 'clone-iface',
      why: `clone iface ${input.initIface} as ${iface} with initiator name ${input.initiatorName}: then one "-o update -n <key> -v <value>" per set key of ${input.initIface} (sorted) and iface.initiatorname; exit 15 tolerated (kubernetes#74524); deleted again on failure`,
      argv: ifaceNewArgv(iface),
      okExitCodes: [15],
      timeoutMs: TIMEOUTS.iscsiadm,
      preconditions: [],
      dynamic: { kind: 'iface-clone', from: input.initIface, to: iface, initiatorName: input.initiatorName },
      effect: { kind: 'iface-new', iface },
    });
    plan.undo.push(shellLine(ifaceDeleteArgv(iface)));
  }
  for (const tp of portals) {
    const group = tp;
    const host = hostMap[tp];
    if (host !== undefined) {
      plan.warnings.push(`already logged in to ${tp} (host${host}): login skipped, as kubelet does`);
    } else {
      const disc = discoverydbArgv(tp, iface);
      const node = nodeArgv(tp, input.iqn, iface);
      const rk = sessionKey(input.iqn, tp, iface);
      const addChap = (scope: 'discovery' | 'node', base: string[], keys: readonly string[]) => {
        const target = { scope, iqn: input.iqn, portal: tp, iface };
        for (const st of chapSteps(base, keys, input.secretKeys, group, target)) addStep(plan, st);
      };
      // kubelet only logs a warning when these two record updates fail (docs/kubelet-iscsi.md#attachdisk).
      const warnOnlyUpdate = (id: string, why: string, argv: string[]) =>
        addStep(plan, {
          id: `${id}:${tp}`,
          why: `${why}; failure only warned`,
          argv,
          effect: { kind: 'record-update', record: rk },
          warnOnly: true,
          timeoutMs: TIMEOUTS.iscsiadm,
          preconditions: [],
          group,
        });
      addStep(plan, {
        id: `discoverydb-new:${tp}`,
        why: 'create the discovery record (result ignored, like kubelet)',
        argv: recordOpArgv(disc, 'new'),
        effect: { kind: 'record-new', record: discoveryRecordKey(tp, iface) },
        ignoreFailure: true,
        timeoutMs: TIMEOUTS.iscsiadm,
        preconditions: [],
        group,
      });
      if (input.chapDiscovery) addChap('discovery', disc, DISCOVERY_CHAP_KEYS);
      addStep(plan, {
        id: `discover:${tp}`,
        why: `SendTargets discovery at ${tp}: it writes a node record for EVERY target the portal lists (new records only: "-o new" leaves existing ones as they are); on failure the discovery record is deleted and the next portal tried`,
        argv: discoverNewArgv(tp, iface),
        timeoutMs: TIMEOUTS.iscsiadm,
        preconditions: [],
        group,
        dynamic: { kind: 'discover', portal: tp, iface },
        effect: { kind: 'discover', portal: tp, iface },
        onFailure: [
          {
            why: 'kubelet deletes the discovery record after a failed discovery',
            argv: recordOpArgv(disc, 'delete'),
            effect: { kind: 'record-delete', record: discoveryRecordKey(tp, iface) },
          },
        ],
      });
      warnOnlyUpdate(
        'scan-manual',
        'node.session.scan=manual so login does not scan every LUN of the target (kubernetes#90982)',
        nodeUpdateArgv(tp, input.iqn, iface, 'node.session.scan', 'manual'),
      );
      if (input.chapSession) addChap('node', node, SESSION_CHAP_KEYS);
      addStep(plan, {
        id: `login:${tp}`,
        why: `log in to ${input.iqn} at ${tp}; exit 15 (session exists) is success; on failure the node record is deleted`,
        argv: loginArgv(tp, input.iqn, iface),
        effect: { kind: 'login', session: rk },
        okExitCodes: [15],
        timeoutMs: TIMEOUTS.login,
        preconditions: [],
        group,
        onFailure: [
          {
            why: 'kubelet deletes the node record after a failed login',
            argv: nodeDeleteArgv(tp, input.iqn, iface),
            effect: { kind: 'record-delete', record: rk },
          },
        ],
      });
      warnOnlyUpdate(
        'startup-manual',
        'node.startup=manual (no -I: every iface record of this portal/target, kubernetes#57475)',
        nodeStartupAllIfacesArgv(tp, input.iqn, 'manual'),
      );
      plan.undo.push(
        `${shellLine(logoutArgv(tp, input.iqn, iface))}; ${shellLine(nodeDeleteArgv(tp, input.iqn, iface))}`,
      );
    }
    const kLun = kernelLunOf(input.lun);
    addStep(plan, {
      id: `scan-lun:${tp}`,
      why:
        kLun === input.lun
          ? `targeted scan "0 0 ${input.lun}" on the session's SCSI host (kubelet scanOneLun, kubernetes#59946)`
          : `targeted scan "0 0 ${kLun}" on the session's SCSI host: the kernel's number for target LUN ${input.lun} (kubelet scanOneLun writes ${input.lun}, which asks the target for another LUN)`,
      write: { path: hostScanPath(host), data: scanData(kLun) },
      preconditions: [],
      group,
      dynamic: { kind: 'scan-lun', iqn: input.iqn, portal: tp, lun: input.lun },
      // The SCSI host (so the scan attribute's path) is the one the login made.
      effect: { kind: 'at-apply', effects: ['scan'] },
    });
    const parts = parseTargetPortal(tp)!;
    const byPath = `/dev/disk/by-path/${byPathName(parts, input.iqn, input.lun)}`;
    const kubeletProblem = kubeletLunProblem(input.lun);
    if (kubeletProblem) plan.warnings.push(kubeletProblem);
    addStep(plan, {
      id: `wait-device:${tp}`,
      why: "wait for udev to create the by-path link (polled every 100 ms, not kubelet's 1 s sleeps)",
      wait: { what: `device for ${tp} LUN ${input.lun}`, path: byPath, timeoutMs: 30_000 },
      preconditions: [],
      group,
      dynamic: { kind: 'wait-device', byPath, iqn: input.iqn, portal: tp, lun: input.lun },
      effect: { kind: 'none' },
    });
    plan.before.push(lunKey(input.iqn, tp, iface, input.lun));
  }
  const discoveryPortals = portals.filter((tp) => hostMap[tp] === undefined);
  const recordsPlan = {
    iqn: input.iqn,
    iface,
    loginPortals: discoveryPortals,
    discoveryPortals,
    ...(input.initiatorName ? { clone: iface } : {}),
    globalPath,
    keep: input.keepOnFailure === true,
  };
  planDiscoveryRecords(plan, s, recordsPlan, input.discovered);
  plan.warnings.push(rollbackNote(recordsPlan));
  addStep(plan, {
    id: 'find-multipath',
    why:
      portals.length > 1
        ? 'wait up to 10 s for a dm map over the paths (/sys/block/dm-*/slaves, kubelet FindMultipathDeviceForDevice)'
        : 'use a dm map over the path if multipathd made one, else the path itself',
    wait: { what: 'multipath map over the paths', timeoutMs: portals.length > 1 ? 10_000 : 0 },
    effect: { kind: 'none' },
    preconditions: [],
    dynamic: {
      kind: 'find-multipath',
      multiPortal: portals.length > 1,
      timeoutMs: portals.length > 1 ? 10_000 : 0,
    },
    ...(input.initiatorName
      ? {
          onFailure: [
            {
              why: 'no path came up: delete the cloned iface (kubelet does this on 0 paths)',
              argv: ifaceDeleteArgv(iface),
              effect: { kind: 'iface-delete', iface },
            },
          ],
        }
      : {}),
  });
  const json = iscsiJson({ ...input, portals, iface });
  addStep(plan, {
    id: 'mkdir-global',
    why: 'create the kubelet global dir (MkdirAll 0750)',
    fs: { op: 'mkdir', path: globalPath },
    effect: { kind: 'mkdir', path: globalPath },
    preconditions: [],
    doneIf: [pre('path-present', `${globalPath} exists`, globalPath)],
  });
  addStep(plan, {
    id: 'write-iscsi-json',
    why: 'write iscsi.json exactly as kubelet persistISCSI does, before the mount, so kubelet can detach it later',
    fs: { op: 'write-json', path: `${globalPath}/iscsi.json`, data: json },
    effect: { kind: 'write-file', path: `${globalPath}/iscsi.json`, mode: 0o644 },
    preconditions: [],
    doneIf: [pre('mounted', `${globalPath} is already mounted (the file would be hidden)`, globalPath)],
  });
  // A mounted FS volume hides its iscsi.json under the mount (docs/kubelet-iscsi.md#iscsijson): verified only when not mounting.
  if (!(input.mode === 'filesystem' && input.mount)) {
    plan.expect!.push(pre('path-present', 'iscsi.json is written', `${globalPath}/iscsi.json`));
  }
  if (input.mode === 'filesystem' && input.mount) {
    const opts = [...(input.readOnly ? ['ro'] : []), ...input.mountOptions, 'defaults'].join(',');
    addStep(plan, {
      id: 'format-and-mount',
      why: `SafeFormatAndMount: blkid -p; format with mkfs.${input.fsType} ONLY if blkid finds no filesystem and no partition table; fsck -a before a rw mount; then mount`,
      argv: ['mount', '-t', input.fsType, '-o', opts, '<device>', globalPath],
      effect: { kind: 'mount', path: globalPath },
      timeoutMs: TIMEOUTS.umount,
      preconditions: [pre('not-mounted', `${globalPath} is not mounted`, globalPath)],
      dynamic: {
        kind: 'format-and-mount',
        target: globalPath,
        fsType: input.fsType,
        readOnly: input.readOnly,
        mountOptions: [...(input.readOnly ? ['ro'] : []), ...input.mountOptions, 'defaults'],
      },
    });
    plan.expect!.push(pre('mounted', `${globalPath} is mounted`, globalPath));
    plan.undo.unshift(`iscsi-console unmount ${globalPath}`);
  }
  addUnique(plan.blastRadius.mounts, ...(input.mode === 'filesystem' && input.mount ? [globalPath] : []));
  if (input.chapDiscovery || input.chapSession) {
    const needed = [
      ...(input.chapDiscovery ? DISCOVERY_CHAP_KEYS.slice(0, 2) : []),
      ...(input.chapSession ? SESSION_CHAP_KEYS.slice(0, 2) : []),
    ];
    const missing = needed.filter((k) => !input.secretKeys.includes(k));
    if (missing.length > 0) plan.warnings.push(`CHAP enabled but the Secret has no ${missing.join(', ')}`);
  }
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

/** Reads a manifest file named on the command line (an admin's local file, not a host path). */
function secretsFromOptions(o: Record<string, unknown>, secretName?: string): Record<string, string> {
  const file = optString(o, 'secret');
  return file ? chapFromSecret(readManifestFile(file), file, secretName) : {};
}

export const attachAction: ActionDef<AttachInput> = {
  id: 'attach',
  title: 'Attach volume',
  key: 'a',
  scopes: ['node'],
  destructive: false,
  summary:
    "Attach an iSCSI volume exactly as kubelet's AttachDisk does (login, scan, format-and-mount, iscsi.json)",
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
  secretsFromCli(_positionals, o) {
    return secretsFromOptions(o);
  },
  plan: planAttach,
};
