import { execa } from 'execa';
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
    const started = performance.now();
    const secrets = options.secrets;
    const shownArgv = full.map((a) => maskSecrets(a, secrets));
    const result = await execa(file!, args, {
      reject: false,
      timeout: options.timeoutMs ?? config.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      forceKillAfterDelay: 2_000,
      env: { LC_ALL: 'C', LANG: 'C' },
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
