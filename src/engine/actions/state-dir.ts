/**
 * The state dir (`--state-dir`, default /var/log/iscsi-console): the journal and the target locks.
 * It is what makes an apply accountable, so it must be what it claims: a real directory (never a
 * symlink an attacker or a careless mount swapped in), owned by the user running the console, and
 * writable by nobody else — otherwise anyone could forge journal lines or hold a target's lock.
 * Its files are opened with O_NOFOLLOW (FsHost.appendLine, createExclusive); the dir and each of
 * its parents are lstat'ed (checkParents).
 * Every refusal and every write failure here is exit 2 (the environment), naming the real cause.
 */
import { UserError } from '../errors.js';
import { type Host, HostIoError } from '../host/host.js';
import { ownUid } from '../host/local-process.js';

export const JOURNAL_FILE = 'journal.jsonl';
export const LOCKS_DIR = 'locks';

const HINT =
  'point --state-dir at a directory owned by the running user with mode 0700 (it is created if missing)';

/** What an errno means for the state dir, in words. */
function causeOf(code: string): string {
  switch (code) {
    case 'EROFS':
      return 'is on a read-only filesystem (EROFS)';
    case 'ENOSPC':
      return 'is full (ENOSPC)';
    case 'EDQUOT':
      return 'is over its disk quota (EDQUOT)';
    case 'ELOOP':
      return 'holds a symlink where a file was expected (ELOOP)';
    case 'EACCES':
    case 'EPERM':
      return `is not writable by this user (${code})`;
    default:
      return `cannot be written (${code})`;
  }
}

/**
 * Maps a failed state-dir write to the error the admin sees: exit 2, the errno named, and what
 * was (not) left behind. Other errors pass through unchanged.
 */
export function stateDirError(e: unknown, stateDir: string, what: string): unknown {
  if (!(e instanceof HostIoError)) return e;
  const hint =
    e.code === 'ENOSPC' || e.code === 'EDQUOT'
      ? `free space in ${stateDir}, or use --state-dir to point at another dir`
      : e.code === 'EROFS'
        ? `remount it read-write, or use --state-dir to point at a writable dir`
        : HINT;
  return Object.assign(
    new UserError(`state dir ${stateDir} ${causeOf(e.code)}: cannot ${what}; nothing was left behind`, hint),
    { code: e.code },
  );
}

function refuse(message: string): never {
  throw new UserError(message, HINT);
}

/** Refuses an entry that is a symlink, of the wrong kind, not ours, or writable by group/others. */
function checkEntry(host: Host, path: string, label: string, kind: 'dir' | 'file'): void {
  const info = host.entryInfo(path);
  if (!info) return;
  if (info.kind === 'symlink') {
    const target = host.readLink(path);
    refuse(
      `${label} ${path} is a symlink${target ? ` (to ${JSON.stringify(target)})` : ''}: refusing to write through it`,
    );
  }
  if (info.kind !== kind)
    refuse(`${label} ${path} is not a ${kind === 'dir' ? 'directory' : 'regular file'}`);
  const uid = ownUid();
  if (uid !== undefined && info.uid !== uid)
    refuse(`${label} ${path} is owned by uid ${info.uid}, not by the running user (uid ${uid})`);
  if ((info.mode & 0o022) !== 0)
    refuse(
      `${label} ${path} is ${info.mode & 0o002 ? 'world' : 'group'}-writable (mode ${info.mode.toString(8).padStart(4, '0')})`,
    );
}

/**
 * Refuses a parent of the state dir that someone other than root or the running user could change:
 * whoever can rename entries in a parent can swap the state dir for their own between our checks and
 * our writes (a 0777 /var/log). A sticky world-writable dir (/tmp, mode 1777) is accepted: sticky
 * means only an entry's owner may rename or remove it (unlink(2), rename(2): EPERM), and the state
 * dir itself is checked to be ours, so nobody else can swap it there. A symlinked parent is refused:
 * the checks would judge the link, not the dir writes go to. Missing parents stop the walk (mkdir
 * creates them, owned by us).
 */
function checkParents(host: Host, stateDir: string): void {
  const parts = stateDir.split('/').filter((p) => p !== '');
  const uid = ownUid();
  for (let i = 0; i < parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`;
    const info = host.entryInfo(dir);
    // A --root tree's own top is not an entry inside it; a missing parent is made by mkdir, owned by us.
    if (!info) {
      if (i === 0) continue;
      return;
    }
    const label = `state dir ${stateDir}: its parent`;
    if (info.kind === 'symlink') refuse(`${label} ${dir} is a symlink: give the state dir's real path`);
    if (info.kind !== 'dir') refuse(`${label} ${dir} is not a directory`);
    if (info.uid !== 0 && uid !== undefined && info.uid !== uid)
      refuse(`${label} ${dir} is owned by uid ${info.uid}, not by root or the running user (uid ${uid})`);
    if ((info.mode & 0o022) !== 0 && (info.mode & 0o1000) === 0)
      refuse(
        `${label} ${dir} is ${info.mode & 0o002 ? 'world' : 'group'}-writable and not sticky (mode ${info.mode.toString(8).padStart(4, '0')}): anyone who can write it could swap the state dir`,
      );
  }
}

/**
 * Makes sure the state dir exists (0700) and is safe to write: called by apply before it takes a
 * lock or writes a journal line. Throws UserError (exit 2) with the cause.
 */
export function openStateDir(host: Host, stateDir: string): void {
  checkParents(host, stateDir);
  if (host.entryInfo(stateDir) === undefined) {
    try {
      host.mkdir(stateDir, 0o700);
    } catch (e) {
      throw stateDirError(e, stateDir, 'create it');
    }
  }
  checkEntry(host, stateDir, 'state dir', 'dir');
  checkEntry(host, `${stateDir}/${JOURNAL_FILE}`, 'journal', 'file');
  checkEntry(host, `${stateDir}/${LOCKS_DIR}`, 'lock dir', 'dir');
}
