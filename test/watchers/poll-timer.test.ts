/**
 * The poll's cadence (src/watchers/poll-timer.ts) on a hand-driven clock: a tick starts every
 * interval from the last one's start, so a slow tick does not push the next one back; a quarter
 * interval always separates one tick's end from the next start; stop ends it.
 */
import { describe, expect, it } from 'vitest';
import { createPollTimer } from '../../src/watchers/poll-timer.js';
import { manualPacer } from './manual-pacer.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('poll timer', () => {
  it('keeps a steady cadence whatever a tick costs, and stops', async () => {
    const pacer = manualPacer(0);
    const starts: number[] = [];
    let finish: (() => void) | undefined;
    const timer = createPollTimer(
      200,
      () => {
        starts.push(pacer.now());
        return new Promise<void>((r) => (finish = r));
      },
      (e) => {
        throw e;
      },
      pacer,
    );
    timer.start();
    pacer.advance(200);
    expect(starts).toEqual([200]);
    // A tick of 150 ms: the next one still starts 200 ms after this one started.
    pacer.advance(150);
    finish!();
    await turn();
    pacer.advance(50);
    expect(starts).toEqual([200, 400]);
    // A tick longer than the interval: the next starts a quarter interval after it ends.
    pacer.advance(300);
    finish!();
    await turn();
    pacer.advance(49);
    expect(starts).toEqual([200, 400]);
    pacer.advance(1);
    expect(starts).toEqual([200, 400, 750]);
    finish!();
    await turn();
    timer.stop();
    pacer.advance(10_000);
    expect(starts).toHaveLength(3);
    expect(pacer.pending()).toBe(0);
  });
});
