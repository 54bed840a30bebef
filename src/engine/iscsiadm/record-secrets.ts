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
 * Only the fields given are replaced or added; every other line stays byte for byte, and the file
 * is replaced whole (temp file, 0600, fsync, rename), never edited in place: an in-place write keeps
 * the old file's mode (a 0644 record would then hold a secret readable by every user) and a full
 * disk would cut it mid-line. The caller reads the record back through `iscsiadm -o show`, which
 * masks passwords as `********`.
 */
import type { Host } from '../host/host.js';
import { HostIoError } from '../host/host.js';
import { pathProblem } from '../host/path-problem.js';
import { stripBrackets } from '../iscsi/portal.js';
import { ISCSI_DB_ROOTS, NODE_DB_DIRS, parsePortalEntry } from '../snapshot/iscsi-db.js';

const IDBM_LOCK_DIR = '/run/lock/iscsi';
const LOCK_FILE = `${IDBM_LOCK_DIR}/lock`;
const IDBM_LOCK_WRITE = `${IDBM_LOCK_DIR}/lock.write`;
/** usr/idbm.h DB_LOCK_RETRIES × DB_LOCK_USECS_WAIT: 3000 × 10 ms. */
const LOCK_TRIES = 3000;
const LOCK_WAIT_MS = 10;
/** What iscsiadm gives a record (it runs under umask(0077)): the mode every record written here gets. */
const RECORD_MODE = 0o600;
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
 * added before `# END RECORD`; a field whose value is undefined is removed. Throws when the text
 * is not a record (no BEGIN/END lines).
 */
export function setRecordFields(text: string, fields: Readonly<Record<string, string | undefined>>): string {
  const lines = text.split('\n');
  const begin = lines.findIndex((l) => l.startsWith('# BEGIN RECORD'));
  const end = lines.findIndex((l) => l.trim() === '# END RECORD');
  if (begin < 0 || end < begin)
    throw new Error('not an open-iscsi record (no # BEGIN RECORD / # END RECORD)');
  const todo = new Map(Object.entries(fields).filter(([, v]) => v !== undefined));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (i === end) for (const [k, v] of todo) out.push(`${k} = ${v}`);
    const name = i > begin && i < end ? lineName(line) : undefined;
    if (name !== undefined && Object.hasOwn(fields, name)) {
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

/** The value of each of `names` in a record's text as iscsiadm reads it (first line wins), or undefined. */
export function recordFieldValues(
  text: string,
  names: readonly string[],
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.fromEntries(names.map((n) => [n, undefined]));
  for (const line of text.split('\n')) {
    const name = lineName(line);
    if (name === undefined || !Object.hasOwn(out, name) || out[name] !== undefined) continue;
    const eq = line.indexOf('=');
    out[name] = eq < 0 ? '' : line.slice(eq + 1).trim();
  }
  return out;
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
type Sleep = (ms: number) => Promise<void>;

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

/** A record file as it was before a write changed it, for `restoreRecords`. */
export interface RecordBackup {
  path: string;
  before: string;
  /** What the write put there. */
  after: string;
  /** The fields the write set, with their values before it (undefined: the line was not there). */
  previous: Record<string, string | undefined>;
}

/**
 * Sets `fields` in each record file under the DB lock. Values are checked first (nothing is
 * written when one cannot round-trip), and every file must be a regular file inside the node DB,
 * reached through no symbolic link. Each file is replaced whole (Host.replaceFile: temp file,
 * mode 0600 checked, fsync, rename), so a record holding a secret is never world-readable and
 * never left cut short by a full disk; when one file fails, the files written before it get their
 * previous bytes back. Returns what each file held before, for a rollback.
 */
export async function writeRecordFields(
  host: Host,
  sleep: Sleep,
  files: readonly string[],
  fields: Readonly<Record<string, string>>,
): Promise<RecordBackup[]> {
  for (const [k, v] of Object.entries(fields)) {
    const why = recordValueProblem(v);
    if (why) throw new Error(`${k} cannot be stored in an open-iscsi record: ${why}`);
  }
  for (const f of files) {
    const why = pathProblem(host, 'write', f, NODE_DB_DIRS);
    if (why) throw new HostIoError('write', f, 'EPERM', why);
  }
  return withIdbmLock(host, sleep, () => {
    const done: RecordBackup[] = [];
    try {
      for (const f of files) {
        const before = host.readText(f);
        if (before === undefined) throw new HostIoError('read', f, 'ENOENT');
        const after = setRecordFields(before, fields);
        host.replaceFile(f, after, RECORD_MODE);
        done.push({ path: f, before, after, previous: recordFieldValues(before, Object.keys(fields)) });
      }
    } catch (e) {
      restoreRecords(host, done);
      throw e;
    }
    return done;
  });
}

/**
 * Puts records back as they were before `writeRecordFields` (newest first), each replaced whole
 * with mode 0600: a file that still holds what was written gets its previous bytes; one iscsiadm
 * rewrote since (`-o update` of another field rewrites the whole record, the secrets with it) gets
 * the written fields' previous values back, every other line as iscsiadm left it. A file deleted
 * since stays deleted. Never throws: returns the files it could not restore, with why.
 */
export function restoreRecords(host: Host, backups: readonly RecordBackup[]): string[] {
  const left: string[] = [];
  for (const b of [...backups].reverse()) {
    const now = host.readText(b.path);
    // Gone (the rollback deleted a record the attach created) or already as it was.
    if (now === undefined || now === b.before) continue;
    try {
      host.replaceFile(b.path, now === b.after ? b.before : setRecordFields(now, b.previous), RECORD_MODE);
    } catch (e) {
      left.push(`${b.path} (${(e as Error).message})`);
    }
  }
  return left;
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
