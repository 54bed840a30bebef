import { TRIDENT } from '../../snapshot/csi/paths.js';
import { addMultipathTopology } from '../../snapshot/multipath-topology.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';
import { driverOnNode, iscsiMaps } from '../host-facts.js';
import { readIscsidConf } from '../iscsid-conf.js';
import {
  defaultsValue,
  deviceValues,
  MULTIPATH_CONF,
  type MultipathConf,
  readMultipathConf,
} from '../multipath-conf.js';
import { SOURCES } from '../sources.js';
import { DEFAULT_REPLACEMENT_TIMEOUT, timeoutValue } from './timeouts.js';

const RELOAD = 'then: multipathd reconfigure';

/** The problems the parser found, as one evidence suffix (a broken file is read differently by multipathd). */
function parseNote(conf: MultipathConf | undefined): string {
  return conf && conf.problems.length > 0 ? `; syntax: ${listSome(conf.problems, 2)}` : '';
}

/**
 * Trident refuses to attach while find_multipaths is yes or smart, and its node preparation
 * requires `no`. Its requirement alone, so it applies only when Trident is on the node.
 */
export const tridentFindMultipaths = defineCheck(
  {
    id: 'multipath-conf.find-multipaths',
    title: 'multipath.conf find_multipaths (Trident)',
    source: SOURCES.tridentFindMultipaths,
  },
  (ctx) => {
    const conf = readMultipathConf(ctx.host);
    const attr = conf ? defaultsValue(conf, 'find_multipaths') : undefined;
    const shown = attr ? `find_multipaths ${attr.value} (${attr.at})` : 'find_multipaths not set';
    const why = driverOnNode(ctx.snapshot(), TRIDENT);
    if (!why) return { status: 'skip', evidence: `Trident is not on this node (rule not applied); ${shown}` };
    const v = attr?.value.toLowerCase();
    const fix = `set "find_multipaths no" in the defaults section of ${MULTIPATH_CONF}; ${RELOAD}`;
    if (v === 'yes' || v === 'on' || v === '1' || v === 'smart') {
      return {
        status: 'fail',
        evidence: `${shown}: Trident (${why}) refuses to attach volumes with this value${parseNote(conf)}`,
        hint: fix,
      };
    }
    if (v === 'no' || v === 'off' || v === '0') {
      return { status: 'pass', evidence: `${shown}; Trident ${why}${parseNote(conf)}` };
    }
    return {
      status: 'warn',
      evidence: `${shown}: multipath-tools' built-in default (strict upstream; \`multipathd show config\` shows it) is not the "no" Trident's node preparation requires (${why})${parseNote(conf)}`,
      hint: fix,
    };
  },
);

/**
 * `queue`, `fail`, a retry count, or queue_if_no_path from a `features` line. `overrides` beats
 * every device entry, built-in or not, and `defaults` (multipath.conf.5, overrides section).
 */
function queueing(conf: MultipathConf | undefined): { value: string; at: string } | undefined {
  const over = conf
    ? deviceValues(conf, 'no_path_retry')
        .filter((d) => d.where === 'overrides')
        .pop()
    : undefined;
  if (over) return { value: over.attr.value, at: `${over.attr.at} (overrides)` };
  const npr = conf ? defaultsValue(conf, 'no_path_retry') : undefined;
  if (npr) return { value: npr.value, at: npr.at };
  const features = conf ? defaultsValue(conf, 'features') : undefined;
  if (features?.value.includes('queue_if_no_path'))
    return { value: 'queue', at: `${features.at} (features)` };
  return undefined;
}

/**
 * What happens to I/O when every path of a map is down: `queue` waits forever (unmount, kubelet's
 * teardown and `multipath -f` hang: multipath.conf.5 KNOWN ISSUES), `fail` (the default) errors
 * it once the iSCSI layer gives up (replacement_timeout), which turns filesystems read-only on a
 * short outage; a count queues for count × polling_interval seconds, then fails.
 */
export const noPathRetry = defineCheck(
  { id: 'multipath-conf.no-path-retry', title: 'multipath.conf no_path_retry', source: SOURCES.noPathRetry },
  async (ctx) => {
    const snap = ctx.snapshot();
    // The maps' live features say what multipathd applied (built-in per-array entries included).
    if (snap.multipath.some((m) => !m.topology))
      await addMultipathTopology(ctx.host, snap, ctx.host.kind !== 'root' || ctx.exec !== 'direct');
    const maps = iscsiMaps(snap);
    const conf = readMultipathConf(ctx.host);
    if (maps.length === 0 && !conf) {
      return { status: 'skip', evidence: `no multipath map over iSCSI and no ${MULTIPATH_CONF}` };
    }
    const q = queueing(conf);
    const overrides = conf
      ? deviceValues(conf, 'no_path_retry').map((d) => `${d.where}: ${d.attr.value}`)
      : [];
    const tmo =
      readIscsidConf(ctx.host)?.get('node.session.timeo.replacement_timeout') ??
      String(DEFAULT_REPLACEMENT_TIMEOUT);
    const poll = Number((conf && defaultsValue(conf, 'polling_interval')?.value) ?? 5);
    const known = maps.filter((m) => m.topology?.features !== undefined);
    const live = known.filter((m) => m.topology!.features!.includes('queue_if_no_path')).map((m) => m.alias);
    const failing = known
      .filter((m) => !m.topology!.features!.includes('queue_if_no_path'))
      .map((m) => m.alias);
    const parts = [
      q
        ? `no_path_retry ${q.value} (${q.at})`
        : "no_path_retry not set (fail, unless multipath-tools' built-in entry for the array sets it)",
      ...(overrides.length ? [`device overrides ${listSome(overrides, 2)}`] : []),
      `${maps.length} map(s) over iSCSI${live.length ? `, queue_if_no_path now: ${listSome(live, 2)}` : ''}${failing.length ? `, failing I/O with no path: ${listSome(failing, 2)}` : ''}`,
      `replacement_timeout ${tmo}`,
    ];
    const evidence = parts.join('; ') + parseNote(conf);
    const retries = Math.round(120 / (poll > 0 ? poll : 5));
    const fix = `set "no_path_retry ${retries}" (queues ~${retries * (poll > 0 ? poll : 5)} s at polling_interval ${poll}) in the defaults section of ${MULTIPATH_CONF}; ${RELOAD}`;
    if (q?.value === 'queue') {
      return {
        status: 'warn',
        evidence: `${evidence}: I/O to a map with no path left waits forever — unmount, kubelet's teardown and multipath -f hang`,
        hint: fix,
      };
    }
    const n = q ? Number(q.value) : Number.NaN;
    // Unset: what the live maps do decides (an array's built-in entry may queue); fail: every map.
    const failsFast = q?.value === 'fail' || (!q && (failing.length > 0 || known.length < maps.length));
    if (maps.length > 0 && !(n > 0) && failsFast) {
      const t = timeoutValue(tmo);
      return {
        status: 'warn',
        evidence: `${evidence}: with every path down, I/O fails ${t >= 0 ? `after ${t} s` : 'once the session gives up'} and filesystems on the maps go read-only`,
        hint: `${fix} — open-iscsi advises queueing in multipath, not in the iSCSI layer`,
      };
    }
    return { status: 'pass', evidence };
  },
);

/** dev_loss_tmo is applied to FC and SAS paths only: on iSCSI paths it changes nothing. */
export const devLossTmo = defineCheck(
  { id: 'multipath-conf.dev-loss-tmo', title: 'multipath.conf dev_loss_tmo', source: SOURCES.devLossTmo },
  (ctx) => {
    const conf = readMultipathConf(ctx.host);
    const set = conf
      ? [
          ...(defaultsValue(conf, 'dev_loss_tmo')
            ? [`defaults: ${defaultsValue(conf, 'dev_loss_tmo')!.value}`]
            : []),
          ...deviceValues(conf, 'dev_loss_tmo').map((d) => `${d.where}: ${d.attr.value}`),
        ]
      : [];
    if (set.length === 0) {
      return {
        status: 'pass',
        evidence: `dev_loss_tmo not set${conf ? '' : ` (no ${MULTIPATH_CONF})`}`,
      };
    }
    const npr = conf ? queueing(conf)?.value : undefined;
    const fio = conf ? defaultsValue(conf, 'fast_io_fail_tmo')?.value : undefined;
    if (npr === 'queue' && (fio === undefined || fio === 'off')) {
      return {
        status: 'warn',
        evidence: `dev_loss_tmo ${listSome(set, 2)} with no_path_retry queue and no fast_io_fail_tmo: multipath.conf.5 says no_path_retry must not be queue then (FC/SAS paths)`,
        hint: `set fast_io_fail_tmo 5 or a numeric no_path_retry in ${MULTIPATH_CONF}; ${RELOAD}`,
      };
    }
    return {
      status: 'pass',
      evidence: `dev_loss_tmo ${listSome(set, 2)}: applies to FC and SAS paths only; iSCSI paths follow replacement_timeout`,
    };
  },
);
