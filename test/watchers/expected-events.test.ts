/** watch's events for the expected state: a volume short of a path, and the volume whole again after restore. */
import { afterEach, describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/watchers/diff.js';
import type { SimEnv } from '../actions/helpers.js';
import { degradedVolume, GLOBAL, P2 } from '../helpers/degraded-volume.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const mine = (events: { subject: string; message: string; severity: string }[]) =>
  events
    .filter((e) => e.subject === GLOBAL && e.message.includes('path'))
    .map((e) => [e.severity, e.message]);

describe('expected-state events', () => {
  it('a volume that loses a path, then restored: a warn event naming the missing portal, an info event once restored', async () => {
    env = await degradedVolume();
    const short = env.snap();
    await env.run('restore', ['pv-x']);
    const whole = env.snap();
    expect(mine(diffSnapshots(whole, short).events)).toEqual([
      ['warn', `volume pv-x has 1 of 2 paths: portal ${P2} not logged in`],
    ]);
    expect(mine(diffSnapshots(short, whole).events)).toEqual([
      ['info', 'volume pv-x on its expected paths again (2 paths)'],
    ]);
  });
});
