/**
 * A key's frame is drawn at once, even when another frame has just used the frame cap's window
 * (src/ui/key-frame-flush.ts); a second key within that window is left to the throttle, so held
 * keys still draw at MAX_FPS. Ink's throttle runs on setTimeout, frozen here (fake setTimeout and
 * performance.now, real setImmediate): a frame that shows without the clock moving was not held.
 */
import { EventEmitter } from 'node:events';
import { render } from 'ink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleApp } from '../../src/ui/app.js';
import { FRAME_MS, MAX_FPS } from '../../src/ui/frame-rate.js';
import { KeyboardStdin } from '../../src/ui/keyboard-stdin.js';
import { MONO_THEME } from '../../src/ui/theme.js';
import { createUiStore } from '../../src/ui/view-store.js';
import { fakeBackend, scaleSnapshot } from './helpers/fixtures.js';
import { stripAnsi, tick } from './helpers/render-tui.js';

class Screen extends EventEmitter {
  isTTY = true;
  columns = 120;
  rows = 30;
  last = '';
  write = (chunk: string, cb?: () => void): boolean => {
    // A frame comes between escape-only writes (synchronized output, cursor): those are no frame.
    const text = stripAnsi(chunk);
    if (text.trim() !== '') this.last = text;
    cb?.();
    return true;
  };
}

/** Yields (never sleeps) until the frame shows `re`; false if it still does not after `turns` yields. */
async function shows(screen: Screen, re: RegExp, turns = 50): Promise<boolean> {
  for (let i = 0; i < turns; i++) {
    if (re.test(screen.last)) return true;
    await tick();
  }
  return re.test(screen.last);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a key is not held by the frame cap', () => {
  it('draws the first key at once after another frame, leaves a second one to the throttle', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const screen = new Screen();
    const stdin = new KeyboardStdin();
    const ui = createUiStore({ write: false, dryRun: false });
    ui.setState({ sort: { ...ui.getState().sort, sessions: { column: 'sid', desc: false } } });
    const instance = render(
      <ConsoleApp backend={fakeBackend(scaleSnapshot(50))} ui={ui} theme={MONO_THEME} hostname="node-17" />,
      {
        stdout: screen as unknown as NodeJS.WriteStream,
        stderr: new Screen() as unknown as NodeJS.WriteStream,
        stdin: stdin as unknown as NodeJS.ReadStream,
        exitOnCtrlC: false,
        patchConsole: false,
        interactive: true,
        maxFps: MAX_FPS,
      },
    );
    try {
      // The first frame opened a throttle window that, with the clock frozen, never closes.
      expect(await shows(screen, /\b1 of 50\b/)).toBe(true);
      stdin.write('j');
      expect(await shows(screen, /\b2 of 50\b/)).toBe(true);
      // Same instant: the throttle's, drawn when its window ends.
      stdin.write('j');
      expect(await shows(screen, /\b3 of 50\b/)).toBe(false);
      expect(ui.getState().cursor.sessions.index).toBe(2);
      vi.advanceTimersByTime(FRAME_MS);
      expect(await shows(screen, /\b3 of 50\b/)).toBe(true);
    } finally {
      instance.unmount();
      instance.cleanup();
    }
  });
});
