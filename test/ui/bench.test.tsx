import { describe, expect, it } from 'vitest';
import { benchConsole } from '../../src/ui/bench.js';
import { scaleSnapshot } from './helpers/fixtures.js';

describe('benchConsole', () => {
  it('measures first frame, key→frame and refresh→frame with 1,000 sessions', async () => {
    const r = await benchConsole({ snapshot: scaleSnapshot(1000), keys: 20, refreshes: 5 });
    console.info(`console bench (1,000 sessions): ${JSON.stringify(r)}`);
    expect(r.sessions).toBe(1000);
    expect(r.keyToFrame.samples).toBe(20);
    expect(r.refreshToFrame.samples).toBe(5);
    // Generous bounds for a shared 2-core machine; the numbers themselves go to the benchmark.
    expect(r.keyToFrame.p50).toBeLessThan(250);
    expect(r.firstFrameMs).toBeLessThan(5000);
  });
});
