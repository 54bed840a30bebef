/**
 * The one seam through which the engine touches a machine: a real node, a `--root` tree
 * (fixture or a debug pod's `/host`), or the simulated node. Every path given to a Host is a
 * *host* path (`/sys/...`, `/var/lib/kubelet/...`); the Host decides where it is really accessed.
 * Nothing above this seam ever prefixes a root itself, so paths shown, matched and stored stay host paths.
 *
 * Reads are synchronous on purpose: a snapshot of 1,000 sessions is tens of thousands of tiny sysfs
 * reads; what `fs/promises` costs for the same reads, in batches as an async Host would issue them, is
 * measured once, in README's bench table (bench/README.md, "Sync or async reads").
 */
export interface Host {
  /** What kind of machine this is: shown in the status bar and journal. */
  readonly kind: 'real' | 'root' | 'sim';
  /** Directory host paths are accessed under (`/` on a real node). Never part of a shown path. */
  readonly root: string;
  /**
   * Contents of a file, or undefined when it cannot be read. On a live node ENOENT/ENODEV/ENOTCONN
   * are normal (a session vanished mid-read; a connection is down: the kernel refuses `address`).
   */
  readText(path: string): string | undefined;
  /**
   * Up to `length` bytes (at most {@link CHUNK_MAX}) of a regular file from byte `offset`, and the
   * file's size: a large file (the journal) read from its end in bounded pieces. Opened like
   * readText (no link followed out of the root, regular files only); undefined when it cannot be read.
   */
  readChunk?(path: string, offset: number, length: number): { data: Buffer; size: number } | undefined;
  /** Like readText, but says why a read failed (errno code such as 'ENOENT', 'ENOTCONN'). */
  readTextOrError(path: string): { value: string } | { error: string };
  /** Entry names of a directory, or [] when it is absent or unreadable. */
  readDir(path: string): string[];
  /** Target of a symlink as stored (relative targets stay relative), or undefined. */
  readLink(path: string): string | undefined;
  /** Kind of an entry without following a final symlink, or undefined when absent. */
  lstat(path: string): EntryKind | undefined;
  /** Kind of an entry after following symlinks, or undefined when absent or dangling. */
  stat(path: string): EntryKind | undefined;
  /**
   * Write a file (sysfs attribute, kubelet metadata). Throws HostIoError with the errno on failure;
   * sysfs attributes answer EBUSY/EINVAL/ENODEV like the kernel does.
   *
   * Every change outside /sys (writeText, replaceFile, mkdir, rmdir, unlink) refuses to go through
   * a symbolic link — a directory on the way, or the file written or created itself — with ELOOP,
   * on a real node as under a `--root` (fs-mutate.ts). sysfs attributes are reached through the
   * kernel's own links.
   */
  writeText(path: string, data: string, mode?: number): void;
  /**
   * Append one line (journal entries) to a regular file, creating it with `mode`; never through a
   * symlink (O_NOFOLLOW). The line starts on a fresh line: when the file's last byte is not a
   * newline (a torn write), one is written first, and the call returns true. One write(2), then
   * fsync(2), so the line is on disk when this returns; a short write (full disk) is cut back off.
   * Throws HostIoError (ELOOP for a symlink, ENOSPC, EROFS...).
   */
  appendLine(path: string, line: string, mode?: number): boolean;
  /**
   * Create a file with its content only if it does not exist: the basis of cross-process locks.
   * Atomic: the content is written and flushed to a temp file that is then hard-linked into place
   * (link(2) fails with EEXIST), so no reader ever sees the file empty or half-written. Returns
   * false when it already exists; throws HostIoError otherwise, leaving nothing behind.
   */
  createExclusive(path: string, data: string): boolean;
  /**
   * Replace a file's content atomically: a temp file in the same directory written whole, given
   * `mode` (default 0600) and checked, fsync'ed, rename(2)d over the old file. A reader sees the
   * old bytes or the new ones, never a part (a full disk fails the temp file and leaves the old one
   * as it was); nothing is left behind on failure. The way every file holding a secret is written.
   */
  replaceFile(path: string, data: string, mode?: number): void;
  /** lstat(2) with owner, permission bits and age (a final symlink is reported, not followed). */
  entryInfo(path: string): EntryInfo | undefined;
  /** mkdir -p with a mode (kubelet uses 0750). */
  mkdir(path: string, mode?: number): void;
  /** Remove one empty directory (never recursive: see docs/field-incidents.md#6-orphaned-global-dirs). */
  rmdir(path: string): void;
  /** Remove one file. */
  unlink(path: string): void;
  /** Run a command: argv array, never a shell. Exit codes are data, not exceptions. */
  run(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
  /**
   * One TCP connection to `address:port`, closed at once with nothing sent (the reachability
   * probe's fallback, src/engine/probe/portal-probe.ts), bounded by `timeoutMs`. A `--root` tree
   * is not the node: it answers `not-allowed` and opens no socket. The simulator answers from its SAN.
   */
  connectTcp(address: string, port: number, timeoutMs: number): Promise<TcpConnectResult>;
  /**
   * The kernel log's records as `/dev/kmsg` gives them (`pri,seq,usec,flags;message`, one per
   * entry, continuation lines dropped), oldest first, at most `maxRecords` of the newest: opened
   * non-blocking and read until the buffer is drained, never waited on. Undefined where it cannot
   * be read (not root, no `/dev/kmsg` in a `--root` tree). Optional: test hosts leave it out.
   */
  readKernelLog?(maxRecords: number): string[] | undefined;
  /**
   * Starts a long-lived, line-streamed command (`udevadm monitor`) through the same exec mode as
   * `run`. Optional: hosts without one (the simulator, tests) leave it out and watchers degrade to polling.
   */
  spawnStream?(argv: readonly string[], handlers: StreamHandlers): LineStream;
  /**
   * Keeps a file open for cheap repeated reads (one pread(2) at offset 0 per read, no path walk).
   * A sysfs attribute re-runs its show() on every read from offset 0, so the value is always current;
   * the watchers' poll uses it for per-device `state`. Optional: hosts without it are read by path.
   * Returns undefined when the file cannot be opened.
   */
  openReader?(path: string): FileReader | undefined;
  /**
   * A new snapshot begins: drop what was cached about the tree (directories resolved inside a
   * `--root`, confine.ts). Optional: hosts without a cache leave it out.
   */
  startRead?(): void;
  /**
   * The snapshot is read: drop that cache now rather than at the next read. Between reads nothing
   * uses it (the poll keeps its files open), and at 1,000 sessions × 4 LUNs it holds ~40,000
   * directories, ~5 MB of the console's resident memory (bench/README.md). Optional, like startRead.
   */
  endRead?(): void;
  /**
   * Problems of reads the Host refused by itself since the last call — not a regular file, over its
   * size cap (read-caps.ts), a symlink loop — one line each, for the snapshot's `problems`.
   */
  takeReadProblems?(): string[];
  /**
   * The real path a host path is reached at on this machine (resolved inside the root), for code
   * that must hand a path to a library (chokidar); undefined when it does not exist.
   */
  resolvePath?(path: string): string | undefined;
  /** The node's hostname (for typed confirmations and the journal). */
  hostname(): string;
  /** Milliseconds since the epoch; the simulator's clock can run ahead of the wall clock. */
  now(): number;
}

/** The most bytes one readChunk returns. */
export const CHUNK_MAX = 4 * 1024 * 1024;

export type EntryKind = 'file' | 'dir' | 'symlink' | 'other';

export interface EntryInfo {
  kind: EntryKind;
  uid: number;
  /** Permission bits (st_mode & 07777). */
  mode: number;
  mtimeMs: number;
  size: number;
}

/** An open file read again and again from offset 0 (see Host.openReader). */
export interface FileReader {
  /** Current contents (up to 4 KiB, a sysfs page), or undefined once the object is gone (ENODEV). */
  read(): string | undefined;
  close(): void;
}

export interface RunOptions {
  /** Kill the command after this many ms (default 30 s). Every command gets a timeout: hangs happen. */
  timeoutMs?: number;
  /** Text for standard input. */
  input?: string;
  /** Values that must never appear in any record of this call (CHAP secrets): masked as ********. */
  secrets?: readonly string[];
  /**
   * Abort a running command: its whole process group is killed. Only for commands nothing depends
   * on finishing (probes); a plan's steps never get one, so an interrupt never cuts a step.
   */
  signal?: AbortSignal;
  /**
   * Called with the child's pid once it is running (before it can have changed anything), and
   * again with `exited: true` when it has ended: apply records the pids its lock covers.
   */
  onChild?: (pid: number, exited: boolean) => void;
}

/** Handlers of a long-lived, line-streamed command (`udevadm monitor`). */
export interface StreamHandlers {
  /** Called for every complete stdout line (without the newline). */
  onLine(line: string): void;
}

export interface StreamExit {
  /** Exit code; null when killed or when it could not start. */
  exitCode: number | null;
  /** Set when the program could not be started (ENOENT: not installed). */
  spawnError?: string;
  /** Last stderr line, for health details (never secrets: monitors take none). */
  stderr?: string;
}

export interface LineStream {
  /** Resolves when the process has ended, for whatever reason. */
  readonly exited: Promise<StreamExit>;
  /** Ends the process (and its descendants) and waits for it. */
  stop(): Promise<void>;
}

export interface RunResult {
  /** argv as run, with secrets masked: safe to show and journal. */
  argv: string[];
  /** Process exit code; null when it was killed, timed out or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the program could not be started (ENOENT: not installed). */
  spawnError?: string;
  durationMs: number;
}

/** What one TCP connection attempt found (Host.connectTcp). */
export interface TcpConnectResult {
  /** `connected`: the portal accepted; `failed`: refused, unreachable or no answer in time; `not-allowed`: this Host opens no socket. */
  outcome: 'connected' | 'failed' | 'not-allowed';
  /** errno of a failure (ECONNREFUSED, EHOSTUNREACH; ETIMEDOUT when the bound ran out). */
  code?: string;
  /** Why this Host opened no socket. */
  detail?: string;
  durationMs: number;
}

/** A failed file operation through the Host, with the errno code the kernel or fs gave. */
export class HostIoError extends Error {
  constructor(
    readonly op: string,
    readonly path: string,
    readonly code: string,
    /** Why, when the errno alone does not say it (a symlink refused on the way). */
    readonly detail?: string,
  ) {
    super(`${op} ${path}: ${code}${detail ? ` (${detail})` : ''}`);
    this.name = 'HostIoError';
  }
}

/** Masks every secret value inside a string. */
export function maskSecrets(text: string, secrets: readonly string[] | undefined): string {
  if (!secrets || secrets.length === 0) return text;
  let out = text;
  for (const s of secrets) {
    if (s.length > 0) out = out.split(s).join('********');
  }
  return out;
}
