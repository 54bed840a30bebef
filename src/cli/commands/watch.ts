import { formatEventJson, formatEventLine } from '../../watchers/format-event.js';
import type { NodeEvent, NodeState } from '../../watchers/types.js';
import { startWatcher } from '../../watchers/watcher.js';
import type { Command } from '../command.js';

/**
 * `watch`: the live event stream without a terminal UI, for incident timelines and scripts. It runs
 * the same watchers as the console and prints every event once, in order, until interrupted.
 */
export const watchCommand: Command = {
  name: 'watch',
  summary:
    'Stream node events (logins, logouts, device and path state, mounts, kubelet files) until interrupted',
  usage: 'watch [--json] [--refresh SECONDS]',
  options: [],
  examples: [
    'iscsi-console watch',
    'iscsi-console watch --json | tee incident.ndjson',
    'iscsi-console watch --demo incident --refresh 1',
  ],
  description:
    'Starts with a summary event and what is already wrong (each portal down, each session with a problem, worst first, ' +
    'as status --problems words it), then prints one line per change. With --json each event is one JSON ' +
    'object per line: {"id","at","kind","severity","subject","message"}. Session and device states are ' +
    'polled every --refresh seconds; udevadm monitor (when available) and file watches on the kubelet ' +
    'and open-iscsi dirs make add/remove immediate. Ends quietly on SIGINT/SIGTERM (exit 0): watch runs no steps.',
  async run(ctx) {
    const { host, globals, out, signal } = ctx;
    const format = globals.json ? formatEventJson : formatEventLine;
    const watcher = startWatcher({
      host,
      kubeletRoot: globals.kubeletRoot,
      refreshMs: globals.refreshMs,
      // A --root tree sees the host's uevents only when commands run in the host's namespaces.
      udev: host.kind !== 'root' || globals.exec !== 'direct',
    });
    let lastId = 0;
    const print = (state: NodeState) => {
      const fresh: NodeEvent[] = [];
      for (let i = state.events.length - 1; i >= 0 && state.events[i]!.id > lastId; i--)
        fresh.push(state.events[i]!);
      for (let i = fresh.length - 1; i >= 0; i--) out.stdout(`${format(fresh[i]!)}\n`);
      if (fresh.length > 0) lastId = fresh[0]!.id;
    };
    const unsubscribe = watcher.store.subscribe(print);
    // Ctrl-C / SIGTERM is the normal end of a watch: the entry point (src/cli.ts) listens for both
    // for the whole run (so execa's signal-exit hook never re-raises them before stop() has ended
    // `udevadm monitor`) and aborts ctx.signal.
    try {
      await Promise.race([watcher.ready, aborted(signal)]);
      print(watcher.store.getState());
      await aborted(signal);
    } finally {
      unsubscribe();
      await watcher.stop();
      print(watcher.store.getState());
    }
    return 0;
  },
};

/**
 * Resolves when the command is interrupted. The watchers' timers and file watches are unref'd (they
 * never keep a process alive on their own), so this wait holds the event loop open itself.
 */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => undefined, 1 << 30);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(keepAlive);
        resolve();
      },
      { once: true },
    );
  });
}
