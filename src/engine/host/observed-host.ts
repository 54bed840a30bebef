/**
 * A Host whose commands are reported as they start and as they end (`-v`). It wraps any Host
 * (real, --root tree, simulator) at the one seam every command goes through, so what it shows is
 * exactly what runs. The argv given to the observer is masked: every secret the caller passed in
 * RunOptions.secrets (CHAP values) is already `********`, as in the runner's own record.
 */

import {
  type Host,
  type LineStream,
  maskSecrets,
  type RunOptions,
  type RunResult,
  type StreamHandlers,
} from './host.js';

export interface CommandObserver {
  /** A command is about to run: `id` numbers it within this host (parallel commands interleave). */
  started(id: number, argv: readonly string[]): void;
  /** It ended: exit code, time and the masked record. */
  finished(id: number, result: RunResult): void;
}

/** `host` with every `run` (and `spawnStream` start) reported to `observer`. Other calls pass through. */
export function observeCommands(host: Host, observer: CommandObserver): Host {
  let next = 0;
  const run = async (argv: readonly string[], options?: RunOptions): Promise<RunResult> => {
    const id = ++next;
    observer.started(
      id,
      argv.map((a) => maskSecrets(a, options?.secrets)),
    );
    const result = await host.run(argv, options);
    observer.finished(id, result);
    return result;
  };
  const spawnStream = host.spawnStream
    ? (argv: readonly string[], handlers: StreamHandlers): LineStream => {
        observer.started(++next, argv);
        return host.spawnStream!(argv, handlers);
      }
    : undefined;
  return new Proxy(host, {
    get(target, prop) {
      if (prop === 'run') return run;
      if (prop === 'spawnStream') return spawnStream;
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
