import { type Key, useApp, useInput } from 'ink';
import { useRef } from 'react';
import { FRAME_MS } from './frame-rate.js';

/**
 * Ink's `useInput` whose key frames are drawn at once, not when the frame cap's window ends. Ink
 * throttles frames (MAX_FPS, leading and trailing), so a frame drawn for something else — the status
 * bar's clock ticks every second, a refresh lands — held a key pressed in the next ~67 ms until that
 * window closed: ~1 key in 15 waited up to 67 ms, and the in-process key-to-frame p95 was such a key
 * (bench/README.md, console). After the handler, Ink's `waitUntilRenderFlush` runs the pending frame.
 * Keys still draw at most MAX_FPS frames a second between them: a key within a window of the last
 * flushed one (auto-repeat, a paste) leaves its frame to the throttle.
 */
export function useKeyInput(handler: (input: string, key: Key) => void): void {
  const { waitUntilRenderFlush } = useApp();
  const last = useRef(Number.NEGATIVE_INFINITY);
  useInput((input, key) => {
    handler(input, key);
    const t = performance.now();
    if (t - last.current < FRAME_MS) return;
    last.current = t;
    void waitUntilRenderFlush();
  });
}
