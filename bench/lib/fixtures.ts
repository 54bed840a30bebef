import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { nodeBin } from './args.js';
import { log } from './output.js';

/** Host path of the kubelet root inside every generated fixture root. */
export const FIXTURE_KUBELET_ROOT = '/var/lib/kubelet';

/**
 * A fixture root of `sessions` × `luns` (half multipath) on tmpfs, generated once by
 * test/helpers/generate-fixture-root.ts in a child process (bench/make-fixture.ts) and reused while
 * the generator is unchanged (the cache key is the hash of its bundle). Throws with the reason when
 * the generator is not available.
 */
export function fixtureRoot(sessions: number, luns: number, csi = 0): string {
  const helper = process.env.BENCH_HELPER_MAKE_FIXTURE;
  if (!helper) {
    throw new Error(
      `fixture generator unavailable: ${process.env.BENCH_HELPER_ERR_MAKE_FIXTURE ?? 'run through npm run bench'}`,
    );
  }
  const base = process.env.BENCH_FIXTURES ?? '/dev/shm/iscsi-console-bench';
  const dir = join(
    base,
    process.env.BENCH_FIXTURE_KEY ?? 'nokey',
    `s${sessions}-l${luns}${csi ? `-csi${csi}` : ''}`,
  );
  if (existsSync(dir)) return dir;
  // Roots of an older generator version are stale: free their tmpfs before writing new ones. Only
  // our own key dirs (12 hex digits) go, whatever else BENCH_FIXTURES may hold.
  const key = process.env.BENCH_FIXTURE_KEY ?? 'nokey';
  for (const old of existsSync(base) ? readdirSync(base) : []) {
    if (old !== key && /^[0-9a-f]{12}$/.test(old)) rmSync(join(base, old), { recursive: true, force: true });
  }
  const t0 = performance.now();
  const r = spawnSync(nodeBin(), [helper, dir, String(sessions), String(luns), String(csi)], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0 || !existsSync(dir)) throw new Error(`generating ${dir} failed (exit ${r.status})`);
  log(`generated ${sessions} × ${luns} fixture in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${dir}`);
  return dir;
}
