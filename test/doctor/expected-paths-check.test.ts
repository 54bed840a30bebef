/** doctor's `volumes.expected-paths` check: the expected-state problems of the one problems rule, as a check. */
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/engine/doctor/index.js';
import type { SimEnv } from '../actions/helpers.js';
import { degradedVolume, P2 } from '../helpers/degraded-volume.js';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function check(e: SimEnv) {
  const r = await runDoctor(e.host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' });
  return r.checks.find((c) => c.id === 'volumes.expected-paths')!;
}

describe('doctor volumes.expected-paths', () => {
  it('warns for a volume on 1 of its 2 paths, naming the portal, with the restore command', async () => {
    env = await degradedVolume();
    const c = await check(env);
    expect(c.status).toBe('warn');
    expect(c.evidence).toBe(`volume pv-x has 1 of 2 paths: portal ${P2} not logged in`);
    expect(c.hint).toBe('iscsi-console restore pv-x --write');
  });

  it('passes once restore put the path back', async () => {
    env = await degradedVolume();
    await env.run('restore', ['pv-x']);
    const c = await check(env);
    expect(c.status).toBe('pass');
    expect(c.evidence).toBe('1 volume on every expected path (2 paths)');
  });
});
