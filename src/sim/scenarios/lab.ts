import type { KubeletAttachOptions, KubeletVolumeState } from '../kubelet.js';
import type { Simulator } from '../simulator.js';
import type { LunSpec, TargetSpec } from '../types.js';

/** Portals of the demo SAN: two controllers (A, B) for multipath, a third array (C), IPv6, loopback. */
export const PORTAL_A = '10.0.0.10:3260';
export const PORTAL_B = '10.0.0.11:3260';
export const PORTAL_C = '10.0.0.12:3260';
export const PORTAL_V6 = '[fd00:10::10]:3260';
export const PORTAL_LOCAL = '127.0.0.1:3260';
/** A second loopback portal whose SendTargets needs discovery CHAP. */
export const PORTAL_LOCAL_GUARDED = '127.0.0.2:3260';

const GiB = 1024 ** 3;

/** A target with data LUNs 1..n of the given sizes (GiB); tgt adds LUN 0 itself. */
export function target(
  name: string,
  portals: string[],
  sizesGiB: number[],
  extra: Partial<TargetSpec> = {},
): TargetSpec {
  const luns: LunSpec[] = sizesGiB.map((g, i) => ({ lun: i + 1, sizeBytes: g * GiB }));
  return { iqn: `iqn.2026-01.lab.example:${name}`, portals, luns, ...extra };
}

/** A deterministic pod UID per name (UUID-shaped like the API server's). */
export function podUid(name: string): string {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const a = hex(h);
  const b = hex(Math.imul(h, 2654435761));
  const c = hex(Math.imul(h ^ 0x5bd1e995, 40503));
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-8${c.slice(1, 4)}-${c}${a.slice(0, 4)}`;
}

/** Adds a target and has kubelet attach its LUN 1 for one pod. */
export async function volume(
  sim: Simulator,
  t: TargetSpec,
  pod: string,
  options: Partial<KubeletAttachOptions> & { namespace?: string } = {},
): Promise<KubeletVolumeState> {
  const { namespace, ...o } = options;
  const spec = sim.addTarget(t);
  return sim.kubeletAttach({
    portals: spec.portals,
    iqn: spec.iqn,
    lun: 1,
    volName: `pv-${t.iqn.split(':').pop()}`,
    podUIDs: [sim.startPod(podUid(pod), pod, namespace)],
    ...o,
  });
}

/** Logs a target in by hand (sendtargets, login, as an admin or a CSI driver does) and makes an ext4 on its LUN 1. */
export async function loginAndFormat(sim: Simulator, t: TargetSpec): Promise<string> {
  const spec = sim.addTarget(t);
  const portal = spec.portals[0]!;
  await sim.run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', portal]);
  await sim.run(['iscsiadm', '-m', 'node', '-T', spec.iqn, '-p', portal, '--login']);
  const dev = sim.kernel.findSessions((s) => s.iqn === spec.iqn)[0]!;
  const sd = [...sim.kernel.sdDevices()].find(([, v]) => v.session === dev)![0];
  await sim.run(['mkfs.ext4', '-F', '-q', `/dev/${sd}`]);
  return sd;
}

/** The admin logged a volume in by hand and mounted it outside kubelet (a foreign session). */
export async function foreignMount(sim: Simulator, t: TargetSpec, mountpoint: string): Promise<void> {
  const sd = await loginAndFormat(sim, t);
  sim.tree.dir(mountpoint);
  await sim.run(['mount', `/dev/${sd}`, mountpoint]);
}
