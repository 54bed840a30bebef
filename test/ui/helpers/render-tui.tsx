/**
 * Component-test harness for the console, after Shopify cli-kit's testing/ui.ts, with the two
 * things ink-testing-library lacks: a chosen terminal size (columns AND rows, resizable) and waits
 * that yield to React's scheduler via setImmediate instead of sleeping.
 */
import { EventEmitter } from 'node:events';
import { render } from 'ink';
import type { ReactElement } from 'react';
import { KeyboardStdin } from '../../../src/ui/keyboard-stdin.js';

/** Key sequences as a terminal sends them. */
export const KEY = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  pageDown: '\x1b[6~',
  pageUp: '\x1b[5~',
  enter: '\r',
  escape: '\x1b',
  tab: '\t',
  backspace: '\x7f',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlU: '\x15',
  ctrlR: '\x12',
} as const;

class FakeStdout extends EventEmitter {
  isTTY = true;
  frames: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string, cb?: () => void): boolean => {
    // An empty write is no frame (Ink's waitUntilRenderFlush writes '' to learn that output drained).
    if (frame !== '') this.frames.push(frame);
    cb?.();
    return true;
  };
}

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g;
export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** Yields one macrotask: React 19 schedules renders with setImmediate in Node. */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

export interface Tui {
  stdin: KeyboardStdin;
  stdout: FakeStdout;
  /** The last frame, without escape codes. */
  lastFrame(): string;
  /** Waits (yielding, never sleeping) until a new frame is written. */
  waitForChange(timeoutMs?: number): Promise<string>;
  /** Waits until the frame satisfies `pred` (text: contains it). */
  waitFor(pred: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Writes keys one by one, waiting for each to be handled (a frame or a settled tick). */
  press(...keys: string[]): Promise<void>;
  /** Types text one key at a time. */
  type(text: string): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  unmount(): void;
}

export function renderTui(tree: ReactElement, size: { columns: number; rows: number }): Tui {
  const stdout = new FakeStdout(size.columns, size.rows);
  const stdin = new KeyboardStdin();
  const instance = render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: new FakeStdout(size.columns, size.rows) as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
    interactive: true,
  });
  const last = () => stripAnsi(stdout.frames[stdout.frames.length - 1] ?? '');
  const waitFor: Tui['waitFor'] = async (pred, timeoutMs = 5000) => {
    const test =
      typeof pred === 'string'
        ? (f: string) => f.includes(pred)
        : pred instanceof RegExp
          ? (f: string) => pred.test(f)
          : pred;
    const deadline = Date.now() + timeoutMs;
    while (!test(last())) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${String(pred)}; last frame:\n${last()}`);
      await tick();
    }
    return last();
  };
  const waitForChange: Tui['waitForChange'] = async (timeoutMs = 5000) => {
    const n = stdout.frames.length;
    const deadline = Date.now() + timeoutMs;
    while (stdout.frames.length === n) {
      if (Date.now() > deadline)
        throw new Error(`no new frame within ${timeoutMs} ms; last frame:\n${last()}`);
      await tick();
    }
    return last();
  };
  const press: Tui['press'] = async (...keys) => {
    for (const k of keys) {
      stdin.write(k);
      // ink-testing-library#29: input reaches useInput a tick later; then let React flush.
      for (let i = 0; i < 3; i++) await tick();
    }
  };
  return {
    stdin,
    stdout,
    lastFrame: last,
    waitForChange,
    waitFor,
    press,
    type: async (text) => press(...text.split('')),
    async resize(columns, rows) {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit('resize');
      for (let i = 0; i < 3; i++) await tick();
    },
    unmount: () => {
      instance.unmount();
      instance.cleanup();
    },
  };
}
