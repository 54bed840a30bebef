/**
 * The columns of `status`'s sessions table. Their headers ARE the `status --json` field names of a
 * Session (docs/status-schema.md), so what the table says is what jq finds: the column `targetIqn`
 * is `.sessions[].targetIqn` (there is no `.target`). `--columns a,b,c` picks any of them; a name
 * that is no field is exit 2 with the closest name.
 */
import { UserError } from '../../engine/errors.js';
import type { Session } from '../../engine/model.js';
import type { ParsedOptions } from '../args.js';
import { closest } from '../suggest.js';

type Field = keyof Session;

/**
 * Every field of a Session, in the schema's order: keyed by the model's own type, so a field added
 * to Session without a column here does not compile.
 */
const FIELDS: Record<Field, true> = {
  sid: true,
  name: true,
  targetIqn: true,
  portal: true,
  tpgt: true,
  iface: true,
  initiatorName: true,
  state: true,
  recoveryTmo: true,
  hostNumber: true,
  hostState: true,
  ipaddress: true,
  netdev: true,
  connections: true,
  params: true,
  devices: true,
  verdict: true,
  health: true,
  reasons: true,
  kubeletBusy: true,
  kubeletDisagreement: true,
  kubeletVolumes: true,
  pods: true,
  podRefs: true,
  key: true,
  claims: true,
  leftBy: true,
  downSeenAt: true,
  downObserved: true,
  pending: true,
};

/** The columns `status` shows without `--columns`. */
export const DEFAULT_COLUMNS: readonly Field[] = [
  'sid',
  'targetIqn',
  'portal',
  'iface',
  'state',
  'hostNumber',
  'devices',
  'verdict',
  'health',
];

/** The names `--columns` accepts (for help and errors); `pending` is the console's first look only. */
const COLUMN_NAMES: readonly string[] = Object.keys(FIELDS).filter((f) => f !== 'pending');

/** `--columns sid,targetIqn,verdict` → the fields; undefined when not given. */
export function columnsOf(o: ParsedOptions): Field[] | undefined {
  const v = o.columns;
  if (typeof v !== 'string') return undefined;
  const names = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UserError('--columns needs at least one field name', columnsHint());
  for (const n of names) {
    if (COLUMN_NAMES.includes(n)) continue;
    // Case and the table's old headers (`TARGET`) are the likely slips: match them case-insensitively.
    const lower = COLUMN_NAMES.find((c) => c.toLowerCase() === n.toLowerCase());
    const near =
      lower ??
      closest(n, COLUMN_NAMES) ??
      COLUMN_NAMES.find((c) => c.toLowerCase().startsWith(n.toLowerCase()));
    throw new UserError(
      `--columns: ${n} is not a field of a session in status --json`,
      near ? `did you mean ${near}? ${columnsHint()}` : columnsHint(),
    );
  }
  return names as Field[];
}

function columnsHint(): string {
  return `fields: ${COLUMN_NAMES.join(', ')}`;
}

/** A device as the table shows it: its name, or `lun<N>` without one; its state when not running. */
function deviceCell(d: Session['devices'][number]): string {
  return `${d.name ?? `lun${d.lun}`}${d.state === 'running' ? '' : `(${d.state ?? '?'})`}`;
}

/** One cell: a scalar as it is, a list comma-joined, an object as JSON; `-` when absent or empty. */
export function cellOf(s: Session, f: Field): string {
  if (f === 'devices') return s.devices.map(deviceCell).join(',') || '-';
  const v = s[f] as unknown;
  if (v === undefined || v === '') return '-';
  if (Array.isArray(v))
    return v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(',') || '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `--json` with `--columns`: each session reduced to the fields asked for (jq's `{a, b}`). */
export function pickFields(s: Session, fields: readonly Field[]): Partial<Session> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (s[f] !== undefined) out[f] = s[f];
  return out as Partial<Session>;
}
