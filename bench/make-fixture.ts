/**
 * `make-fixture.mjs DIR SESSIONS LUNS [CSI_VOLUMES]` — writes one benchmark fixture root with the project's own
 * generator (test/helpers/generate-fixture-root.ts: N sessions × L LUNs, half multipath, kubelet
 * volumes, in the real sysfs layout). Written to DIR.tmp and renamed, so a half-written root (an
 * interrupted run) is never reused. Run in its own process by bench/lib/fixtures.ts.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { generateFixtureRoot } from '../test/helpers/generate-fixture-root.js';
import { FIXTURE_KUBELET_ROOT } from './lib/fixtures.js';

const [dir, sessions, luns, csi] = process.argv.slice(2);
if (!dir || !sessions || !luns) {
  process.stderr.write('usage: make-fixture.mjs DIR SESSIONS LUNS [CSI_VOLUMES]\n');
  process.exit(2);
}
const tmp = `${dir}.tmp`;
rmSync(tmp, { recursive: true, force: true });
const made = generateFixtureRoot(tmp, {
  sessions: Number(sessions),
  luns: Number(luns),
  kubelet: true,
  kubeletRoot: FIXTURE_KUBELET_ROOT,
  csi: csi ? Number(csi) : 0,
});
writeFileSync(`${tmp}.json`, `${JSON.stringify({ ...made, root: dir }, null, 2)}\n`);
renameSync(tmp, dir);
renameSync(`${tmp}.json`, `${dir}.json`);
