/**
 * `profile-child.mjs ROOT RUNS` — runs under `node --cpu-prof`: one warm-up snapshot, then RUNS
 * snapshots of the fixture root and nothing else, so the profile shows only the snapshot's frames.
 * measure-snapshot.ts spawns it when the snapshot/floor ratio misses its target.
 */
import { FsHost } from '../src/engine/host/fs-host.js';
import { takeSnapshot } from '../src/engine/snapshot/index.js';
import { FIXTURE_KUBELET_ROOT } from './lib/fixtures.js';

const [root, runs] = process.argv.slice(2);
if (!root) {
  process.stderr.write('usage: profile-child.mjs ROOT [RUNS]\n');
  process.exit(2);
}
const host = new FsHost({ root, runner: { mode: 'direct' } });
for (let i = 0; i <= Number(runs ?? 3); i++) takeSnapshot(host, { kubeletRoot: FIXTURE_KUBELET_ROOT });
