/**
 * Apply-time side of the LUN listing (plan side: list-luns.ts): scan the temporary session for
 * every LUN, read what the scan found, delete those devices again. Each step acts only on the
 * session this apply made (absent from Runtime.before), never on one the node had.
 */
import { RefusedError } from '../errors.js';
import type { Session, Snapshot } from '../model.js';
import { lunKey, sessionKey } from '../model.js';
import { readScsiDevice } from '../snapshot/scsi-devices.js';
import { listedLun, lunUse } from './list-luns.js';
import { deviceUses } from './lookup.js';
import { pollFor, type Runtime } from './runtime.js';
import { deviceAttrPath, hostScanPath, scanData } from './sysfs-writes.js';
import type { DynamicOf, ListedLun } from './types.js';

const HCTL = /^(\d+):(\d+):(\d+):(\d+)$/;

/** The temporary session, refused when it is not one this apply created. */
function ownSession(rt: Runtime, s: Snapshot, d: { iqn: string; portal: string; iface: string }): Session {
  const key = sessionKey(d.iqn, d.portal, d.iface);
  const x = s.sessions.find((x) => x.key === key);
  if (!x || x.hostNumber === undefined)
    throw new RefusedError(`no session ${key} with a SCSI host after the login`, 'check dmesg and iscsid');
  if (!rt.created.sessions.has(key))
    throw new RefusedError(
      `session ${x.sid} was not made by this listing's login: it is not scanned or changed`,
      'list the LUNs of an existing session in its detail',
    );
  return x;
}

/** `0 0 -` to the session's SCSI host: REPORT LUNS and a device per LUN, on this session only. */
export function scanTarget(rt: Runtime, s: Snapshot, d: DynamicOf<'scan-target'>): string {
  const x = ownSession(rt, s, d);
  const path = hostScanPath(x.hostNumber);
  const data = scanData('-');
  rt.scannedHosts.set(d.portal, x.hostNumber!);
  rt.guard({ kind: 'scan', path });
  rt.host.writeText(path, data);
  rt.commands.push({ write: { path, data } });
  return `scanned host${x.hostNumber}`;
}

/** Every SCSI device of SCSI host `h` (channel 0, id 0: one iSCSI session per host). */
function hostDevices(rt: Runtime, h: number, d: { iqn: string; portal: string; iface: string }) {
  return rt.host
    .readDir('/sys/class/scsi_device')
    .filter((n) => HCTL.exec(n)?.[1] === String(h))
    .flatMap((hctl) => {
      const dev = readScsiDevice(
        rt.host,
        `/sys/class/scsi_device/${hctl}/device`,
        hctl,
        lunKey(d.iqn, d.portal, d.iface, Number(hctl.split(':')[3])),
        { problems: [], extras: new Map() },
      );
      return dev ? [dev] : [];
    });
}

/**
 * Waits until every scanned disk (type 0) has its sd node and a size (sd probes asynchronously
 * after the scan), then lists the LUNs; a disk still without one at the deadline is listed as it is.
 */
export async function readLuns(rt: Runtime, s: Snapshot, d: DynamicOf<'read-luns'>): Promise<string> {
  const h = rt.scannedHosts.get(d.portal);
  if (h === undefined) throw new RefusedError('the listing scanned no SCSI host');
  const settled = () => {
    const devs = hostDevices(rt, h, d);
    return devs.every((x) => x.type !== 0 || (x.name !== undefined && x.sizeBytes !== undefined))
      ? devs
      : undefined;
  };
  const devs = (await pollFor(rt, d.timeoutMs, settled)) ?? hostDevices(rt, h, d);
  const luns: ListedLun[] = devs
    .map((x) => listedLun(x, lunUse(s, d.iqn, x.lun, sessionKey(d.iqn, d.portal, d.iface))))
    .sort((a, b) => a.lun - b.lun);
  rt.luns = luns;
  return luns.length === 0
    ? 'the target reported no LUN'
    : `${luns.length} LUN${luns.length === 1 ? '' : 's'}: ${luns.map((l) => `${l.lun}${l.type === 0 ? '' : ` (type ${l.type ?? '?'})`}`).join(', ')}`;
}

/** `1` to device/delete for every device of the temporary session (none is in use: refused if one is). */
export function removeScanned(rt: Runtime, s: Snapshot, d: DynamicOf<'remove-scanned'>): string {
  const x = ownSession(rt, s, d);
  // Every use counts here, a dm map's mounts too: the teardown's one list of uses (lookup.ts).
  const used = x.devices.filter((dev) => deviceUses(s, dev, { withMapMounts: true }).length > 0);
  if (used.length > 0) {
    // Something took a device meanwhile: leave the session and its devices to the admin (the
    // rollback logs out only sessions this apply made, so it is marked as not ours).
    rt.created.sessions.delete(x.key);
    throw new RefusedError(
      `${used.map((dev) => dev.name ?? dev.hctl).join(', ')} of the temporary session ${x.sid} is in use now: the session is left as it is`,
      'find what uses it (lsblk, findmnt) before logging the session out',
    );
  }
  const done: string[] = [];
  for (const dev of [...x.devices].sort((a, b) => b.lun - a.lun)) {
    const path = deviceAttrPath({ hctl: dev.hctl }, 'delete');
    rt.guard({ kind: 'remove-device', device: dev.key, path });
    rt.host.writeText(path, '1');
    rt.commands.push({ write: { path, data: '1' } });
    done.push(dev.name ?? dev.hctl);
  }
  return done.length > 0 ? `deleted ${done.join(', ')}` : 'the scan added no device';
}
