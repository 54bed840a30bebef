import { plural } from '../../text/plural.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';
import { iscsiMaps } from '../host-facts.js';
import { ISCSID_CONF, readIscsidConf } from '../iscsid-conf.js';
import { readDoctorNodeRecords } from '../node-db.js';
import { SOURCES } from '../sources.js';

const KEY = 'node.session.timeo.replacement_timeout';
/** open-iscsi's default when iscsid.conf does not set it (iscsid.conf: "the default is 120 seconds"). */
export const DEFAULT_REPLACEMENT_TIMEOUT = 120;

/**
 * A timeout as a number. scsi_transport_iscsi accepts `off` in a session's recovery_tmo (the
 * recovery timer disabled: I/O waits for the session forever) and reads it back as `off`, not a
 * number (seen on Debian's 6.1 kernel in the e2e guest, scenario 10): the same hazard as a negative
 * replacement_timeout, so it counts as -1 instead of being ignored as NaN.
 */
export function timeoutValue(v: string): number {
  return v.trim().toLowerCase() === 'off' ? -1 : Number(v);
}

/** value → how many times it was seen, as `120 (3), 5 (1)`. */
function tally(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${v} (${n})`).join(', ');
}

/**
 * replacement_timeout: how long I/O waits for a failed session to come back before erroring. kubelet
 * never sets it (docs/kubelet-iscsi.md#defaults-not-set; PRs #69097/#70080 closed in favour of iscsid.conf). 0 fails I/O at once; a
 * negative value queues I/O until re-login — unmounts and kubelet teardown then hang. Editing
 * iscsid.conf only affects records created afterwards, so records and sessions may still differ.
 */
export const replacementTimeouts = defineCheck(
  { id: 'timeouts.replacement', title: 'replacement_timeout settings' },
  (ctx) => {
    const conf = readIscsidConf(ctx.host)?.get(KEY);
    const confValue = conf ?? String(DEFAULT_REPLACEMENT_TIMEOUT);
    const records = readDoctorNodeRecords(ctx.host).filter((r) => r.replacementTimeout !== undefined);
    const sessions = ctx.host
      .readDir('/sys/class/iscsi_session')
      .map((s) => ctx.host.readText(`/sys/class/iscsi_session/${s}/recovery_tmo`)?.trim())
      .filter((v): v is string => v !== undefined && v !== '');
    const evidence = [
      `iscsid.conf ${conf ?? `unset (default ${DEFAULT_REPLACEMENT_TIMEOUT})`}`,
      `records ${records.length ? tally(records.map((r) => r.replacementTimeout!)) : 'none'}`,
      `sessions recovery_tmo ${sessions.length ? tally(sessions) : 'none'}`,
    ].join('; ');
    const all = [confValue, ...records.map((r) => r.replacementTimeout!), ...sessions].map(timeoutValue);
    if (all.some((n) => Number.isFinite(n) && n < 0)) {
      return {
        status: 'warn',
        evidence,
        hint: `a negative ${KEY} (recovery_tmo off) queues I/O forever while a target is down (unmount and kubelet hang); use e.g. 120`,
      };
    }
    if (all.some((n) => n === 0)) {
      return { status: 'warn', evidence, hint: `${KEY} = 0 fails I/O at the first connection error` };
    }
    const differing = records.filter((r) => r.replacementTimeout !== confValue);
    if (differing.length > 0) {
      return {
        status: 'warn',
        evidence,
        hint: `${plural(differing.length, 'record')} ${differing.length === 1 ? 'differs' : 'differ'} from iscsid.conf (${listSome(
          differing.map((r) => r.targetIqn),
          2,
        )}): iscsiadm -m node -T <iqn> -o update -n ${KEY} -v ${confValue}`,
      };
    }
    return { status: 'pass', evidence };
  },
);

/** open-iscsi README section 8.1.4: with dm-multipath, "a shorter value like 5 to 15 seconds". */
const MULTIPATH_REPLACEMENT_MAX = 15;

/**
 * replacement_timeout against the path layout, per live session (its recovery_tmo is the value in
 * force): a path in a multipath map should fail over within seconds and leave queueing to
 * multipath (no_path_retry); a session with no map has nothing above it to queue I/O, so a value
 * meant for multipath turns a short network blip into I/O errors (and ext4's errors=remount-ro).
 */
export const replacementTimeoutLayout = defineCheck(
  {
    id: 'timeouts.replacement-layout',
    title: 'replacement_timeout for the path layout',
    source: SOURCES.openIscsiMultipath,
  },
  (ctx) => {
    const snap = ctx.snapshot();
    const inMap = new Set(iscsiMaps(snap).flatMap((m) => m.slaves));
    const judged = snap.sessions.filter((s) => s.recoveryTmo !== undefined && s.devices.length > 0);
    if (judged.length === 0) {
      return {
        status: 'skip',
        evidence: 'no session with a device: nothing to judge against its paths',
      };
    }
    const multi = judged.filter((s) => s.devices.some((d) => d.name && inMap.has(d.name)));
    const single = judged.filter((s) => !multi.includes(s));
    const slowFailover = multi.filter((s) => s.recoveryTmo! > MULTIPATH_REPLACEMENT_MAX);
    const tooShort = single.filter((s) => s.recoveryTmo! >= 0 && s.recoveryTmo! <= MULTIPATH_REPLACEMENT_MAX);
    const evidence = `${plural(multi.length, 'session')} under multipath, ${single.length} without`;
    const line = (s: (typeof judged)[number]) =>
      `session ${s.sid} (${s.targetIqn} ${s.portal}) ${s.recoveryTmo} s`;
    if (slowFailover.length > 0) {
      return {
        status: 'warn',
        evidence: `${evidence}; multipath waits for a dead path: ${listSome(slowFailover.map(line), 2)}`,
        hint: `set ${KEY} = ${MULTIPATH_REPLACEMENT_MAX} (5–15) in ${ISCSID_CONF} and in the records (iscsiadm -m node -T <iqn> -p <portal> -o update -n ${KEY} -v ${MULTIPATH_REPLACEMENT_MAX}); a session takes it at its next login. Queueing belongs to multipath.conf no_path_retry`,
      };
    }
    if (tooShort.length > 0) {
      return {
        status: 'warn',
        evidence: `${evidence}; single-path sessions fail I/O after a short blip: ${listSome(tooShort.map(line), 2)}`,
        hint: `nothing above these sessions queues I/O: keep ${KEY} at open-iscsi's default ${DEFAULT_REPLACEMENT_TIMEOUT} (or more) for them (iscsiadm -m node -T <iqn> -p <portal> -o update -n ${KEY} -v ${DEFAULT_REPLACEMENT_TIMEOUT}; next login)`,
      };
    }
    return { status: 'pass', evidence };
  },
);
