import { execSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { openSimHost } from '../../src/sim/index.js';

test('scale', async () => {
  const t0 = performance.now();
  const { host, close } = await openSimHost({ scenario: 'scale', clock: 'manual' });
  const t1 = performance.now();
  console.log('entries', execSync(`find ${host.root} | wc -l`).toString());
  const t2 = performance.now();
  const snap = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
  const t3 = performance.now();
  console.log('scale build ms', Math.round(t1 - t0), 'snapshot ms', Math.round(t3 - t2), snap.sessions.length, snap.multipath.length, snap.problems.slice(0, 3), JSON.stringify(snap.sessions[0]).slice(0, 600));
  await close();
  console.log('close ms', Math.round(performance.now() - t3));
  expect(1).toBe(1);
}, 600_000);
