/**
 * Target locks. kubelet holds a per-IQN lock for the whole AttachDisk/DetachDisk
 * (kubernetes pkg/volume/iscsi/iscsi_util.go, `targetLocks`), but only in its own memory; we lock
 * per target inside the process AND across processes (two consoles, or a console and a script)
 * with lock files under `<stateDir>/locks/`.
 *
 * A lock file is created with its content in one step (Host.createExclusive: temp file, then
 * link(2)), so no process ever sees an empty or half-written lock. It names the holder and every
 * child process the plan has running (`children`, rewritten atomically as commands start and end):
 * a console that was made to quit while a step's child still runs leaves a lock that stays held
 * until that child has ended too. A lock is judged by type, content and age (judge): it is taken
 * over when its holder and all its children are gone (pid gone, or pid reused: start time differs),
 * or when it is not a lock this console could have written (a directory, FIFO, symlink, a file over
 * LOCK_MAX_BYTES, content that is not a valid holder: an older version, a damaged disk, a planted
 * file) and it is older than `unreadableAfterMs` or has an mtime in the future. Only small regular
 * files are ever read, through the Host's bounded, non-blocking reads. Each takeover is returned as
 * a note for the journal.
 */
import { sha256Hex } from '../builtins-on-use.js';
import { InterruptedError, RefusedError } from '../errors.js';
import type { EntryKind, Host } from '../host/host.js';
import { isProcessRunning, type LocalProcess, ownProcess, processStart } from '../host/local-process.js';
import { isoTime } from '../text/time.js';
import { realSleep } from './iscsiadm.js';
import { LOCKS_DIR, stateDirError } from './state-dir.js';

/** A process a lock names: pid and start time (host/local-process.ts). */
type LockProcess = LocalProcess;

interface LockHolder extends LockProcess {
  hostname: string;
  action: string;
  since: string;
  /** The plan's commands still running (their own process groups): the lock covers them too. */
  children?: LockProcess[];
}

interface LockOptions {
  timeoutMs?: number;
  /** Is this process still running? Default: kill(pid, 0) plus start-time comparison on this machine. */
  isAlive?: (p: LockProcess) => boolean;
  sleep?: (ms: number) => Promise<void>;
  /** Wall clock in ms (lock ages are compared with file mtimes). Default Date.now. */
  now?: () => number;
  /** An unreadable (empty, corrupt) lock older than this is taken over (default 10 s). */
  unreadableAfterMs?: number;
  signal?: AbortSignal;
}

/** The locks an apply holds. */
export interface HeldLocks {
  /** Records a child process of the plan (or its end) in every lock file. Never throws. */
  child(pid: number, exited: boolean): void;
  /** Locks taken over from dead or unreadable holders, in words (for the journal). */
  readonly notes: readonly string[];
  /** Releases every lock (idempotent). */
  release(): void;
}

const UNREADABLE_LOCK_MS = 10_000;

/** The holder, or any child it recorded, still runs. */
function holderAlive(h: LockHolder, isAlive: (p: LockProcess) => boolean): LockProcess | undefined {
  return [h, ...(h.children ?? [])].find((p) => isAlive(p));
}

const inProcess = new Map<string, Promise<void>>();

async function lockInProcess(key: string): Promise<() => void> {
  for (;;) {
    const held = inProcess.get(key);
    if (!held) break;
    await held;
  }
  let release!: () => void;
  inProcess.set(
    key,
    new Promise<void>((r) => {
      release = r;
    }),
  );
  return () => {
    inProcess.delete(key);
    release();
  };
}

/** The lock file of a target: readable prefix + hash (IQNs contain `:`; prefixes of one another must not collide). */
export function lockPath(stateDir: string, key: string): string {
  const hash = sha256Hex(key).slice(0, 12);
  return `${stateDir}/${LOCKS_DIR}/${key.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${hash}.lock`;
}

/** A lock this console wrote is ~200 bytes plus ~30 per running child; anything larger is not one. */
const LOCK_MAX_BYTES = 64 * 1024;

function isProcess(v: unknown): v is LockProcess {
  if (!v || typeof v !== 'object') return false;
  const p = v as Record<string, unknown>;
  return (
    Number.isSafeInteger(p.pid) &&
    (p.pid as number) > 0 &&
    (p.start === undefined || (typeof p.start === 'string' && /^\d{1,20}$/.test(p.start)))
  );
}

/** The holder a lock's text names, checked field by field (it is a file anyone with access could write). */
function parseHolder(raw: string): LockHolder | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isProcess(v)) return undefined;
  const h = v as unknown as Record<string, unknown>;
  if (typeof h.hostname !== 'string' || typeof h.action !== 'string' || typeof h.since !== 'string')
    return undefined;
  if (h.children !== undefined && !(Array.isArray(h.children) && h.children.every(isProcess)))
    return undefined;
  return v as LockHolder;
}

/** The holder recorded in a regular lock file; undefined when absent, empty or invalid. */
function readHolder(host: Host, path: string): LockHolder | undefined {
  const info = host.entryInfo(path);
  if (info?.kind !== 'file' || info.size > LOCK_MAX_BYTES) return undefined;
  const raw = host.readText(path);
  return raw === undefined ? undefined : parseHolder(raw);
}

/** What stands at a lock's path, judged by type, content and age. */
type Seen =
  | { kind: 'gone' }
  | { kind: 'held'; holder: LockHolder; by: LockProcess }
  | { kind: 'stale'; note: string; what: string; raw?: string; mtimeMs: number; entry: EntryKind }
  | { kind: 'young'; what: string; ageMs: number };

const KIND_WORDS: Record<EntryKind, string> = {
  file: 'a regular file',
  dir: 'a directory',
  symlink: 'a symlink',
  other: 'a FIFO, socket or device',
};

/**
 * Judges the entry at a lock's path without ever opening anything but a small regular file (the
 * Host's reads are non-blocking and bounded): a lock whose holder and children are gone is stale;
 * one that is not a lock this console could have written (another type, too big, invalid content)
 * is stale once older than `unreadableAfter` — with a future mtime counted as old, since a clock
 * set back (or a planted file) would otherwise keep it forever.
 */
function judge(
  host: Host,
  path: string,
  key: string,
  isAlive: (p: LockProcess) => boolean,
  nowMs: number,
  unreadableAfter: number,
): Seen {
  const info = host.entryInfo(path);
  if (!info) return { kind: 'gone' };
  let what: string;
  let raw: string | undefined;
  if (info.kind !== 'file') what = `it was ${KIND_WORDS[info.kind]}`;
  else if (info.size > LOCK_MAX_BYTES) what = `it was ${info.size} bytes, larger than any lock`;
  else {
    raw = host.readText(path);
    if (raw === undefined) {
      if (!host.entryInfo(path)) return { kind: 'gone' };
      what = 'it could not be read';
    } else {
      const holder = parseHolder(raw);
      if (holder) {
        const by = holderAlive(holder, isAlive);
        if (by) return { kind: 'held', holder, by };
        const note = `took over the lock of target ${key} from ${describe(holder)}: the holder and its children are gone`;
        return { kind: 'stale', note, what: 'its holder is gone', raw, mtimeMs: info.mtimeMs, entry: 'file' };
      }
      what = `its content was ${raw.trim() === '' ? 'empty' : 'unreadable'}`;
    }
  }
  const age = nowMs - info.mtimeMs;
  if (age >= 0 && age < unreadableAfter) return { kind: 'young', what, ageMs: age };
  const when = age < 0 ? 'its mtime was in the future' : `it was ${Math.round(age / 1000)} s old`;
  const note = `took over the lock of target ${key}: ${what} and ${when}`;
  return {
    kind: 'stale',
    note,
    what,
    ...(raw !== undefined ? { raw } : {}),
    mtimeMs: info.mtimeMs,
    entry: info.kind,
  };
}

interface FileLock {
  child(pid: number, exited: boolean): void;
  release(): void;
}

function describe(h: LockHolder): string {
  const kids = (h.children ?? []).map((c) => c.pid);
  return `pid ${h.pid} (${h.action}, since ${h.since}${kids.length > 0 ? `, children ${kids.join(', ')}` : ''})`;
}

async function lockFile(
  host: Host,
  stateDir: string,
  key: string,
  action: string,
  o: LockOptions,
  notes: string[],
): Promise<FileLock> {
  const path = lockPath(stateDir, key);
  const now = o.now ?? Date.now;
  try {
    host.mkdir(`${stateDir}/${LOCKS_DIR}`, 0o700);
  } catch (e) {
    throw stateDirError(e, stateDir, `lock target ${key}`);
  }
  const me: LockHolder = {
    ...ownProcess(),
    hostname: host.hostname(),
    action,
    since: isoTime(now()),
  };
  const isAlive = o.isAlive ?? isProcessRunning;
  const sleep = o.sleep ?? realSleep;
  const deadline = now() + (o.timeoutMs ?? 60_000);
  const unreadableAfter = o.unreadableAfterMs ?? UNREADABLE_LOCK_MS;
  let wait = 25;
  for (;;) {
    let created: boolean;
    try {
      created = host.createExclusive(path, `${JSON.stringify(me)}\n`);
    } catch (e) {
      throw stateDirError(e, stateDir, `lock target ${key}`);
    }
    if (created) return ownLock(host, path, me);
    const seen = judge(host, path, key, isAlive, now(), unreadableAfter);
    if (seen.kind === 'gone') continue;
    if (seen.kind === 'stale' && breakLock(host, key, path, seen, now, unreadableAfter)) {
      notes.push(seen.note);
      continue;
    }
    if (o.signal?.aborted)
      throw new InterruptedError(`interrupted while waiting for the lock of target ${key}: nothing was run`);
    if (now() >= deadline) throw lockedError(key, path, seen, unreadableAfter);
    await sleep(wait);
    wait = Math.min(wait * 2, 500);
  }
}

/** The refusal once the wait is over, with a hint that says what will (not) free the lock. */
function lockedError(
  key: string,
  path: string,
  seen: Exclude<Seen, { kind: 'gone' }>,
  unreadableAfter: number,
): RefusedError {
  if (seen.kind === 'stale') {
    return new RefusedError(
      `target ${key} is locked by a stale lock (${seen.what}) that another process is taking over`,
      `run again; a breaker file left by a crashed process is removed once it is ${Math.round(unreadableAfter / 1000)} s old (${path}.break)`,
      ['locked'],
    );
  }
  if (seen.kind === 'young') {
    return new RefusedError(
      `target ${key} is locked by another process (its lock cannot be read yet: ${seen.what})`,
      `a lock that cannot be understood is taken over once it is ${Math.round(unreadableAfter / 1000)} s old: run again (${path})`,
      ['locked'],
    );
  }
  const still = seen.by.pid === seen.holder.pid ? '' : `; its child pid ${seen.by.pid} still runs`;
  return new RefusedError(
    `target ${key} is locked by ${describe(seen.holder)}${still}`,
    `wait for it to finish; the lock is taken over automatically once pid ${seen.holder.pid} and its children are gone (${path})`,
    ['locked'],
  );
}

/** The entry at `path` is still the one judged stale: same type and mtime, and same content if read. */
function unchanged(host: Host, path: string, seen: Extract<Seen, { kind: 'stale' }>): boolean {
  const info = host.entryInfo(path);
  if (!info || info.kind !== seen.entry || info.mtimeMs !== seen.mtimeMs) return false;
  return seen.raw === undefined || host.readText(path) === seen.raw;
}

/**
 * Removes a stale lock that is still the entry judged stale, under a second exclusive file so two
 * breakers cannot both win (one could otherwise remove the lock the other has just taken). A breaker
 * file left by a crashed breaker is itself removed once older than `staleMs`. A directory is removed
 * only when empty (rmdir, never recursive); one that is not is refused with the path to clear by hand.
 */
function breakLock(
  host: Host,
  key: string,
  path: string,
  seen: Extract<Seen, { kind: 'stale' }>,
  now: () => number,
  staleMs: number,
): boolean {
  const breaker = `${path}.break`;
  let mine = false;
  try {
    mine = host.createExclusive(breaker, String(process.pid));
  } catch {
    return false;
  }
  if (!mine) {
    const info = host.entryInfo(breaker);
    const age = info ? now() - info.mtimeMs : 0;
    if (info && (age >= staleMs || age < 0)) {
      try {
        host.unlink(breaker);
      } catch {
        // another breaker removed it
      }
    }
    return false;
  }
  try {
    if (!unchanged(host, path, seen)) return false;
    try {
      if (seen.entry === 'dir') host.rmdir(path);
      else host.unlink(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new RefusedError(
        `the lock of target ${key} cannot be taken over: ${seen.what} and it cannot be removed (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
        `remove ${path} by hand, then run again`,
        ['locked'],
      );
    }
    return true;
  } finally {
    try {
      host.unlink(breaker);
    } catch {
      // gone already
    }
  }
}

function ownLock(host: Host, path: string, me: LockHolder): FileLock {
  const children: LockProcess[] = [];
  const mine = () => {
    const holder = readHolder(host, path);
    return holder?.pid === me.pid && holder.since === me.since;
  };
  return {
    child(pid, exited) {
      const i = children.findIndex((c) => c.pid === pid);
      if (exited) {
        if (i < 0) return;
        children.splice(i, 1);
      } else {
        const start = processStart(pid);
        children.push({ pid, ...(start ? { start } : {}) });
      }
      try {
        // Never a window without a lock: rename(2) replaces the file in one step.
        if (mine()) host.replaceFile(path, `${JSON.stringify({ ...me, children })}\n`);
      } catch {
        // A full disk: the lock still names this process, which waits for the child anyway.
      }
    },
    release() {
      if (mine()) host.unlink(path);
    },
  };
}

/**
 * Locks every key (sorted, so two plans never deadlock), in-process first, then the file.
 * Throws RefusedError when another process holds a target past the timeout, and UserError (exit 2)
 * when the state dir cannot hold a lock (read-only, full), leaving nothing behind.
 */
export async function acquireLocks(
  host: Host,
  stateDir: string,
  keys: readonly string[],
  action: string,
  o: LockOptions = {},
): Promise<HeldLocks> {
  const releases: (() => void)[] = [];
  const files: FileLock[] = [];
  const notes: string[] = [];
  const release = () => {
    for (const r of releases.splice(0).reverse()) {
      try {
        r();
      } catch {
        // A lock file we cannot remove is stale-detected by the next process.
      }
    }
  };
  try {
    for (const key of [...new Set(keys)].sort()) {
      releases.push(await lockInProcess(key));
      const f = await lockFile(host, stateDir, key, action, o, notes);
      files.push(f);
      releases.push(() => f.release());
    }
  } catch (e) {
    release();
    throw e;
  }
  return {
    notes,
    child: (pid, exited) => {
      for (const f of files) f.child(pid, exited);
    },
    release,
  };
}
