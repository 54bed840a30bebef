/**
 * What a CSI volume and a driver's node plugin amount to, in one place for every surface: `status`
 * text, `status --json` consumers reading the docs, the console's Volumes view and session detail,
 * and doctor's csi.drivers check (docs/csi-drivers.md "How the console decides").
 */
import type { CsiDriverState, CsiVolume, DeviceClaim } from '../../model.js';
import { nodePluginProcess } from './node-plugins.js';
import { driverLabel } from './paths.js';

/** The name an admin knows the volume by: PV, else the volume handle, else its first dir. */
export function csiVolumeName(v: CsiVolume): string {
  return v.pv ?? v.volumeHandle ?? v.stagingPath ?? v.publish[0]?.path ?? '(unnamed)';
}

/** Mounted at its staging path or at any publish path (a block volume's pod link counts). */
export function csiVolumeMounted(v: CsiVolume): boolean {
  return v.stagingMounted || v.publish.some((p) => p.mounted);
}

/** Pod UIDs with a publish dir of the volume, once each. */
export function csiVolumePods(v: CsiVolume): string[] {
  return [...new Set(v.publish.map((p) => p.podUid))];
}

/** Staging path first, then the publish paths. */
export function csiVolumePaths(v: CsiVolume): string[] {
  const out: string[] = [];
  if (v.stagingPath) out.push(v.stagingPath);
  for (const p of v.publish) out.push(p.path);
  return out;
}

export type CsiClaimState = 'in-use' | 'claimed' | 'no-session';

/**
 * The volume's claim state: mounted (in use); kubelet's dirs claim a session but nothing is mounted
 * (NodeStage/NodePublish in flight, a pod restarting, or a driver leftover); or no iSCSI session on
 * this node belongs to it (not logged in yet, another transport, or kubelet's dirs are a leftover).
 */
export function csiClaimState(v: CsiVolume): { state: CsiClaimState; text: string } {
  if (csiVolumeMounted(v)) return { state: 'in-use', text: 'in use (mounted)' };
  if (v.sessions.length > 0)
    return {
      state: 'claimed',
      text: 'claimed, not mounted (NodeStage/NodePublish in flight, or a driver leftover)',
    };
  return {
    state: 'no-session',
    text: 'not mounted, no iSCSI session of it on this node (not logged in yet, or a leftover kubelet dir)',
  };
}

/** "node plugin running: …" / "NOT running (no … process)" / "not known", as doctor and status say it. */
export function nodePluginText(d: CsiDriverState): string {
  if (d.running === undefined) return 'node plugin process not known to the console';
  if (d.running) return `node plugin running: ${d.processes.join(', ')}`;
  return `node plugin NOT running (no ${nodePluginProcess(d.name) ?? 'node-plugin'} process)`;
}

/** One owner of a LUN, short: `in-tree plugin`, `csi-driver-iscsi PV pv-x`, `Longhorn volume v (driver-target)`. */
export function deviceClaimText(c: DeviceClaim): string {
  if (c.owner === 'in-tree') return `in-tree plugin${c.mounted ? '' : ' (not mounted)'}`;
  const what = c.pv ? ` PV ${c.pv}` : c.volumeHandle ? ` volume ${c.volumeHandle}` : '';
  const via = c.owner === 'csi' ? '' : c.owner === 'driver-file' ? ' (its file)' : ' (its target)';
  return `${driverLabel(c.driver)}${what}${via}${c.mounted ? '' : ' (not mounted)'}`;
}
