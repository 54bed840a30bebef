/**
 * Volumes view rows for CSI volumes (docs/csi-drivers.md): one per volume kubelet's CSI plugin laid out, in the
 * Volumes view's columns — path (staging dir, else the first publish dir), mode, LUN (`-`), mounted,
 * the driver in METADATA, the sessions it claims, its pods, problems. Filter fields add driver, pv,
 * handle, staging and publish paths. `C` cleans a volume's leftover dirs up (scope `csi-volume`).
 */

import {
  csiVolumeMounted,
  csiVolumeName,
  csiVolumePath,
  csiVolumePods,
  driverLabel,
  nodeProblems,
} from '../../app/domain.js';
import type { CsiVolume, Snapshot } from '../../engine/model.js';
import type { TableRow } from '../components/table-types.js';
import { OK_PROBLEM, problemCell } from './problem-cell.js';
import { csiRowKey } from './volume-detail.js';

function tailOf(root: string, p: string): string {
  return p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p;
}

function csiVolumeRow(snap: Snapshot, v: CsiVolume): TableRow {
  const p = problemCell(nodeProblems(snap).csiVolumes.get(csiVolumePath(v)) ?? OK_PROBLEM);
  const root = snap.kubelet.root;
  const main = csiVolumePath(v);
  const tail = tailOf(root, main);
  const mounted = csiVolumeMounted(v);
  const pods = csiVolumePods(v);
  const name = csiVolumeName(v);
  return {
    key: csiRowKey(v),
    // Cleanup of its leftover kubelet dirs (the planner of `cleanup <csi-volume-path>`).
    scope: 'csi-volume',
    actionKey: main,
    label: `CSI volume ${name}`,
    cells: [
      // The PV (else the handle) first: at 80 columns every CSI dir reads `plugins/kuber…/globalmount`.
      name === tail ? tail : `${name} ${tail}`,
      v.mode === 'filesystem' ? 'fs' : 'block',
      '-',
      mounted ? 'yes' : 'no',
      // The driver as admins call it, whole (the column is sized for the longest label).
      driverLabel(v.driver),
      v.sessions.join(',') || '-',
      String(pods.length),
      p.text,
    ],
    tones: [
      undefined,
      undefined,
      'dim',
      mounted ? 'ok' : 'dim',
      'accent',
      v.sessions.length ? undefined : 'warn',
      undefined,
      p.tone,
    ],
    fields: {
      path: main,
      mode: v.mode,
      driver: v.driver,
      pv: v.pv ?? '',
      handle: v.volumeHandle ?? '',
      staging: v.stagingPath ?? '',
      publish: v.publish.map((p) => p.path).join(' '),
      mounted: mounted ? 'yes' : 'no',
      problems: p.field,
      pods: pods.join(','),
    },
    sort: {
      path: tail,
      mode: v.mode,
      lun: -1,
      mounted: mounted ? 1 : 0,
      pods: pods.length,
      problems: p.sort,
      problem: p.sort,
    },
  };
}

export function csiVolumeRows(snap: Snapshot): TableRow[] {
  return (snap.csi?.volumes ?? []).map((v) => csiVolumeRow(snap, v));
}
