import { execa } from 'execa';
import { commandEnv } from './runner.js';

/**
 * Long-lived, line-streamed commands (`udevadm monitor`). The runner is request/response and
 * buffers output; a monitor runs for the life of the console, so its output must not be kept.
 */

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

/**
 * Spawns `argv` (an array, never a shell) with the runner's environment (LC_ALL=C, full PATH) and streams stdout line by line.
 * `killDescendants` and `cleanup` make sure no monitor outlives the console (execa 10, §2.10).
 */
export function spawnLineStream(argv: readonly string[], handlers: StreamHandlers): LineStream {
  const [file, ...args] = argv;
  const controller = new AbortController();
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
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) handlers.onLine(line);
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    const lines = chunk.trim().split('\n');
    lastErr = lines[lines.length - 1] ?? lastErr;
  });
  const exited: Promise<StreamExit> = child.then((r) => {
    const spawnFailed = r.exitCode === undefined && !r.isCanceled && !r.signal;
    return {
      exitCode: r.exitCode ?? null,
      ...(spawnFailed ? { spawnError: String((r as { code?: string }).code ?? 'ENOENT') } : {}),
      ...(lastErr ? { stderr: lastErr } : {}),
    };
  });
  return {
    exited,
    async stop() {
      controller.abort();
      await exited;
    },
  };
}
