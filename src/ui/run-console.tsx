/**
 * Mounts the console full screen and resolves when it is closed. Terminal hygiene (docs/architecture.md#terminal-lifecycle): alternate
 * screen, no mouse reporting (terminal text selection keeps working, k9s #874), Ctrl-C handled by
 * the app (it never kills an action half-way), and the terminal restored on exit, SIGTERM or crash.
 */
import { render } from 'ink';
import type { ConsoleBackend } from '../app/backend.js';
import { ConsoleApp } from './app.js';
import { MAX_FPS } from './frame-rate.js';
import { themeFor } from './theme.js';
import { createUiStore, type UiStore } from './view-store.js';

export interface RunConsoleOptions {
  backend: ConsoleBackend;
  hostname: string;
  write: boolean;
  dryRun: boolean;
  noColor: boolean;
  /**
   * Aborted on SIGTERM or SIGHUP: the console closes; an action running (a plan, or the wizard's
   * listing) is stopped after its current step first, and the console leaves once it has.
   */
  signal?: AbortSignal;
  clock?: () => number;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /**
   * Called once the first frame is on the terminal and Ink's effects (raw mode, key input) are set
   * up: the console starts the full read here, which blocks the event loop for a while at scale.
   */
  onFirstFrame?: () => void;
}

export async function runConsole(o: RunConsoleOptions): Promise<UiStore> {
  const ui = createUiStore({ write: o.write, dryRun: o.dryRun });
  const instance = render(
    <ConsoleApp
      backend={o.backend}
      ui={ui}
      theme={themeFor(o.noColor)}
      hostname={o.hostname}
      {...(o.clock ? { clock: o.clock } : {})}
    />,
    {
      alternateScreen: true,
      // The console command already refused a non-TTY; a terminal is a terminal even when CI=true is
      // set (Ink's is-in-ci detection would otherwise write only the final frame, at unmount).
      interactive: true,
      exitOnCtrlC: false,
      maxFps: MAX_FPS,
      incrementalRendering: true,
      ...(o.stdin ? { stdin: o.stdin } : {}),
      ...(o.stdout ? { stdout: o.stdout } : {}),
    },
  );
  // A crash anywhere must not leave the terminal in the alternate screen with raw mode on.
  const crash = (e: unknown) => {
    instance.unmount(e instanceof Error ? e : new Error(String(e)));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  const onAbort = () => {
    const d = ui.getState().dialog;
    // An action is running: stop it between steps (never mid-command) and leave once it has stopped.
    if (d?.kind === 'progress') {
      d.controller.abort();
      ui.setState({ dialog: { ...d, stopRequested: true, quitAfter: true } });
    } else if (d?.kind === 'wizard' && d.listingStop) {
      // The wizard's listing: stopped between steps, it undoes itself, then the console leaves.
      if (!d.listingStop.runToEnd) d.listingStop.controller.abort();
      ui.setState({
        dialog: { ...d, listingStop: { ...d.listingStop, ask: false, requested: true, quitAfter: true } },
      });
    } else instance.unmount();
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  // Ink writes the first frame synchronously in render(); React runs the passive effects (useInput's
  // raw mode among them) from a setImmediate, so two check phases later both are done.
  let open = true;
  const first = o.onFirstFrame;
  if (first)
    setImmediate(() =>
      setImmediate(() => {
        if (open) first();
      }),
    );
  try {
    await instance.waitUntilExit();
  } finally {
    open = false;
    o.signal?.removeEventListener('abort', onAbort);
    process.off('uncaughtException', crash);
    process.off('unhandledRejection', crash);
  }
  return ui;
}
