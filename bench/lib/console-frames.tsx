/**
 * Measures the console the way an admin feels it, for the benchmark (bench/README.md): the first frame
 * with N sessions, key→frame latency while moving the cursor, and refresh→frame latency when one
 * session changes. It mounts the real ConsoleApp with the production render options (maxFps,
 * incrementalRendering) on an in-memory terminal, so no TTY is needed.
 */

import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { render } from 'ink';
import { createStore } from 'zustand/vanilla';
import type { ConsoleBackend } from '../../src/app/backend.js';
import type { Snapshot } from '../../src/engine/model.js';
import { ConsoleApp } from '../../src/ui/app.js';
import { MAX_FPS } from '../../src/ui/frame-rate.js';
import { KeyboardStdin } from '../../src/ui/keyboard-stdin.js';
import { COLOR_THEME } from '../../src/ui/theme.js';
import { createUiStore } from '../../src/ui/view-store.js';
import type { NodeState } from '../../src/watchers/types.js';
import { handFilledParts } from '../../test/helpers/backend-parts.js';
import { positionText } from './cursor-text.js';
import { stripAnsi } from './pty.js';

export interface ConsoleBenchOptions {
  snapshot: Snapshot;
  columns?: number;
  rows?: number;
  /** Cursor moves to time (default 50). */
  keys?: number;
  /** Keys written in turn (default ↓ only: from the top, the later presses scroll the table). */
  keySequence?: readonly string[];
  /** Refreshes (one session changes state) to time (default 10). */
  refreshes?: number;
}

export interface LatencyStats {
  samples: number;
  p50: number;
  p95: number;
  max: number;
}

export interface ConsoleBenchResult {
  sessions: number;
  columns: number;
  rows: number;
  /** From render() to the first frame with the session table written. */
  firstFrameMs: number;
  /**
   * Whether the frames carried colour escapes. chalk (under Ink) picks its level when it loads, from
   * FORCE_COLOR or whether the process's stdout is a terminal: a bench child with a piped stdout
   * renders without colour, which is cheaper than the console in a real terminal.
   */
  colours: boolean;
  /** Down-arrow written to stdin → next frame written to stdout. */
  keyToFrame: LatencyStats;
  /** Keys whose effect did not show within the wait (their samples are the wait). */
  keysLost: number;
  /** Process CPU from the key press to its frame. */
  keyCpuMs: LatencyStats;
  /** Store updated with a changed snapshot → next frame written. */
  refreshToFrame: LatencyStats;
  /** Process CPU from the store update to its frame. */
  refreshCpuMs: LatencyStats;
  /** Ink's own render (layout → screen buffer → frame string) per frame while keys were pressed. */
  renderMs: LatencyStats;
  /** Frames Ink rendered per key press (1 when a key paints once; more means extra trailing renders). */
  rendersPerKey: number;
}

class BenchStdout extends EventEmitter {
  isTTY = true;
  writes = 0;
  last = '';
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (chunk: string, cb?: () => void): boolean => {
    // An empty write is no frame (Ink's waitUntilRenderFlush writes '' to learn that output drained).
    if (chunk === '') {
      cb?.();
      return true;
    }
    this.writes++;
    this.last = chunk;
    this.emit('frame');
    cb?.();
    return true;
  };
}

function stats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    samples: sorted.length,
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** Process CPU (user + system) in ms since `from`. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

/**
 * Resolves with the ms from `act()` until the next frame is written that passes `shows` (by default
 * any frame), or rejects after 5 s; `cpu` gets the process CPU over the same span (on a loaded
 * machine wall time includes waiting for a core).
 */
function timeToFrame(
  stdout: BenchStdout,
  act: () => void,
  cpu?: number[],
  shows: (frame: string) => boolean = () => true,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    const timer = setTimeout(() => {
      stdout.off('frame', done);
      reject(new Error(`no frame within ${FRAME_WAIT_MS / 1000} s`));
    }, FRAME_WAIT_MS);
    function done() {
      if (!shows(stdout.last)) return;
      clearTimeout(timer);
      stdout.off('frame', done);
      cpu?.push(cpuMs(cpu0));
      resolve(performance.now() - start);
    }
    stdout.on('frame', done);
    act();
  });
}

const DOWN = ['\x1b[B'];
/** How long a key or a store update may take to show before it counts as not shown. */
const FRAME_WAIT_MS = 5_000;

/** Waits past the frame throttle so each sample starts from an idle console. */
const idle = () => new Promise((r) => setTimeout(r, Math.ceil(1000 / MAX_FPS) + 5));

export async function benchConsole(o: ConsoleBenchOptions): Promise<ConsoleBenchResult> {
  const columns = o.columns ?? 160;
  const rows = o.rows ?? 50;
  const store = createStore<NodeState>(() => ({
    snapshot: o.snapshot,
    events: [],
    actions: [],
    health: { lastRefreshAt: Date.now(), refreshCount: 1, errors: [], sources: [] },
    busy: 0,
  }));
  const backend: ConsoleBackend = {
    ...handFilledParts(),
    store,
    actions: [],
    refreshNow: () => undefined,
    plan: () => {
      throw new Error('read-only benchmark');
    },
    apply: () => Promise.reject(new Error('read-only benchmark')),
    readJournal: () => [],
  };
  const stdout = new BenchStdout(columns, rows);
  const stdin = new KeyboardStdin();
  const ui = createUiStore({ write: false, dryRun: false });
  const renderTimes: number[] = [];
  let measuring = false;
  const started = performance.now();
  let firstFrameText = '';
  const firstFrame = new Promise<number>((resolve) => {
    const check = () => {
      if (stdout.last.includes('VERDICT')) {
        firstFrameText = stdout.last;
        stdout.off('frame', check);
        resolve(performance.now() - started);
      }
    };
    stdout.on('frame', check);
  });
  const instance = render(
    <ConsoleApp backend={backend} ui={ui} theme={COLOR_THEME} hostname={o.snapshot.node.hostname} />,
    {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: new BenchStdout(columns, rows) as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      exitOnCtrlC: false,
      patchConsole: false,
      interactive: true,
      maxFps: MAX_FPS,
      incrementalRendering: true,
      onRender: ({ renderTime }) => {
        if (measuring) renderTimes.push(renderTime);
      },
    },
  );
  try {
    const firstFrameMs = await firstFrame;
    // Foreground colour SGR (30–37, 90–97, 38;…): the accent of the header at least.
    const colours = /\x1b\[(3[0-8]|9[0-7])[;m]/.test(firstFrameText);
    const keySamples: number[] = [];
    let keysLost = 0;
    const keyCpu: number[] = [];
    const seq = o.keySequence?.length ? o.keySequence : DOWN;
    await idle();
    measuring = true;
    for (let i = 0; i < (o.keys ?? 50); i++) {
      // The key's frame is the one that shows its effect: the cursor's new position in the status
      // line ("N of M"), not merely the next write (a status tick or a partial frame).
      const before = ui.getState().cursor.sessions.index;
      const moved = (frame: string) => {
        const at = ui.getState().cursor.sessions.index;
        return at !== before && stripAnsi(frame).includes(positionText(before + 1, at + 1));
      };
      // A key whose effect does not show within the wait counts as the wait (censored), not as nothing.
      keySamples.push(
        await timeToFrame(stdout, () => stdin.write(seq[i % seq.length]!), keyCpu, moved).catch(() => {
          keysLost++;
          return FRAME_WAIT_MS;
        }),
      );
      await idle();
    }
    measuring = false;
    const refreshSamples: number[] = [];
    const refreshCpu: number[] = [];
    for (let i = 0; i < (o.refreshes ?? 10); i++) {
      await idle();
      const snap = store.getState().snapshot!;
      // Change the selected session (a visible row: Ink never writes an unchanged frame), in a new
      // snapshot object, as a real refresh would.
      const at = ui.getState().cursor.sessions.index;
      const sessions = snap.sessions.map((s, j) =>
        j === at ? { ...s, state: s.state === 'FAILED' ? 'LOGGED_IN' : 'FAILED' } : s,
      );
      refreshSamples.push(
        await timeToFrame(stdout, () => store.setState({ snapshot: { ...snap, sessions } }), refreshCpu),
      );
    }
    return {
      sessions: o.snapshot.sessions.length,
      columns,
      rows,
      firstFrameMs: Math.round(firstFrameMs * 100) / 100,
      colours,
      keyToFrame: stats(keySamples),
      keysLost,
      keyCpuMs: stats(keyCpu),
      refreshToFrame: stats(refreshSamples),
      refreshCpuMs: stats(refreshCpu),
      renderMs: stats(renderTimes),
      rendersPerKey: keySamples.length ? Math.round((renderTimes.length / keySamples.length) * 100) / 100 : 0,
    };
  } finally {
    instance.unmount();
    instance.cleanup();
  }
}
