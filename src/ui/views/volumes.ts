/** The Volumes view (3): kubelet's in-tree iSCSI volumes, then the CSI drivers' volumes. */
import { metadataSourceWord, nodeProblems } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { nodeIqnPrefix, volumeDirLabel } from '../iqn-prefix.js';
import { csiVolumeRows } from './csi-rows.js';
import { defineDetailView } from './detail-pane.js';
import { OK_PROBLEM, problemCell } from './problem-cell.js';
import { fromSnapshot, fromStatus } from './view.js';
import { volumeDetailLines } from './volume-detail.js';

/**
 * At 80 columns MODE and LUN drop first (the LUN is in the dir name, `…-lun-1`); the dir (its name
 * below kubelet's iscsi plugin dir, volumeDirLabel) is cut at its start on a part boundary, so
 * what tells volumes apart (`…:metrics-tsdb-lun-1`) stays, and PROBLEMS grows first, so what is
 * wrong stays on the row.
 */
export const VOLUME_COLUMNS: readonly Column[] = [
  { id: 'path', title: 'GLOBAL DIR', width: 20, grow: 2, elide: 'start' },
  { id: 'mode', title: 'MODE', width: 5, hideBelow: 100 },
  { id: 'lun', title: 'LUN', width: 3, align: 'right', hideBelow: 100 },
  { id: 'mounted', title: 'MOUNTED', width: 7 },
  // In-tree: where kubelet's metadata came from; CSI: the driver (`csi-driver-iscsi` is 16 long).
  { id: 'meta', title: 'METADATA', width: 16, hideBelow: 120 },
  { id: 'sids', title: 'SIDS', width: 7 },
  { id: 'pods', title: 'PODS', width: 4, align: 'right' },
  { id: 'problems', title: 'PROBLEMS', width: 20, grow: 3 },
];

export function volumeRows(snap: Snapshot): TableRow[] {
  return [...inTreeVolumeRows(snap), ...csiVolumeRows(snap)];
}

function inTreeVolumeRows(snap: Snapshot): TableRow[] {
  const problems = nodeProblems(snap).volumes;
  const prefix = nodeIqnPrefix(snap);
  return snap.kubelet.volumes.map((v) => {
    const tail = v.path.startsWith(snap.kubelet.root) ? v.path.slice(snap.kubelet.root.length + 1) : v.path;
    const p = problemCell(problems.get(v.path) ?? OK_PROBLEM);
    return {
      key: v.path,
      scope: 'volume' as const,
      label: `volume ${tail.split('/').pop() ?? tail}`,
      cells: [
        volumeDirLabel(v.path, prefix),
        v.mode === 'filesystem' ? 'fs' : 'block',
        v.lun,
        v.mounted ? 'yes' : 'no',
        metadataSourceWord(v.metadataSource),
        v.sessions.join(',') || '-',
        String(v.pods.length),
        p.text,
      ],
      tones: [
        undefined,
        undefined,
        undefined,
        v.mounted ? 'ok' : 'dim',
        v.metadataSource === 'hidden' ? 'warn' : 'dim',
        v.sessions.length ? undefined : 'warn',
        undefined,
        p.tone,
      ],
      fields: {
        path: v.path,
        mode: v.mode,
        iqn: v.iqn,
        portal: v.portal,
        lun: v.lun,
        mounted: v.mounted ? 'yes' : 'no',
        problems: p.field,
        pods: v.pods.join(','),
      },
      sort: {
        path: tail,
        mode: v.mode,
        lun: Number(v.lun),
        mounted: v.mounted ? 1 : 0,
        pods: v.pods.length,
        problems: p.sort,
        problem: p.sort,
      },
    };
  });
}

export const volumesView = defineDetailView({
  id: 'volumes',
  columns: VOLUME_COLUMNS,
  rows: fromSnapshot(volumeRows),
  detail: { lines: volumeDetailLines, empty: 'no kubelet iSCSI or CSI volumes' },
  // A CSI row's key is `csi:<staging or first publish path>` (csi-rows.ts).
  json: fromStatus((row) => ({ kind: 'volume', path: row.key.replace(/^csi:/, '') })),
});
