import { maskSecrets, type RunOptions, type RunResult } from './host.js';

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
  /** Called after every command with its masked record (the command log). */
  onRun?: (result: RunResult) => void;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * execa is imported on the first command, not at start-up: `status` runs no command at all, and
 * evaluating execa (and its dependencies) was ~8 % of a `status --json` start in the e2e guest
 * (issue 9 profile).
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

/**
 * The one subprocess runner: argv arrays (never a shell), LC_ALL=C so parsers see stable text,
 * a timeout on every call, and no exceptions for non-zero exits (callers map iscsiadm codes).
 */
export function createRunner(config: RunnerConfig) {
  return async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const full = wrapArgv(argv, config);
    const [file, ...args] = full;
    const { execa } = await loadExeca();
    const started = performance.now();
    const secrets = options.secrets;
    const shownArgv = full.map((a) => maskSecrets(a, secrets));
    const result = await execa(file!, args, {
      reject: false,
      timeout: options.timeoutMs ?? config.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      forceKillAfterDelay: 2_000,
      env: commandEnv(),
      extendEnv: true,
      stdin: options.input === undefined ? 'ignore' : 'pipe',
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.signal ? { cancelSignal: options.signal } : {}),
      stripFinalNewline: false,
      encoding: 'utf8',
    });
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
    config.onRun?.(record);
    return record;
  };
}
