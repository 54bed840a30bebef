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
 * until that child has ended too. A lock is taken over when its holder and all its children are
 * gone (pid gone, or pid reused: start time differs), or when its content cannot be read (a lock
 * left by an older version, a damaged disk) and it is older than `unreadableAfterMs`; each takeover
 * is returned as a note for the journal.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InterruptedError, RefusedError } from '../errors.js';
import type { Host } from '../host/host.js';
import { realSleep } from './iscsiadm.js';
import { LOCKS_DIR, stateDirError } from './state-dir.js';

export interface LockProcess {
  pid: number;
  /** Process start time (clock ticks since boot, /proc/<pid>/stat field 22): tells a reused pid apart. */
  start?: string;
}

export interface LockHolder extends LockProcess {
  hostname: string;
  action: string;
  since: string;
  /** The plan's commands still running (their own process groups): the lock covers them too. */
  children?: LockProcess[];
}

export interface LockOptions {
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

export const UNREADABLE_LOCK_MS = 10_000;

/** Fields of /proc/<pid>/stat after comm (state is [0], start time [19]), or undefined (non-Linux, gone). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may contain spaces and parens: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Start time of a local process, or undefined (non-Linux, gone). */
export function processStart(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/**
 * Running: signal 0 reaches it, it is not a zombie (an orphaned step's child that ended is a
 * zombie until PID 1 reaps it, and a container's PID 1 may never), and its start time is the
 * recorded one (proc(5): /proc/<pid>/stat fields 3 and 22).
 */
export function defaultIsAlive(h: LockProcess): boolean {
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(h.pid);
  if (fields?.[0] === 'Z') return false;
  const start = fields?.[19];
  return h.start === undefined || start === undefined || start === h.start;
}

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
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return `${stateDir}/${LOCKS_DIR}/${key.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${hash}.lock`;
}

/** The holder recorded in a lock file; undefined when absent, empty or corrupt. */
function readHolder(host: Host, path: string): { holder?: LockHolder; raw?: string } {
  const raw = host.readText(path);
  if (raw === undefined) return {};
  try {
    const h = JSON.parse(raw) as LockHolder;
    if (h && typeof h === 'object' && Number.isInteger(h.pid) && h.pid > 0) return { holder: h, raw };
  } catch {
    // unreadable: judged by its age
  }
  return { raw };
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
    pid: process.pid,
    hostname: host.hostname(),
    action,
    since: new Date(now()).toISOString(),
    ...(processStart(process.pid) ? { start: processStart(process.pid)! } : {}),
  };
  const isAlive = o.isAlive ?? defaultIsAlive;
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
    const { holder, raw } = readHolder(host, path);
    let stale: string | undefined;
    if (holder && !holderAlive(holder, isAlive)) {
      stale = `took over the lock of target ${key} from ${describe(holder)}: the holder and its children are gone`;
    } else if (!holder && raw !== undefined) {
      const age = now() - (host.entryInfo(path)?.mtimeMs ?? now());
      if (age >= unreadableAfter)
        stale = `took over the lock of target ${key}: its content was ${raw.trim() === '' ? 'empty' : 'unreadable'} and it was ${Math.round(age / 1000)} s old`;
    }
    if (stale && breakLock(host, path, raw, now, unreadableAfter)) {
      notes.push(stale);
      continue;
    }
    if (o.signal?.aborted)
      throw new InterruptedError(`interrupted while waiting for the lock of target ${key}: nothing was run`);
    if (now() >= deadline) {
      throw new RefusedError(
        `target ${key} is locked by ${holder ? describe(holder) : 'another process (its lock cannot be read yet)'}`,
        `wait for it to finish; a lock left by a dead process is taken over automatically (${path})`,
        ['locked'],
      );
    }
    await sleep(wait);
    wait = Math.min(wait * 2, 500);
  }
}

/**
 * Removes a stale lock whose content is still `raw`, under a second exclusive file so two breakers
 * cannot both win (one could otherwise remove the lock the other has just taken). A breaker file
 * left by a crashed breaker is itself removed once older than `staleMs`.
 */
function breakLock(
  host: Host,
  path: string,
  raw: string | undefined,
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
    if (info && now() - info.mtimeMs >= staleMs) {
      try {
        host.unlink(breaker);
      } catch {
        // another breaker removed it
      }
    }
    return false;
  }
  try {
    if (host.readText(path) === raw) host.unlink(path);
    return true;
  } catch {
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
    const { holder } = readHolder(host, path);
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
