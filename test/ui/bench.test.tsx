import { describe, expect, it } from 'vitest';
import { benchConsole } from '../../bench/lib/console-frames.js';
import { scaleSnapshot } from './helpers/fixtures.js';

describe('benchConsole', () => {
  it('measures first frame, key→frame and refresh→frame with 1,000 sessions', async () => {
    const r = await benchConsole({ snapshot: scaleSnapshot(1000), keys: 20, refreshes: 5 });
    console.info(`console bench (1,000 sessions): ${JSON.stringify(r)}`);
    expect(r.sessions).toBe(1000);
    expect(r.keyToFrame.samples).toBe(20);
    expect(r.refreshToFrame.samples).toBe(5);
    expect(r.keyCpuMs.samples).toBe(20);
    expect(r.refreshCpuMs.samples).toBe(5);
    // One frame per key, plus the status line's once-a-second tick now and then.
    expect(r.rendersPerKey).toBeGreaterThanOrEqual(1);
    expect(r.renderMs.samples).toBeGreaterThanOrEqual(20);
    expect(typeof r.colours).toBe('boolean');
    // No timing bounds here (they would only measure the machine's load): the figures themselves
    // go to `npm run bench`. What must hold is that every key and every refresh produced a frame.
    expect(r.keyToFrame.p50).toBeGreaterThan(0);
    expect(r.firstFrameMs).toBeGreaterThan(0);
  });
});
