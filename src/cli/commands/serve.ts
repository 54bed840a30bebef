import { bringDemoPortalsBack } from '../../app/demo-portals.js';
import { startMetricsServer } from '../../app/metrics-server.js';
import { UserError } from '../../engine/errors.js';
import { countWatcherEvents } from '../../watchers/metrics-counters.js';
import { startWatcher } from '../../watchers/watcher.js';
import type { Command } from '../command.js';
import { MAX_SESSIONS_OPTION, readMaxSessions } from '../metrics-options.js';
import { VERSION } from '../version.js';
import { aborted } from './watch.js';

export const DEFAULT_LISTEN = '127.0.0.1:9853';

/** `ADDR:PORT`, `[v6]:PORT` or `:PORT` (every address). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65535)
    throw new UserError(`--listen takes ADDR:PORT or :PORT (got ${text})`, `e.g. --listen ${DEFAULT_LISTEN}`);
  return { host: m[1] ?? m[2] ?? '', port };
}

/**
 * `serve`: the live watcher behind an HTTP endpoint for Prometheus. Read-only by construction: it
 * builds no ActionContext and refuses --write.
 */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Serve live Prometheus metrics (/metrics) and a health check (/healthz) from the watcher',
  usage: 'serve [--listen ADDR:PORT] [--refresh SECONDS] [--max-sessions N]',
  options: [
    {
      name: 'listen',
      type: 'string',
      valueName: 'ADDR:PORT',
      description: `Address to listen on (default ${DEFAULT_LISTEN}; :PORT for every address)`,
    },
    MAX_SESSIONS_OPTION,
  ],
  examples: [
    'iscsi-console serve',
    'iscsi-console serve --listen :9853 --root /host',
    'iscsi-console serve --demo outage --listen 127.0.0.1:9853',
  ],
  description:
    'Runs the watcher (as `watch` does) and answers GET /metrics with the current state (a scrape ' +
    'never reads the node) and GET /healthz with 200, or 503 and the reason when the last read failed or is older ' +
    'than three --refresh intervals. Read-only: --write is refused. Stops on SIGTERM/SIGINT. With --demo, SIGUSR2 ' +
    'brings the simulated node’s down portals back (to watch an outage alert resolve).',
  async run(ctx, args) {
    const { host, globals, out, signal } = ctx;
    if (globals.write) throw new UserError('serve is read-only: it never takes --write');
    const maxSessions = readMaxSessions(args.options);
    const listen = parseListen(
      typeof args.options.listen === 'string' ? args.options.listen : DEFAULT_LISTEN,
    );
    const watcher = startWatcher({
      host,
      kubeletRoot: globals.kubeletRoot,
      refreshMs: globals.refreshMs,
      udev: host.kind !== 'root' || globals.exec !== 'direct',
    });
    const counters = countWatcherEvents(watcher.store, maxSessions);
    const stopWatching = async () => {
      counters.stop();
      await watcher.stop();
    };
    let server: Awaited<ReturnType<typeof startMetricsServer>>;
    try {
      server = await startMetricsServer(
        {
          store: watcher.store,
          counters,
          version: VERSION,
          maxSessions,
          refreshMs: globals.refreshMs,
          now: () => host.now(),
        },
        listen.host,
        listen.port,
      );
    } catch (e) {
      await stopWatching();
      throw new UserError(
        `cannot listen on ${args.options.listen ?? DEFAULT_LISTEN}: ${(e as Error).message}`,
      );
    }
    const a = server.address();
    out.stderr(`serving http://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}/metrics\n`);
    const portalsBack = () => {
      const back = bringDemoPortalsBack(host, watcher.store.getState().snapshot);
      if (back.length > 0) void watcher.refreshNow('demo portals back');
    };
    if (globals.demo) process.on('SIGUSR2', portalsBack);
    try {
      await aborted(signal);
    } finally {
      if (globals.demo) process.off('SIGUSR2', portalsBack);
      await Promise.all([server.close(), stopWatching()]);
    }
    return 0;
  },
};
