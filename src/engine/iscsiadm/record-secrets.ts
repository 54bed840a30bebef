/**
 * CHAP credentials into open-iscsi's records without a command line: `iscsiadm -o update -n
 * node.session.auth.password -v SECRET` would put the secret in /proc/<pid>/cmdline (readable by
 * every local user) and, with --exec nsenter, in nsenter's argv too. iscsiadm has no stdin or
 * environment path for values (usr/iscsiadm.c), so the console edits the record file itself, the
 * way iscsiadm does (open-iscsi usr/idbm.c):
 * - node records: `<db>/nodes/<iqn>/<address>,<port>,<tpgt>/<iface>`; discovery records:
 *   `<db>/send_targets/<address>,<port>/st_config` (idbm_rec_write_new, idbm_discovery_write);
 *   `<db>` is /etc/iscsi (or /var/lib/iscsi on old builds). The files are mode 0600 (iscsiadm runs
 *   under `umask(0077)`) and hold every field as `name = value` lines between `# BEGIN RECORD
 *   <version>` and `# END RECORD`, secrets in clear (idbm_print with show=1); empty fields are left out.
 * - iscsiadm reads a record back line by line (idbm_recinfo_config): name up to blank or `=`, the
 *   value to the end of the line with blanks stripped at both ends, lines ≥ 2048 bytes skipped. So a
 *   value with a line break, a control character or blanks at its ends cannot round-trip, and is
 *   refused (CHAP secrets are at most 256 bytes: AUTH_STR_MAX_LEN in usr/auth.h).
 * - every writer holds the DB lock (idbm_lock): `link(<lockdir>/lock, <lockdir>/lock.write)`,
 *   retried every 10 ms for 30 s; unlock unlinks lock.write. The lock dir is /run/lock/iscsi
 *   (meson `lockdir`; usr/initiator.h LOCK_DIR). Creating lock.write with O_EXCL is the same
 *   test-and-set as the link.
 * Only the fields given are replaced or added; every other line stays byte for byte. The caller
 * reads the record back through `iscsiadm -o show`, which masks passwords as `********`.
 */
import type { Host } from '../host/host.js';
import { HostIoError } from '../host/host.js';
import { stripBrackets } from '../iscsi/portal.js';
import { ISCSI_DB_ROOTS, parsePortalEntry } from '../snapshot/iscsi-db.js';

export const IDBM_LOCK_DIR = '/run/lock/iscsi';
const LOCK_FILE = `${IDBM_LOCK_DIR}/lock`;
export const IDBM_LOCK_WRITE = `${IDBM_LOCK_DIR}/lock.write`;
/** usr/idbm.h DB_LOCK_RETRIES × DB_LOCK_USECS_WAIT: 3000 × 10 ms. */
const LOCK_TRIES = 3000;
const LOCK_WAIT_MS = 10;
/** AUTH_STR_MAX_LEN (usr/auth.h) includes the terminating NUL. */
const MAX_VALUE_BYTES = 255;

/** Why a value cannot be stored in a record as it is, or undefined when it can. */
export function recordValueProblem(value: string): string | undefined {
  if (value === '') return 'it is empty';
  if (Buffer.byteLength(value) > MAX_VALUE_BYTES) return `it is longer than ${MAX_VALUE_BYTES} bytes`;
  if (/[\x00-\x1f\x7f]/.test(value)) return 'it contains a line break or control character';
  if (value.trim() !== value) return 'it starts or ends with blanks, which iscsiadm strips';
  return undefined;
}

/** The name of a record line as idbm_recinfo_config parses it, or undefined for comments/blank lines. */
function lineName(line: string): string | undefined {
  const t = line.trim();
  if (t === '' || t.startsWith('#')) return undefined;
  const m = /^[^\s=]+/.exec(t);
  return m?.[0];
}

/**
 * The record text with `fields` set: an existing line of that name is replaced, a missing one is
 * added before `# END RECORD`. Throws when the text is not a record (no BEGIN/END lines).
 */
export function setRecordFields(text: string, fields: Readonly<Record<string, string>>): string {
  const lines = text.split('\n');
  const begin = lines.findIndex((l) => l.startsWith('# BEGIN RECORD'));
  const end = lines.findIndex((l) => l.trim() === '# END RECORD');
  if (begin < 0 || end < begin)
    throw new Error('not an open-iscsi record (no # BEGIN RECORD / # END RECORD)');
  const todo = new Map(Object.entries(fields));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i === end) for (const [k, v] of todo) out.push(`${k} = ${v}`);
    const name = i > begin && i < end ? lineName(line) : undefined;
    if (name !== undefined && fields[name] !== undefined) {
      // The first line of a name is replaced; later duplicates would override it on read: dropped.
      if (todo.has(name)) {
        out.push(`${name} = ${fields[name]}`);
        todo.delete(name);
      }
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

/**
 * Node record files for target × portal × iface (every tpgt, as `iscsiadm -o update -p` updates them
 * all), and the old layout's `<addr>,<port>` file when it is that iface's.
 */
export function nodeRecordFiles(host: Host, iqn: string, portal: string, iface: string): string[] {
  const { address, port } = splitPortal(portal);
  const out: string[] = [];
  for (const db of ISCSI_DB_ROOTS) {
    const dir = `${db}/nodes/${iqn}`;
    for (const entry of host.readDir(dir)) {
      const e = parsePortalEntry(entry);
      if (!e || e.address !== address || e.port !== port) continue;
      if (host.lstat(`${dir}/${entry}`) === 'file') {
        // The old layout: `<addr>,<port>` is itself the record (open-iscsi 2.1.x writes it for
        // `-m node -o new` without a tpgt, usr/idbm.c idbm_rec_write), its iface named inside.
        const named = /^iface\.iscsi_ifacename = (.*)$/m.exec(host.readText(`${dir}/${entry}`) ?? '')?.[1];
        if ((named ?? 'default') === iface) out.push(`${dir}/${entry}`);
        continue;
      }
      const file = `${dir}/${entry}/${iface}`;
      if (host.lstat(file) === 'file') out.push(file);
    }
  }
  return out;
}

/** The SendTargets discovery record file of a portal. */
export function discoveryRecordFiles(host: Host, portal: string): string[] {
  const { address, port } = splitPortal(portal);
  return ISCSI_DB_ROOTS.map((db) => `${db}/send_targets/${address},${port}/st_config`).filter(
    (f) => host.lstat(f) === 'file',
  );
}

function splitPortal(portal: string): { address: string; port: number } {
  const i = portal.lastIndexOf(':');
  return { address: stripBrackets(portal.slice(0, i)), port: Number(portal.slice(i + 1)) };
}

/** What waiting for the lock needs: a clock-free sleep the caller provides (tests never wait). */
export type Sleep = (ms: number) => Promise<void>;

/** Holds iscsiadm's DB lock around `fn`, like idbm_lock/idbm_unlock. */
export async function withIdbmLock<T>(host: Host, sleep: Sleep, fn: () => T): Promise<T> {
  if (host.lstat(IDBM_LOCK_DIR) === undefined) host.mkdir(IDBM_LOCK_DIR, 0o770);
  if (host.lstat(LOCK_FILE) === undefined) host.createExclusive(LOCK_FILE, '');
  let held = false;
  for (let i = 0; i < LOCK_TRIES && !held; i++) {
    held = host.createExclusive(IDBM_LOCK_WRITE, '');
    if (!held) await sleep(LOCK_WAIT_MS);
  }
  if (!held) throw new HostIoError('lock', IDBM_LOCK_WRITE, 'EEXIST');
  try {
    return fn();
  } finally {
    host.unlink(IDBM_LOCK_WRITE);
  }
}

/**
 * Sets `fields` in each record file under the DB lock. Values are checked first (nothing is
 * written when one cannot round-trip). Returns the files written.
 */
export async function writeRecordFields(
  host: Host,
  sleep: Sleep,
  files: readonly string[],
  fields: Readonly<Record<string, string>>,
): Promise<string[]> {
  for (const [k, v] of Object.entries(fields)) {
    const why = recordValueProblem(v);
    if (why) throw new Error(`${k} cannot be stored in an open-iscsi record: ${why}`);
  }
  return withIdbmLock(host, sleep, () => {
    for (const f of files) {
      const text = host.readText(f);
      if (text === undefined) throw new HostIoError('read', f, 'ENOENT');
      host.writeText(f, setRecordFields(text, fields), 0o600);
    }
    return [...files];
  });
}

/**
 * Checks `iscsiadm -o show` output against what was written: each password field reads
 * `********` (set, masked by idbm_print), each other field its value. Returns the fields that
 * do not; never returns or prints a value.
 */
export function unconfirmedFields(show: string, fields: Readonly<Record<string, string>>): string[] {
  const got = new Map<string, string>();
  for (const line of show.split('\n')) {
    const eq = line.indexOf(' = ');
    if (eq > 0) got.set(line.slice(0, eq).trim(), line.slice(eq + 3).trim());
  }
  return Object.entries(fields)
    .filter(([k, v]) => got.get(k) !== (/password(_in)?$/.test(k) ? '********' : v))
    .map(([k]) => k);
}
