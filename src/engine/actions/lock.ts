/**
 * Target locks. kubelet holds a per-IQN lock for the whole AttachDisk/DetachDisk (§1.4 step 3), but
 * only in its own memory (§1.18 #1); we lock per target inside the process AND across processes
 * (two consoles, or a console and a script) with O_EXCL lock files under `<stateDir>/locks/`.
 * A lock whose holder died (pid gone, or pid reused: start time differs) is taken over.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RefusedError } from '../errors.js';
import type { Host } from '../host/host.js';
import { realSleep } from './iscsiadm.js';

export interface LockHolder {
  pid: number;
  /** Process start time (clock ticks since boot, /proc/<pid>/stat field 22): tells a reused pid apart. */
  start?: string;
  hostname: string;
  action: string;
  since: string;
}

export interface LockOptions {
  timeoutMs?: number;
  /** Is the holder still running? Default: kill(pid, 0) plus start-time comparison on this machine. */
  isAlive?: (h: LockHolder) => boolean;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
}

/** Start time of a local process, or undefined (non-Linux, gone). */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may contain spaces and parens: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function defaultIsAlive(h: LockHolder): boolean {
  try {
    process.kill(h.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(h.pid);
  return h.start === undefined || start === undefined || start === h.start;
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
  return `${stateDir}/locks/${key.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${hash}.lock`;
}

function readHolder(host: Host, path: string): LockHolder | undefined {
  try {
    return JSON.parse(host.readText(path) ?? '') as LockHolder;
  } catch {
    return undefined;
  }
}

async function lockFile(
  host: Host,
  stateDir: string,
  key: string,
  action: string,
  o: LockOptions,
): Promise<() => void> {
  const path = lockPath(stateDir, key);
  host.mkdir(`${stateDir}/locks`, 0o700);
  const me: LockHolder = {
    pid: process.pid,
    hostname: host.hostname(),
    action,
    since: new Date().toISOString(),
    ...(processStart(process.pid) ? { start: processStart(process.pid)! } : {}),
  };
  const isAlive = o.isAlive ?? defaultIsAlive;
  const sleep = o.sleep ?? realSleep;
  const deadline = performance.now() + (o.timeoutMs ?? 60_000);
  let wait = 25;
  for (;;) {
    if (host.createExclusive(path, `${JSON.stringify(me)}\n`)) {
      return () => {
        const h = readHolder(host, path);
        if (h?.pid === me.pid && h.since === me.since) host.unlink(path);
      };
    }
    const holder = readHolder(host, path);
    if (holder && !isAlive(holder)) {
      // Break a dead holder's lock under a second O_EXCL file so two breakers cannot both win.
      const breaker = `${path}.break`;
      if (host.createExclusive(breaker, String(process.pid))) {
        try {
          const again = readHolder(host, path);
          if (again && again.pid === holder.pid && again.since === holder.since) host.unlink(path);
        } finally {
          host.unlink(breaker);
        }
        continue;
      }
    }
    if (performance.now() >= deadline || o.signal?.aborted) {
      throw new RefusedError(
        `target ${key} is locked by ${holder ? `pid ${holder.pid} (${holder.action}, since ${holder.since})` : 'another process'}`,
        `wait for it to finish; a lock left by a dead process is taken over automatically (${path})`,
        ['locked'],
      );
    }
    await sleep(wait);
    wait = Math.min(wait * 2, 500);
  }
}

/**
 * Locks every key (sorted, so two plans never deadlock), in-process first, then the file.
 * Returns the release function (idempotent).
 */
export async function acquireLocks(
  host: Host,
  stateDir: string,
  keys: readonly string[],
  action: string,
  o: LockOptions = {},
): Promise<() => void> {
  const releases: (() => void)[] = [];
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
      releases.push(await lockFile(host, stateDir, key, action, o));
    }
  } catch (e) {
    release();
    throw e;
  }
  return release;
}
