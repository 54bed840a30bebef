import { LONGHORN, longhornVolume } from '../../snapshot/csi/paths.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';
import { driverOnNode, iscsiDeviceIndex, longhornSessions } from '../host-facts.js';
import {
  blacklistEntries,
  defaultsValue,
  devnodeMatches,
  MULTIPATH_CONF,
  type MultipathConf,
  readMultipathConf,
} from '../multipath-conf.js';
import { SOURCES } from '../sources.js';

/** The Longhorn KB's blacklist line for its devices (they are plain sdX disks). */
const LONGHORN_BLACKLIST = 'blacklist { devnode "^sd[a-z0-9]+" }';

/** Whether the blacklist keeps multipathd off these sdX devices (a devnode regex matching each). */
function blacklisted(conf: MultipathConf | undefined, devices: readonly string[]): boolean {
  if (!conf || devices.length === 0) return false;
  const devnodes = blacklistEntries(conf)
    .filter((e) => e.kind === 'devnode')
    .map((e) => e.value);
  return devices.every((d) => devnodes.some((p) => devnodeMatches(p, d)));
}

/**
 * multipathd takes every non-blacklisted disk it is allowed to (find_multipaths off/greedy): a map
 * over Longhorn's own iSCSI device makes Longhorn's mount fail with "already mounted or mount point
 * busy" (Longhorn KB), and a map over a local disk with one path holds a disk that is not
 * multipath's. Says which map holds what, and the blacklist line; never changes multipath.conf.
 */
export const multipathClaims = defineCheck(
  { id: 'multipath.claims', title: 'multipath maps over devices they must not hold' },
  (ctx) => {
    const snap = ctx.snapshot();
    const idx = iscsiDeviceIndex(snap);
    const longhorn: string[] = [];
    const local: string[] = [];
    for (const m of snap.multipath) {
      for (const d of m.slaves) {
        const s = idx.get(d);
        const lh = s ? longhornVolume(s.targetIqn) : undefined;
        if (lh) longhorn.push(`${m.name} (${m.alias}) holds ${d} of Longhorn volume ${lh}`);
      }
      if (m.slaves.length === 1 && !idx.has(m.slaves[0]!)) {
        local.push(`${m.name} (${m.alias}) over ${m.slaves[0]}, a disk with one path and no iSCSI session`);
      }
    }
    const conf = readMultipathConf(ctx.host);
    if (longhorn.length > 0) {
      return {
        source: SOURCES.longhornMultipath,
        status: 'fail',
        evidence: `${listSome(longhorn, 2)}: Longhorn cannot mount its volume while multipath holds the device`,
        hint: `add ${LONGHORN_BLACKLIST} (or a narrower devnode for Longhorn's disks) to ${MULTIPATH_CONF}, run multipathd reconfigure, then multipath -f <map> for each map listed (when not mounted)`,
      };
    }
    if (local.length > 0) {
      return {
        source: SOURCES.localDiskMultipath,
        status: 'warn',
        evidence: listSome(local, 2),
        hint: `if that disk is not multipathed on purpose, blacklist it in ${MULTIPATH_CONF} (blacklist { wwid <its wwid> }), multipathd reconfigure, multipath -f <map> when unused`,
      };
    }
    // Nothing claimed yet: would Longhorn's devices be taken when they come?
    const lhWhy = driverOnNode(snap, LONGHORN);
    const greedy = conf ? defaultsValue(conf, 'find_multipaths')?.value.toLowerCase() : undefined;
    const takesAll = greedy === 'no' || greedy === 'off' || greedy === '0' || greedy === 'greedy';
    const lhDevices = longhornSessions(snap)
      .flatMap((s) => s.devices.map((d) => d.name ?? ''))
      .filter(Boolean);
    const running = ctx.processes.pids('multipathd').length > 0;
    if (lhWhy && running && takesAll && !blacklisted(conf, lhDevices.length > 0 ? lhDevices : ['sdb'])) {
      return {
        source: SOURCES.longhornMultipath,
        status: 'warn',
        evidence: `Longhorn is on this node (${lhWhy}), multipathd runs with find_multipaths ${greedy} and no blacklist covers Longhorn's sdX devices: its next volume will be taken by multipath`,
        hint: `add ${LONGHORN_BLACKLIST} (narrower if other sdX disks need multipath) to ${MULTIPATH_CONF}; multipathd reconfigure`,
      };
    }
    return {
      source: SOURCES.longhornMultipath,
      status: 'pass',
      evidence: `${snap.multipath.length} map(s); none over a Longhorn device or a single-path local disk`,
    };
  },
);
