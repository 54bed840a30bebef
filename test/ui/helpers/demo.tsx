/**
 * Mounts the console over the real app layer on a `--demo` simulator scenario: the same
 * createConsoleBackend, engine planners, consent and applyPlan as `iscsi-console --demo`, so a
 * console test sees what the engine really plans and does (no scripted plans: drift shows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConsoleBackend, type LiveBackend } from '../../../src/app/console-backend.js';
import { openSimHost, type SimHost } from '../../../src/sim/index.js';
import { ConsoleApp } from '../../../src/ui/app.js';
import { MONO_THEME } from '../../../src/ui/theme.js';
import { createUiStore, type UiStore } from '../../../src/ui/view-store.js';
import { waitFor } from '../../../src/watchers/wait-for.js';
import { renderTui, type Tui } from './render-tui.js';

export const DEMO_STATE_DIR = '/var/log/iscsi-console';

export interface DemoConsole extends Tui {
  host: SimHost;
  backend: LiveBackend;
  ui: UiStore;
  /** Unmounts, stops the watcher and removes the simulated tree. */
  close(): Promise<void>;
}

export async function mountDemo(o: {
  scenario: string;
  write?: boolean;
  columns?: number;
  rows?: number;
  /** Changes to the simulated node before the console reads it. */
  prepare?: (host: SimHost) => Promise<void> | void;
  /** The console's clock (ages, passing flashes); default the wall clock. */
  clock?: () => number;
}): Promise<DemoConsole> {
  const dir = mkdtempSync(join(tmpdir(), 'ic-demo-console-'));
  const { host, close, note } = await openSimHost({ scenario: o.scenario, clock: 'manual', dir });
  await o.prepare?.(host);
  const backend = createConsoleBackend({
    host,
    kubeletRoot: '/var/lib/kubelet',
    stateDir: DEMO_STATE_DIR,
    refreshMs: 60_000,
    exec: 'direct',
    // What `iscsi-console --demo` passes on (src/cli/commands/console.ts): the scenario's note.
    ...(note ? { demoNote: note } : {}),
  });
  backend.start();
  await backend.readersLoaded();
  await waitFor(backend.store, (s) => s.snapshot !== undefined && !s.snapshot.partial, 20_000);
  const ui = createUiStore({ write: o.write ?? false, dryRun: false });
  const tui = renderTui(
    <ConsoleApp
      backend={backend}
      ui={ui}
      theme={MONO_THEME}
      hostname={host.hostname()}
      clock={o.clock ?? (() => Date.now())}
    />,
    { columns: o.columns ?? 160, rows: o.rows ?? 45 },
  );
  await tui.waitFor((f) => f.includes('SID'));
  return {
    ...tui,
    host,
    backend,
    ui,
    async close() {
      tui.unmount();
      await backend.stop();
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
