/**
 * kubelet's UnmapDevice for a leftover per-pod entry of a block volume's global map path
 * (kubernetes pkg/volume/util/util.go UnmapBlockVolume; pkg/volume/util/volumepathhandler
 * DetachFileDevice and UnmapDevice(bindMount=true)): release the loop device that holds the node
 * ("file descriptor lock"), unmount the bind mount of the device node at `<globalMapPath>/<podUID>`,
 * then remove the now plain file. Only for entries whose pod is gone (cleanup refuses the others).
 */
import type { KubeletVolume, Snapshot } from '../model.js';
import { addUnique, pre, TIMEOUTS } from './plan-kit.js';
import type { Plan, PlanStep } from './types.js';

/** The steps unmapping every per-pod entry of one block volume, in kubelet's order. */
export function unmapBlockVolumeSteps(plan: Plan, s: Snapshot, v: KubeletVolume): PlanStep[] {
  const steps: PlanStep[] = [];
  const noPods = pre('no-pod-mounts', `no pod uses ${v.path}`, v.path);
  for (const uid of v.podDevices) {
    const entry = `${v.path}/${uid}`;
    for (const [loop, file] of Object.entries(s.loops)) {
      if (file !== entry) continue;
      steps.push({
        id: `losetup-d:${loop}`,
        why: `release ${loop}, which holds ${entry} open (as kubelet does on unmap)`,
        argv: ['losetup', '-d', `/dev/${loop}`],
        effect: { kind: 'detach-loop', loop },
        timeoutMs: TIMEOUTS.umount,
        preconditions: [pre('loop-backs', `${loop} is still backed by ${entry}`, loop, entry), noPods],
        doneIf: [pre('loop-not-backing', `${loop} no longer backs ${entry}`, loop, entry)],
      });
    }
    if (s.mounts.some((m) => m.mountPoint === entry)) {
      addUnique(plan.blastRadius.mounts, entry);
      steps.push({
        id: `umount:${entry}`,
        why: `unmount the bind mount of the device node for pod ${uid} (as kubelet does on unmap)`,
        argv: ['umount', entry],
        effect: { kind: 'unmount', path: entry },
        timeoutMs: TIMEOUTS.umount,
        preconditions: [pre('mounted', `${entry} is mounted`, entry), noPods],
        doneIf: [pre('not-mounted', `${entry} is not mounted`, entry)],
      });
    }
    steps.push({
      id: `unlink:${entry}`,
      why: `remove the empty per-pod entry ${uid} left by the bind mount (as kubelet does on unmap)`,
      fs: { op: 'unlink', path: entry },
      effect: { kind: 'unlink', path: entry },
      preconditions: [
        pre('not-mounted', `${entry} is not mounted`, entry),
        pre('empty-file', `${entry} is an empty regular file`, entry),
      ],
      doneIf: [pre('path-absent', `${entry} is gone`, entry)],
    });
  }
  return steps;
}
