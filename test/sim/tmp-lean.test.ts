import * as fs from 'node:fs';
import { expect, test } from 'vitest';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { SimHost } from '../../src/sim/sim-host.js';
import { Simulator } from '../../src/sim/simulator.js';
import { labTargets, T1 } from './helpers.js';

test('lean', async () => {
  const dir = fs.mkdtempSync('/tmp/lean-');
  const sim = new Simulator({ dir, clock: 'manual', seed: 1, profile: 'lean' });
  for (const t of labTargets()) sim.addTarget(t);
  const host = new SimHost(sim);
  await host.run(['iscsiadm', '-m', 'discovery', '-t', 'st', '-p', '127.0.0.1']);
  await host.run(['iscsiadm', '-m', 'node', '-T', T1, '--login']);
  const snap = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' });
  console.log(JSON.stringify(snap.sessions[0]?.devices, null, 1), snap.problems);
  fs.rmSync(dir, { recursive: true });
  expect(1).toBe(1);
});
