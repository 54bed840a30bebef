import type * as Net from 'node:net';
import { ExternalCommandError } from '../errors.js';
import {
  type LineStream,
  maskSecrets,
  type RunOptions,
  type RunResult,
  type StreamExit,
  type StreamHandlers,
  type TcpConnectResult,
} from './host.js';

/**
 * How host commands reach the host's tools. On the node itself: `direct`. In a debug pod or
 * container: `nsenter` into PID 1's namespaces, because iscsiadm must talk to the *host's* iscsid
 * over a unix socket and the iSCSI netlink is not network-namespace aware; or `chroot` into the
 * host tree when only the filesystem is shared.
 */
export type ExecMode = 'direct' | 'nsenter' | 'chroot';

export interface RunnerConfig {
  mode: ExecMode;
  /** For chroot: the host tree (e.g. /host). */
  chrootDir?: string;
  /** Default timeout for every command, ms. */
  defaultTimeoutMs?: number;
  /** After a timeout's SIGTERM, how long before SIGKILL (default 2 s). */
  killGraceMs?: number;
  /** Called after every command with its masked record (the command log). */
  onRun?: (result: RunResult) => void;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * execa is imported on the first command, not at start-up: `status` runs no command at all, and
 * evaluating execa (and its dependencies) was ~8 % of a `status --json` start in the e2e guest
 * (bench/README.md profile).
 */
let execaModule: Promise<typeof import('execa')> | undefined;
function loadExeca(): Promise<typeof import('execa')> {
  execaModule ??= import('execa');
  return execaModule;
}

/**
 * Where host tools live on any Linux node (Debian's default root PATH): iscsid, multipath, dmsetup,
 * blkid and chroot are in `sbin` (Debian bookworm: /usr/sbin).
 */
export const SYSTEM_PATH: readonly string[] = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
];

/**
 * The PATH host commands are looked up in. A console started with no PATH at all (`env -i`, the
 * single executable from a bare cron or container entry, `PATH=`) gets SYSTEM_PATH: libuv would
 * otherwise search only `/bin:/usr/bin` (seen in the e2e guest: no `iscsid`, no `chroot`, so
 * `--exec chroot` could run nothing), and nsenter/chroot look the host command up with the PATH
 * they inherit. A PATH that was given is kept as it is, so an admin (or a test) decides which
 * tools run; only empty and relative entries (the current directory) are dropped: this runs as root.
 */
export function commandPath(inherited: string | undefined): string {
  const dirs = [...new Set((inherited ?? '').split(':').filter((d) => d.startsWith('/')))];
  return (dirs.length > 0 ? dirs : SYSTEM_PATH).join(':');
}

/** The environment every host command gets on top of the console's own: C locale, full PATH. */
export function commandEnv(inherited: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { LC_ALL: 'C', LANG: 'C', PATH: commandPath(inherited.PATH) };
}

/** The argv actually spawned for an exec mode. */
export function wrapArgv(argv: readonly string[], config: RunnerConfig): string[] {
  switch (config.mode) {
    case 'direct':
      return [...argv];
    case 'nsenter':
      return ['nsenter', '--target', '1', '--mount', '--uts', '--ipc', '--net', '--pid', '--', ...argv];
    case 'chroot':
      return ['chroot', config.chrootDir ?? '/host', ...argv];
  }
}

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The most stdout one command may print before it is killed and refused. The largest output we parse
 * is `multipathd show maps json`: ~4 KiB per 2-path map in a real capture
 * (test/fixtures/captures/mp-multipathd-show-maps-json.txt), so the 1,000-session × 4-LUN node we
 * bench (4,000 maps) prints ~16 MiB; 64 MiB is 4× that, and far below V8's string limit (~512 Mi
 * chars) that 200 MB from a runaway multipathd hit as a fatal error. Counted in characters
 * (execa's `maxBuffer` with utf8), which equals bytes for the ASCII these tools print.
 */
export const STDOUT_CAP = 64 * MiB;
/**
 * stderr is diagnostics: iscsiadm prints a line (~150 bytes) per failing record, ~150 KiB for 1,000
 * records; we keep and show only its tail. 4 MiB bounds a tool that loops on an error message.
 */
export const STDERR_CAP = 4 * MiB;
/**
 * One line of a long-lived stream (`udevadm monitor --property`): a uevent is at most
 * UEVENT_BUFFER_SIZE (2048 bytes, include/linux/kobject.h) of `KEY=value` lines, and udev's own
 * properties are short, so a line past 64 KiB is not udev talking: the stream is stopped (its
 * watcher falls back to polling) rather than buffered without end.
 */
export const STREAM_LINE_CAP = 64 * KiB;

/** A cap in words for an error message ("64 MiB"). */
function capWords(bytes: number): string {
  return bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / KiB} KiB`;
}

/** The commands running right now (pid → masked argv): what a second Ctrl-C names. */
const running = new Map<number, readonly string[]>();

/** Every host command still running, oldest first, argv masked. */
export function runningCommands(): { pid: number; argv: readonly string[] }[] {
  return [...running].map(([pid, argv]) => ({ pid, argv }));
}

/**
 * The one subprocess runner: argv arrays (never a shell), LC_ALL=C so parsers see stable text,
 * a timeout on every call, and no exceptions for non-zero exits (callers map iscsiadm codes).
 *
 * Every command runs in a process group of its own (`detached`: setsid(2)). A terminal's Ctrl-C
 * signals the whole foreground process group (POSIX termios, "Special Characters": INTR), so a
 * child in the console's group would be interrupted mid-step whatever the console decided; in its
 * own group only the console hears it. `detached` also turns off execa's exit clean-up: a console
 * that is made to quit does not kill a running step (its lock keeps covering the child's pid).
 * A timeout or an abort kills the whole group (`killDescendants`), so a hung `iscsiadm` cannot
 * leave a grandchild behind, SIGTERM first and SIGKILL 2 s later.
 */
export function createRunner(config: RunnerConfig) {
  return async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const full = wrapArgv(argv, config);
    const [file, ...args] = full;
    const { execa } = await loadExeca();
    const started = performance.now();
    const secrets = options.secrets;
    const shownArgv = full.map((a) => maskSecrets(a, secrets));
    const child = execa(file!, args, {
      reject: false,
      timeout: options.timeoutMs ?? config.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      forceKillAfterDelay: config.killGraceMs ?? 2_000,
      detached: true,
      killDescendants: true,
      env: commandEnv(),
      extendEnv: true,
      stdin: options.input === undefined ? 'ignore' : 'pipe',
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.signal ? { cancelSignal: options.signal } : {}),
      stripFinalNewline: false,
      encoding: 'utf8',
      // Past a cap execa kills the command (killSignal) and marks the result isMaxBuffer.
      maxBuffer: { stdout: STDOUT_CAP, stderr: STDERR_CAP },
    });
    const pid = child.pid;
    if (pid !== undefined) {
      running.set(pid, shownArgv);
      options.onChild?.(pid, false);
    }
    let result: Awaited<typeof child>;
    try {
      result = await child;
    } finally {
      if (pid !== undefined) {
        running.delete(pid);
        options.onChild?.(pid, true);
      }
    }
    const spawnFailed =
      result.exitCode === undefined && !result.timedOut && !result.isCanceled && !result.signal;
    const record: RunResult = {
      argv: shownArgv,
      exitCode: result.exitCode ?? null,
      stdout: maskSecrets(String(result.stdout ?? ''), secrets),
      stderr: maskSecrets(String(result.stderr ?? ''), secrets),
      timedOut: Boolean(result.timedOut),
      durationMs: Math.round(performance.now() - started),
      ...(spawnFailed ? { spawnError: String((result as { code?: string }).code ?? 'ENOENT') } : {}),
    };
    if (result.isMaxBuffer) {
      const [stream, cap] =
        String(result.stdout ?? '').length >= STDOUT_CAP ? ['stdout', STDOUT_CAP] : ['stderr', STDERR_CAP];
      const what = `${stream} over ${capWords(cap)}: ${shownArgv.join(' ')} was stopped`;
      const cut = { ...record, exitCode: null, stdout: '', stderr: what };
      config.onRun?.(cut);
      throw new ExternalCommandError(
        `output over ${capWords(cap)}: ${shownArgv.join(' ')} printed more ${stream} than any node's state needs; it was stopped and its output not read`,
        shownArgv,
        null,
        undefined,
        what,
        false,
        'the tool is misbehaving (or is not the real one): check it by hand, with its output to a file',
      );
    }
    config.onRun?.(record);
    return record;
  };
}

/**
 * Long-lived, line-streamed commands (`udevadm monitor`): spawns `argv` (an array, never a shell)
 * with the runner's environment and streams stdout line by line. `run` is request/response and
 * buffers output; a monitor runs for the life of the console, so its output must not be kept.
 * `killDescendants` and `cleanup` make sure no monitor outlives the console. execa loads lazily
 * here too, so a console without udev streams never evaluates it.
 */
export function spawnLineStream(argv: readonly string[], handlers: StreamHandlers): LineStream {
  const [file, ...args] = argv;
  const controller = new AbortController();
  const exited: Promise<StreamExit> = loadExeca().then(({ execa }) => {
    if (controller.signal.aborted) return { exitCode: null };
    const child = execa(file!, args, {
      reject: false,
      buffer: false,
      stdin: 'ignore',
      env: commandEnv(),
      extendEnv: true,
      cleanup: true,
      killDescendants: true,
      forceKillAfterDelay: 2_000,
      cancelSignal: controller.signal,
      encoding: 'utf8',
    });
    let partial = '';
    let lastErr = '';
    let overlong = false;
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (overlong) return;
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      if (partial.length > STREAM_LINE_CAP || parts.some((l) => l.length > STREAM_LINE_CAP)) {
        overlong = true;
        controller.abort();
        return;
      }
      for (const line of parts) handlers.onLine(line);
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      const lines = chunk.trim().split('\n');
      lastErr = lines[lines.length - 1] ?? lastErr;
    });
    return child.then((r) => {
      const spawnFailed = r.exitCode === undefined && !r.isCanceled && !r.signal;
      if (overlong)
        return { exitCode: null, stderr: `a line over ${capWords(STREAM_LINE_CAP)}: stopped, not buffered` };
      return {
        exitCode: r.exitCode ?? null,
        ...(spawnFailed ? { spawnError: String((r as { code?: string }).code ?? 'ENOENT') } : {}),
        ...(lastErr ? { stderr: lastErr.slice(-1024) } : {}),
      };
    });
  });
  return {
    exited,
    async stop() {
      controller.abort();
      await exited;
    },
  };
}

/**
 * One TCP connection attempt, closed as soon as it is made: the reachability probe's fallback
 * (src/engine/probe/portal-probe.ts) when a SendTargets discovery cannot be sent without
 * credentials. Nothing is written to the socket. Bounded by `timeoutMs` (a SYN nobody answers is
 * given up, not waited out for the kernel's ~2 min of retries). Never throws. node:net loads on the
 * first probe: it evaluates ~27 internal modules a one-shot command would not use.
 */
export async function connectTcp(
  address: string,
  port: number,
  timeoutMs: number,
): Promise<TcpConnectResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    // Not `await import('node:net')`: the bundle turns a built-in into a CommonJS shim, and esbuild's
    // dynamic-import wrapper of it had no Socket (the real-kernel e2e caught it).
    const socket = new (process.getBuiltinModule('node:net') as typeof Net).Socket();
    const done = (r: TcpConnectResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(
      () => done({ outcome: 'failed', code: 'ETIMEDOUT', durationMs: took() }),
      Math.max(1, timeoutMs),
    );
    socket.once('connect', () => done({ outcome: 'connected', durationMs: took() }));
    socket.once('error', (e: NodeJS.ErrnoException) =>
      done({ outcome: 'failed', code: e.code ?? 'EIO', durationMs: took() }),
    );
    try {
      socket.connect({ host: address, port });
    } catch (e) {
      done({ outcome: 'failed', code: (e as NodeJS.ErrnoException).code ?? 'EINVAL', durationMs: took() });
    }
  });
}
