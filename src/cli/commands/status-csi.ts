/**
 * The `status` text's CSI part (docs/csi-drivers.md): every CSI volume kubelet laid out (driver, PV,
 * volume handle, staging and publish paths, pods, claim state, the sessions it claims), the drivers
 * with their node plugins, and the drivers' own files — the same facts as `status --json`'s `csi`
 * and the console's Volumes view. Called with a snapshot safeDeep already made printable; driver
 * files' CHAP settings are never in the snapshot (only `chap: true`), so never here either.
 */
import type { Snapshot } from '../../engine/model.js';
import {
  type CsiClaimState,
  csiClaimState,
  csiVolumeName,
  csiVolumePods,
  nodePluginText,
} from '../../engine/snapshot/csi/describe.js';
import { driverLabel } from '../../engine/snapshot/csi/paths.js';
import { type ANSI, type Paint, table } from './status-table.js';

const STATE_COLOR: Record<CsiClaimState, keyof typeof ANSI> = {
  'in-use': 'green',
  claimed: 'cyan',
  'no-session': 'yellow',
};

/** `Trident: csi.trident.netapp.io`; a driver whose label is its name once. */
function driverName(driver: string): string {
  if (!driver) return 'driver unknown';
  const label = driverLabel(driver);
  return label.includes(driver) ? label : `${label}: ${driver}`;
}

/** Lines of the CSI section; none when the node shows no CSI driver, volume or driver file. */
export function formatCsiSection(snap: Snapshot, paint: Paint): string[] {
  const csi = snap.csi;
  if (!csi) return [];
  const out: string[] = [''];
  out.push(paint(`CSI VOLUMES (${csi.volumes.length})`, 'bold'));
  if (csi.volumes.length === 0) out.push('  none');
  else {
    const states = csi.volumes.map((v) => csiClaimState(v));
    const rows = csi.volumes.map((v, i) => [
      driverLabel(v.driver || '?'),
      v.pv ?? '-',
      v.volumeHandle ?? '-',
      v.mode === 'block' ? 'block' : 'fs',
      states[i]!.state === 'in-use' ? 'yes' : 'no',
      v.sessions.join(',') || '-',
      String(csiVolumePods(v).length),
      states[i]!.state,
    ]);
    out.push(
      ...table(
        ['DRIVER', 'PV', 'HANDLE', 'MODE', 'MOUNTED', 'SESSIONS', 'PODS', 'STATE'],
        rows,
        (r, c) => (c === 7 ? STATE_COLOR[states[r]!.state] : undefined),
        paint,
      ),
    );
    out.push('');
    csi.volumes.forEach((v, i) => {
      out.push(`CSI volume ${csiVolumeName(v)} (${driverName(v.driver)}, ${v.mode}): ${states[i]!.text}`);
      if (v.volumeHandle) out.push(`  - volume handle ${v.volumeHandle}`);
      if (v.stagingPath)
        out.push(`  - staging ${v.stagingPath} (${v.stagingMounted ? 'mounted' : 'not mounted'})`);
      for (const p of v.publish)
        out.push(`  - publish ${p.path} → pod ${p.podUid} (${p.mounted ? 'mounted' : 'not mounted'})`);
      for (const sid of v.sessions) {
        const s = snap.sessions.find((x) => x.sid === sid);
        out.push(
          s
            ? `  - session ${sid} ${s.targetIqn} @ ${s.portal || '?'} (${s.verdict}, ${s.health})`
            : `  - session ${sid}`,
        );
      }
      for (const p of v.problems) out.push(`  ! ${paint(p, 'yellow')}`);
      const path = v.stagingPath ?? v.publish[0]?.path;
      if (states[i]!.state === 'no-session' && v.mode === 'filesystem' && path)
        out.push(
          `  - a leftover? \`iscsi-console cleanup ${path}\` removes kubelet's dirs (refused while anything mounts it)`,
        );
    });
  }
  out.push('');
  out.push(paint(`CSI DRIVERS (${csi.drivers.length})`, 'bold'));
  if (csi.drivers.length === 0) out.push('  none');
  for (const d of csi.drivers) {
    out.push(
      `  ${d.name} (${driverLabel(d.name)}): ${d.registered ? 'registered' : 'NOT registered'}; ${nodePluginText(d)}`,
    );
  }
  if (csi.driverFiles.length > 0) {
    out.push('');
    out.push(paint(`CSI DRIVER FILES (${csi.driverFiles.length})`, 'bold'));
    for (const f of csi.driverFiles) {
      const what = [
        f.targetIqn ? `target ${f.targetIqn} @ ${f.portals.join(', ') || '?'}` : undefined,
        f.lun === undefined ? undefined : `LUN ${f.lun}`,
        f.volumeId ? `volume ${f.volumeId}` : undefined,
        f.devices.length > 0 ? `devices ${f.devices.join(',')}` : undefined,
        f.chap ? 'CHAP configured (never shown)' : undefined,
      ].filter(Boolean);
      out.push(`  ${f.path}: ${f.kind}${what.length ? `, ${what.join(', ')}` : ''}`);
    }
  }
  return out;
}
