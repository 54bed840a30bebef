/**
 * Measures the console the way an admin feels it, for the benchmark (issue 9): the first frame
 * with N sessions, key→frame latency while moving the cursor, and refresh→frame latency when one
 * session changes. It mounts the real ConsoleApp with the production render options (maxFps,
 * incrementalRendering) on an in-memory terminal, so no TTY is needed.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { render } from 'ink';
import { createStore } from 'zustand/vanilla';
import type { Snapshot } from '../engine/model.js';
import type { NodeState } from '../watchers/types.js';
import { ConsoleApp } from './app.js';
import type { ConsoleBackend } from './backend.js';
import { KeyboardStdin } from './keyboard-stdin.js';
import { MAX_FPS } from './run-console.js';
import { COLOR_THEME } from './theme.js';
import { createUiStore } from './view-store.js';

export interface ConsoleBenchOptions {
  snapshot: Snapshot;
  columns?: number;
  rows?: number;
  /** Cursor moves to time (default 50). */
  keys?: number;
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
  /** Down-arrow written to stdin → next frame written to stdout. */
  keyToFrame: LatencyStats;
  /** Store updated with a changed snapshot → next frame written. */
  refreshToFrame: LatencyStats;
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

/** Resolves with the ms from `act()` until the next frame is written (or rejects after 5 s). */
function timeToFrame(stdout: BenchStdout, act: () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const timer = setTimeout(() => {
      stdout.off('frame', done);
      reject(new Error('no frame within 5 s'));
    }, 5000);
    function done() {
      clearTimeout(timer);
      stdout.off('frame', done);
      resolve(performance.now() - start);
    }
    stdout.on('frame', done);
    act();
  });
}

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
  const started = performance.now();
  const firstFrame = new Promise<number>((resolve) => {
    const check = () => {
      if (stdout.last.includes('VERDICT')) {
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
    },
  );
  try {
    const firstFrameMs = await firstFrame;
    const keySamples: number[] = [];
    for (let i = 0; i < (o.keys ?? 50); i++) {
      await idle();
      keySamples.push(await timeToFrame(stdout, () => stdin.write('\x1b[B')));
    }
    const refreshSamples: number[] = [];
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
        await timeToFrame(stdout, () => store.setState({ snapshot: { ...snap, sessions } })),
      );
    }
    return {
      sessions: o.snapshot.sessions.length,
      columns,
      rows,
      firstFrameMs: Math.round(firstFrameMs * 100) / 100,
      keyToFrame: stats(keySamples),
      refreshToFrame: stats(refreshSamples),
    };
  } finally {
    instance.unmount();
    instance.cleanup();
  }
}
