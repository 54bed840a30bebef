import { takeSnapshot } from '../../snapshot/index.js';
import { nodeProblems } from '../../snapshot/problems.js';
import { plural } from '../../text/plural.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';

/**
 * Volumes on the paths their metadata expects (src/engine/snapshot/expected.ts, the problems rule's
 * expectation problems): kubelet never retries a portal whose login failed at attach
 * (kubernetes#74305), so a multipath volume can run on one path for weeks. A LUN with no device
 * in use fails (the volume cannot do I/O); a volume short of paths, or one nothing uses, is a
 * warning (it runs without redundancy, or it is leftover). The hint is the command that repairs the first one.
 */
export const expectedPaths = defineCheck(
  { id: 'volumes.expected-paths', title: 'volumes on their expected paths' },
  (ctx) => {
    const snap = takeSnapshot(ctx.host, { kubeletRoot: ctx.kubeletRoot });
    const volumes = snap.expected?.volumes ?? [];
    if (volumes.length === 0) return { status: 'pass', evidence: 'no volume names its portals and LUN' };
    const problems = [...nodeProblems(snap).expected.values()];
    if (problems.length === 0) {
      const paths = volumes.reduce((n, v) => n + v.paths, 0);
      return {
        status: 'pass',
        evidence: `${plural(volumes.length, 'volume')} on every expected path (${plural(paths, 'path')})`,
      };
    }
    const lunLost = problems.some((p) => p.kind === 'missing-lun' && p.severity === 'failed');
    const hint = problems.find((p) => p.hint)?.hint;
    return {
      status: lunLost ? 'fail' : 'warn',
      evidence: listSome(
        problems.map((p) => p.reason),
        3,
      ),
      ...(hint ? { hint } : {}),
    };
  },
);
