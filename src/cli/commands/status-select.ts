/**
 * `status`'s filters: which sessions an admin asked to see (`--problems`, `--sid`, `--target`,
 * `--verdict`, `--filter` in the console's `/` language), and the snapshot narrowed to them and to
 * what belongs to them (their kubelet volumes and pod volumes, CSI volumes, multipath maps), for the
 * text and for `--json` alike. Bad input is a UserError (exit 2) that names what is accepted; it
 * never prints an empty, plausible-looking status.
 */
import { decimalOf } from '../../engine/decimal.js';
import { UserError } from '../../engine/errors.js';
import type { Session, Snapshot, Verdict } from '../../engine/model.js';
import { nodeProblems } from '../../engine/snapshot/problems.js';
import { SESSION_FILTER_FIELDS, sessionFilterFields } from '../../engine/snapshot/session-fields.js';
import { compileFilter, filterError } from '../../engine/text/filter.js';
import type { ParsedOptions } from '../args.js';
import { suggestionHint } from '../suggest.js';

/** Every verdict (docs/status-schema.md "Verdicts"); the compiler rejects a missing one. */
const VERDICTS: Record<Verdict, true> = {
  'in-use': true,
  foreign: true,
  orphaned: true,
  outage: true,
  stale: true,
  claimed: true,
};

/** What the admin selected, as `status` says it back ("--problems, --verdict stale"). */
interface Selection {
  keep: (s: Session) => boolean;
  /** The filters as given, for the "n of m sessions" line and `--json`'s `selection`. */
  said: string[];
}

/** The values of an option that may be repeated and comma-separated (`--sid 3,4 --sid 7`). */
function listOf(o: ParsedOptions, name: string): string[] {
  const v = o[name];
  const raw = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
  return raw.flatMap((x) => x.split(',')).map((x) => x.trim());
}

function sids(o: ParsedOptions): Set<number> | undefined {
  const words = listOf(o, 'sid');
  if (words.length === 0) return undefined;
  const out = new Set<number>();
  for (const w of words) {
    const n = decimalOf(w);
    if (n === undefined)
      throw new UserError(`--sid takes session ids (got "${w}")`, 'e.g. --sid 3 or --sid 3,7');
    out.add(n);
  }
  return out;
}

function verdicts(o: ParsedOptions): Set<string> | undefined {
  const words = listOf(o, 'verdict');
  if (words.length === 0) return undefined;
  for (const w of words)
    if (!(w in VERDICTS))
      throw new UserError(
        `--verdict ${w} is not a verdict; verdicts: ${Object.keys(VERDICTS).join(', ')}`,
        suggestionHint(w, Object.keys(VERDICTS), '--verdict '),
      );
  return new Set(words);
}

/** The filters of `status`, from its parsed options; undefined when none was given. */
export function statusSelection(o: ParsedOptions, snap: Snapshot): Selection | undefined {
  const tests: ((s: Session) => boolean)[] = [];
  const said: string[] = [];
  if (o.problems === true) {
    const problems = nodeProblems(snap);
    tests.push((s) => (problems.sessions.get(s.key)?.severity ?? 'ok') !== 'ok');
    said.push('--problems');
  }
  const ids = sids(o);
  if (ids) {
    tests.push((s) => ids.has(s.sid));
    said.push(`--sid ${[...ids].join(',')}`);
  }
  const targets = listOf(o, 'target').filter(Boolean);
  if (targets.length > 0) {
    const lower = targets.map((t) => t.toLowerCase());
    // An exact IQN, or any part of one (`kafka`, `:old-logs`): IQNs are compared case-insensitively.
    tests.push((s) => lower.some((t) => s.targetIqn.toLowerCase().includes(t)));
    said.push(`--target ${targets.join(',')}`);
  }
  const vs = verdicts(o);
  if (vs) {
    tests.push((s) => vs.has(s.verdict));
    said.push(`--verdict ${[...vs].join(',')}`);
  }
  if (typeof o.filter === 'string') {
    const error = filterError(o.filter, SESSION_FILTER_FIELDS);
    if (error)
      throw new UserError(`--filter: ${error}`, 'e.g. --filter "health=failed|degraded portal=10.0.0.11"');
    const problems = nodeProblems(snap);
    const pred = compileFilter(o.filter);
    tests.push((s) => {
      const p = problems.sessions.get(s.key);
      return p !== undefined && pred({ fields: sessionFilterFields(s, p) });
    });
    said.push(`--filter ${JSON.stringify(o.filter)}`);
  }
  if (tests.length === 0) return undefined;
  return { keep: (s) => tests.every((t) => t(s)), said };
}

/**
 * The snapshot with only the selected sessions and what belongs to them: kubelet volumes and CSI
 * volumes that refer to one of them (and the pod volumes of those), multipath maps over one of
 * their devices. Node-wide facts (node, outages, stuck portals, filesystem errors, expected paths,
 * records, mounts, problems) stay whole: they are the context an admin reads the rows in.
 */
export function narrowSnapshot(snap: Snapshot, sel: Selection): Snapshot {
  const sessions = snap.sessions.filter(sel.keep);
  const sidSet = new Set(sessions.map((s) => s.sid));
  const devices = new Set(sessions.flatMap((s) => s.devices.flatMap((d) => (d.name ? [d.name] : []))));
  const volumes = snap.kubelet.volumes.filter((v) => v.sessions.some((x) => sidSet.has(x)));
  const globals = new Set(volumes.map((v) => v.path));
  return {
    ...snap,
    sessions,
    kubelet: {
      ...snap.kubelet,
      volumes,
      podVolumes: snap.kubelet.podVolumes.filter(
        (p) => p.globalPath !== undefined && globals.has(p.globalPath),
      ),
    },
    multipath: snap.multipath.filter((m) => m.slaves.some((x) => devices.has(x))),
    ...(snap.csi
      ? {
          csi: {
            ...snap.csi,
            volumes: snap.csi.volumes.filter((v) => v.sessions.some((x) => sidSet.has(x))),
          },
        }
      : {}),
  };
}
