/** The Volumes view (3): kubelet's in-tree iSCSI volumes, then the CSI drivers' volumes. */
import type { Snapshot } from '../../engine/model.js';
import type { Column, TableRow } from '../components/table-types.js';
import { csiVolumeRows } from './csi-rows.js';
import { defineView, fromSnapshot } from './view.js';

export const VOLUME_COLUMNS: readonly Column[] = [
  { id: 'path', title: 'GLOBAL DIR', width: 20, flex: true, middle: true },
  { id: 'mode', title: 'MODE', width: 5 },
  { id: 'lun', title: 'LUN', width: 3, align: 'right' },
  { id: 'mounted', title: 'MOUNTED', width: 7 },
  { id: 'meta', title: 'METADATA', width: 10, hideBelow: 100 },
  { id: 'sids', title: 'SIDS', width: 7 },
  { id: 'pods', title: 'PODS', width: 4, align: 'right' },
  { id: 'problems', title: 'PROBLEMS', width: 26, hideBelow: 80 },
];

export function volumeRows(snap: Snapshot): TableRow[] {
  return [...inTreeVolumeRows(snap), ...csiVolumeRows(snap)];
}

function inTreeVolumeRows(snap: Snapshot): TableRow[] {
  return snap.kubelet.volumes.map((v) => {
    const tail = v.path.startsWith(snap.kubelet.root) ? v.path.slice(snap.kubelet.root.length + 1) : v.path;
    return {
      key: v.path,
      scope: 'volume' as const,
      label: `volume ${tail.split('/').pop() ?? tail}`,
      cells: [
        tail,
        v.mode === 'filesystem' ? 'fs' : 'block',
        v.lun,
        v.mounted ? 'yes' : 'no',
        v.metadataSource,
        v.sessions.join(',') || '-',
        String(v.pods.length),
        v.problems.length ? `⚠ ${v.problems.join('; ')}` : '✓',
      ],
      tones: [
        undefined,
        undefined,
        undefined,
        v.mounted ? 'ok' : 'dim',
        v.metadataSource === 'hidden' ? 'warn' : 'dim',
        v.sessions.length ? undefined : 'warn',
        undefined,
        v.problems.length ? 'warn' : 'ok',
      ],
      fields: {
        path: v.path,
        mode: v.mode,
        iqn: v.iqn,
        portal: v.portal,
        lun: v.lun,
        mounted: v.mounted ? 'yes' : 'no',
        problems: v.problems.join(' '),
        pods: v.pods.join(','),
      },
      sort: { path: tail, mode: v.mode, lun: Number(v.lun), mounted: v.mounted ? 1 : 0, pods: v.pods.length },
    };
  });
}

export const volumesView = defineView({
  id: 'volumes',
  key: 3,
  aliases: ['v', 'kubelet', 'pv'],
  help: 'Kubelet iSCSI volumes',
  columns: VOLUME_COLUMNS,
  rows: fromSnapshot(volumeRows),
});
