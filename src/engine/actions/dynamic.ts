/**
 * Steps whose exact commands depend on what earlier steps found: the iface transport, the SCSI host
 * a login created, the device udev linked, the dm map multipathd built, what blkid says is on the
 * device. Each mirrors one piece of kubelet's AttachDisk (docs/kubelet-iscsi.md#attachdisk) or mount-utils (docs/kubelet-iscsi.md#format-and-mount).
 */
import { ExternalCommandError, RefusedError, stepFailedError, TimeoutError, UserError } from '../errors.js';
import { kernelLunOf } from '../iscsi/lun.js';
import { parseTargetPortal } from '../iscsi/portal.js';
import { ifaceDeleteArgv, ifaceNewArgv, ifaceShowArgv, ifaceUpdateArgv } from '../iscsiadm/argv.js';
import { parseDiscovery } from '../iscsiadm/discovery.js';
import { ifaceCloneParams, transportName } from '../iscsiadm/record.js';
import type { Snapshot } from '../model.js';
import { probeLine } from '../probe/probe-line.js';
import { tidyDiscovered } from './attach-cleanup.js';
import { writeChapRecord } from './chap-record.js';
import { commandError } from './iscsiadm.js';
import { readLuns, removeScanned, scanTarget } from './list-luns-apply.js';
import { recordKey } from './lookup.js';
import { effectivePortal, mustRun, pollFor, type Runtime, record, withResolvedPortals } from './runtime.js';
import { hostScanPath, scanData } from './sysfs-writes.js';
import type { DynamicOf, DynamicStep, PlanStep } from './types.js';

const BY_PATH = '/dev/disk/by-path';
/** How long a scanned LUN may lack its SCSI device before it counts as absent on the target. */
const LUN_GRACE_MS = 1000;
const NO_LUN = '\0no-lun';

async function ifaceRecord(rt: Runtime, iface: string): Promise<string> {
  const known = rt.ifaceRecords.get(iface);
  if (known !== undefined) return known;
  const r = await mustRun(rt, ifaceShowArgv(iface));
  rt.ifaceRecords.set(iface, r.stdout);
  return r.stdout;
}

/** kubelet extractTransportname via `iscsiadm -m iface -I X -o show`. */
async function probeTransport(rt: Runtime, d: DynamicOf<'probe-transport'>): Promise<string> {
  const text = await ifaceRecord(rt, d.iface);
  rt.transport = transportName(text);
  return `transport ${rt.transport || '(none: iface file unparsable)'}`;
}

/** kubelet cloneIface: new, sorted updates, delete on failure (docs/kubelet-iscsi.md#attachdisk step 2). */
async function cloneIface(rt: Runtime, d: DynamicOf<'iface-clone'>): Promise<string> {
  const params = ifaceCloneParams(await ifaceRecord(rt, d.from));
  if (d.initiatorName) params.set('iface.initiatorname', d.initiatorName);
  await mustRun(rt, ifaceNewArgv(d.to), { okExitCodes: [15] });
  for (const key of [...params.keys()].sort()) {
    const r = await record(rt, ifaceUpdateArgv(d.to, key, params.get(key)!));
    if (!r.ok) {
      await record(rt, ifaceDeleteArgv(d.to));
      throw commandError(r);
    }
  }
  return `cloned ${d.from} as ${d.to} (${params.size} settings)`;
}

async function resolveHostname(rt: Runtime, d: DynamicOf<'resolve-hostname'>): Promise<string> {
  const r = await record(rt, ['getent', 'hosts', d.name], { timeoutMs: 10_000 });
  const addr = r.ok ? r.stdout.trim().split(/\s+/)[0] : undefined;
  if (!addr)
    throw new UserError(
      `cannot resolve portal hostname ${d.name}`,
      'use the portal IP address (kubelet cannot match hostnames either)',
    );
  rt.resolved.set(d.name, addr);
  rt.warnings.push(
    `portal ${d.name} resolved to ${addr}: prefer the address in the PV (kubelet matches sessions by address)`,
  );
  return `${d.name} → ${addr}`;
}

/** kubelet scanOneLun: `0 0 <lun>` to the SCSI host the portal→host map gives (docs/kubelet-iscsi.md#portal-host-map, docs/kubelet-iscsi.md#targeted-lun-scan). */
function scanLun(rt: Runtime, s: Snapshot, d: DynamicOf<'scan-lun'>): string {
  const portal = effectivePortal(rt, d.portal);
  const host = s.portalHostMap[d.iqn]?.[portal];
  if (host === undefined) {
    throw stepFailedError(
      `no session to ${d.iqn} at ${portal} after login`,
      'the login reported success but sysfs shows no session; check `iscsiadm -m session` and dmesg',
    );
  }
  const path = hostScanPath(host);
  rt.scannedHosts.set(portal, host);
  // The kernel's LUN number, not the target's (LUN 300 → 16684; src/engine/iscsi/lun.ts).
  const data = scanData(kernelLunOf(d.lun));
  rt.guard({ kind: 'scan', path });
  rt.host.writeText(path, data);
  rt.commands.push({ write: { path, data } });
  return `scanned host${host}`;
}

/** kubelet waitForPathToExist, but polled every pollMs instead of 1 s sleeps (docs/kubelet-iscsi.md#attachdisk). */
async function waitDevice(rt: Runtime, step: PlanStep, d: DynamicOf<'wait-device'>): Promise<string> {
  if (rt.transport === '')
    throw new UserError(
      'could not parse the iface file: no iface.transport_name',
      'check `iscsiadm -m iface -I <iface> -o show`',
    );
  let link = d.byPath;
  const p = parseTargetPortal(link.match(/ip-(.+?)-iscsi-/)?.[1] ?? '');
  if (p?.family === 'hostname' && rt.resolved.has(p.address)) {
    link = link.replace(`ip-${p.address}:${p.port}`, `ip-${rt.resolved.get(p.address)}:${p.port}`);
  }
  const name = link.split('/').pop()!;
  const tcp = rt.transport === undefined || rt.transport === 'tcp';
  const timeoutMs = step.wait?.timeoutMs ?? 30_000;
  const secs = Math.round(timeoutMs / 1000);
  // The scan write is synchronous (linux drivers/scsi/scsi_sysfs.c store_scan →
  // scsi_scan_host_selected): when the SCSI device for the LUN is still absent a moment after it,
  // the target has no such LUN and waiting the full 30 s for udev cannot help.
  const h = d.portal === undefined ? undefined : rt.scannedHosts.get(effectivePortal(rt, d.portal));
  // LUN ≥ 256 is addressed flat (SAM-4) and shows under another number in sysfs: not checked here.
  const hctl = h === undefined || d.lun === undefined || d.lun >= 256 ? undefined : `${h}:0:0:${d.lun}`;
  const started = performance.now();
  const lunMissing = () =>
    hctl !== undefined &&
    performance.now() - started >= LUN_GRACE_MS &&
    !rt.host.lstat(`/sys/class/scsi_device/${hctl}`);
  const found = await pollFor(rt, timeoutMs, () => {
    if (lunMissing()) return NO_LUN;
    if (tcp) return rt.host.stat(link) ? link : undefined;
    // Offload transports get a pci-<bdf>- prefix: kubelet globs pci-*-ip-... (docs/kubelet-iscsi.md#by-path-names).
    const hit = rt.host.readDir(BY_PATH).find((n) => n.startsWith('pci-') && n.endsWith(`-${name}`));
    return hit ? `${BY_PATH}/${hit}` : undefined;
  });
  if (
    found === NO_LUN ||
    (!found && hctl !== undefined && !rt.host.lstat(`/sys/class/scsi_device/${hctl}`))
  ) {
    throw new TimeoutError(
      `LUN ${d.lun} not found on ${d.iqn} at ${effectivePortal(rt, d.portal!)}: the scan made no SCSI device ${hctl}, so no ${link} (waited ${Math.round((performance.now() - started) / 100) / 10}s)`,
      'check the LUN number in the PV; `iscsiadm -m session -P 3` lists the LUNs the target offers',
    );
  }
  if (!found) {
    throw new TimeoutError(
      `timed out waiting for device at path ${link} after ${secs}s${d.lun === undefined ? '' : ` (LUN ${d.lun} of ${d.iqn})`}`,
      'the SCSI device is there but udev made no /dev/disk/by-path link: is systemd-udevd running?',
    );
  }
  rt.devices.push(found);
  return found;
}

/** kubelet FindMultipathDeviceForDevice: a dm-N whose slaves/ lists the sd device (docs/kubelet-iscsi.md#attachdisk step 9). */
function multipathOf(rt: Runtime, link: string): string | undefined {
  const target = rt.host.readLink(link);
  const sd = target?.split('/').pop();
  if (!sd) return undefined;
  for (const dm of rt.host.readDir('/sys/block').filter((n) => n.startsWith('dm-'))) {
    if (rt.host.lstat(`/sys/block/${dm}/slaves/${sd}`)) return `/dev/${dm}`;
  }
  return undefined;
}

async function findMultipath(rt: Runtime, d: DynamicOf<'find-multipath'>): Promise<string> {
  if (rt.devices.length === 0) {
    throw stepFailedError(
      `failed to get any path for iscsi disk, last err seen:\n${rt.lastErr ?? 'no portal was tried'}`,
      'every portal failed; see the error of each portal above',
    );
  }
  // kubelet waits 10 s whenever the volume lists several portals; with one path found there is
  // no map to wait for, so check once.
  const dm = await pollFor(rt, d.multiPortal && rt.devices.length > 1 ? d.timeoutMs : 0, () => {
    for (const dev of rt.devices) {
      const m = multipathOf(rt, dev);
      if (m) return m;
    }
    return undefined;
  });
  rt.devicePath = dm ?? rt.devices[0]!;
  return rt.devicePath;
}

/** mount-utils SafeFormatAndMount (docs/kubelet-iscsi.md#format-and-mount): never formats a device with a filesystem or partition table. */
async function formatAndMount(rt: Runtime, d: DynamicOf<'format-and-mount'>): Promise<string> {
  const dev = rt.devicePath;
  if (!dev) throw new UserError('no device to mount');
  const blkid = await record(rt, ['blkid', '-p', '-s', 'TYPE', '-s', 'PTTYPE', '-o', 'export', dev], {
    timeoutMs: 30_000,
  });
  let type = '';
  let pttype = '';
  if (blkid.exitCode === 0) {
    for (const line of blkid.stdout.split('\n')) {
      const [k, v] = line.split('=');
      if (k === 'TYPE') type = v ?? '';
      if (k === 'PTTYPE') pttype = v ?? '';
    }
  } else if (blkid.exitCode !== 2) {
    throw commandError(blkid);
  }
  let did = '';
  if (type === '' && pttype !== '') {
    throw new RefusedError(
      `${dev} has a partition table (${pttype}) and no filesystem: it is never formatted`,
      'kubelet would refuse too ("unknown data, probably partitions"); inspect it with lsblk',
    );
  }
  if (type === '') {
    if (d.readOnly)
      throw new UserError(
        `${dev} is unformatted and the volume is read-only`,
        'kubelet: UnformattedReadOnly',
      );
    const args =
      d.fsType === 'ext3' || d.fsType === 'ext4'
        ? ['-F', '-m0', dev]
        : d.fsType === 'xfs'
          ? ['-f', dev]
          : [dev];
    await mustRun(rt, [`mkfs.${d.fsType}`, ...args], { timeoutMs: 600_000 });
    did = `formatted ${d.fsType}, `;
  } else {
    if (type !== d.fsType)
      rt.warnings.push(
        `${dev} has ${type}, not ${d.fsType}: mounted as ${d.fsType} like kubelet (FilesystemMismatch)`,
      );
    if (!d.readOnly) {
      const fsck = await record(rt, ['fsck', '-a', dev], { timeoutMs: 600_000 });
      if (fsck.spawnError) rt.warnings.push('fsck is not installed: mounted without a check');
      else if (fsck.exitCode === 4) {
        throw new ExternalCommandError(
          `fsck -a ${dev} found uncorrected errors`,
          fsck.argv,
          4,
          'HasFilesystemErrors',
          fsck.stderr,
          false,
          `run fsck ${dev} by hand`,
        );
      } else if (fsck.exitCode !== 0 && fsck.exitCode !== 1) {
        throw commandError(fsck);
      }
    }
  }
  rt.host.mkdir(d.target, 0o750);
  await mustRun(rt, ['mount', '-t', d.fsType, '-o', d.mountOptions.join(','), dev, d.target], {
    timeoutMs: 60_000,
  });
  return `${did}mounted ${dev} on ${d.target}`;
}

/**
 * SendTargets discovery (the step's own argv, hostname portals resolved as apply resolves every
 * other step's): remembers every record the reply lists, so the tidy step and the rollback know
 * which records this attach's discovery wrote.
 */
async function discover(rt: Runtime, step: PlanStep, d: DynamicOf<'discover'>): Promise<string> {
  const r = await mustRun(rt, withResolvedPortals(rt, step.argv ?? []), {
    timeoutMs: step.timeoutMs ?? 30_000,
  });
  const found = parseDiscovery(r.stdout);
  for (const t of found)
    rt.discovered.push(recordKey({ targetIqn: t.iqn, portal: t.portal, iface: d.iface }));
  return `${found.length} target${found.length === 1 ? '' : 's'} listed: ${found.map((t) => `${t.iqn} @ ${t.portal}`).join(', ') || 'none'}`;
}

/** SendTargets that stores nothing (list-targets.ts): what it lists becomes the result's targets. */
async function listTargets(rt: Runtime, step: PlanStep): Promise<string> {
  const r = await record(rt, step.argv ?? [], { timeoutMs: step.timeoutMs ?? 30_000 });
  // 21 (ISCSI_ERR_NO_OBJS_FOUND) after a completed SendTargets: "No portals found", an empty list.
  if (!r.ok && r.exitCode !== 21) throw commandError(r);
  rt.targets = r.ok ? parseDiscovery(r.stdout) : [];
  return `${rt.targets.length} target${rt.targets.length === 1 ? '' : 's'} offered`;
}

/**
 * The reachability probe of the portals a plan logs in to (restore): every one must answer, else
 * the plan is refused here, before its first change. No probe in this context fails closed.
 */
async function probePortals(rt: Runtime, d: DynamicOf<'probe-portals'>): Promise<string> {
  if (!rt.prober)
    throw new RefusedError(
      `no reachability probe here: ${d.portals.join(', ')} not probed`,
      'restore probes the portals it logs in to: run it with --write (a --root tree is never probed)',
    );
  const got = await rt.prober.probe(d.portals);
  const silent = d.portals.filter((p) => !got.some((r) => r.portal === p && r.answers === true));
  const said = got.map((r) => `${r.portal}: ${probeLine(r)}`).join('; ');
  if (silent.length > 0)
    throw new RefusedError(
      `portal${silent.length === 1 ? '' : 's'} ${silent.join(', ')} did not answer the probe: nothing was changed (${said})`,
      'wait for the array, then run restore again',
    );
  return said;
}

/** The node as it was before this apply changed anything (tidy and rollback compare against it). */
export function noteBefore(rt: Runtime, s: Snapshot): void {
  rt.before ??= {
    records: new Set(s.nodeRecords.map(recordKey)),
    sessions: new Set(s.sessions.map((x) => x.key)),
    ifaces: new Set(s.ifaces.map((i) => i.name)),
  };
}

type Runner<K extends DynamicStep['kind']> = (
  rt: Runtime,
  s: Snapshot,
  step: PlanStep,
  d: DynamicOf<K>,
) => string | Promise<string>;

/** Who runs each kind of dynamic step (the type keeps the table complete). */
const RUNNERS: { [K in DynamicStep['kind']]: Runner<K> } = {
  discover: (rt, _s, step, d) => discover(rt, step, d),
  'tidy-discovered': (rt, s, _step, d) => tidyDiscovered(rt, s, d),
  'probe-transport': (rt, _s, _step, d) => probeTransport(rt, d),
  'iface-clone': (rt, _s, _step, d) => cloneIface(rt, d),
  'resolve-hostname': (rt, _s, _step, d) => resolveHostname(rt, d),
  'probe-portals': (rt, _s, _step, d) => probePortals(rt, d),
  'scan-lun': (rt, s, _step, d) => scanLun(rt, s, d),
  'record-secrets': (rt, _s, _step, d) =>
    writeChapRecord(rt, { ...d, portal: effectivePortal(rt, d.portal) }),
  'wait-device': (rt, _s, step, d) => waitDevice(rt, step, d),
  'find-multipath': (rt, _s, _step, d) => findMultipath(rt, d),
  'format-and-mount': (rt, _s, _step, d) => formatAndMount(rt, d),
  'list-targets': (rt, _s, step) => listTargets(rt, step),
  'scan-target': (rt, s, _step, d) => scanTarget(rt, s, d),
  'read-luns': (rt, s, _step, d) => readLuns(rt, s, d),
  'remove-scanned': (rt, s, _step, d) => removeScanned(rt, s, d),
};

/** Runs a dynamic step; returns its detail line or throws a typed error. */
export async function runDynamic(rt: Runtime, s: Snapshot, step: PlanStep, d: DynamicStep): Promise<string> {
  noteBefore(rt, s);
  // d.kind picks the runner of that very kind; TypeScript cannot follow the pairing through an index.
  return (RUNNERS[d.kind] as Runner<DynamicStep['kind']>)(rt, s, step, d);
}
