/**
 * `status --json` and its parts: the one document the CLI prints (docs/status-schema.md) and, for
 * the console's `y`, the objects of that document one row stands for, each with its jq path. The
 * parts are the snapshot's own objects, never re-shaped, so `y` on a row and
 * `status --json | jq '<path>'` print the same object (for the snapshot the console shows).
 */
import type { Snapshot } from '../model.js';

/** The whole document `status --json` prints (one line). */
export function statusJson(snap: Snapshot): string {
  return JSON.stringify(snap);
}

/** One object of the status document and where it sits in it (a jq path). */
export interface StatusPart {
  path: string;
  value: unknown;
}

/** What a row of the console stands for in the status document. */
export type StatusRef =
  | { kind: 'session'; key: string }
  /** A (target, portal) pair: its sessions, the kubelet volumes that list it, kubelet's host map entry. */
  | { kind: 'target'; iqn: string; portal: string }
  | { kind: 'device'; key: string }
  | { kind: 'multipath'; name: string }
  /** An in-tree global dir, or a CSI volume's staging (else first publish) path. */
  | { kind: 'volume'; path: string }
  | { kind: 'record'; path: string }
  | { kind: 'iface'; path: string };

const at = <T>(list: readonly T[], path: string, pred: (x: T) => boolean): StatusPart[] =>
  list.flatMap((value, i) => (pred(value) ? [{ path: `${path}[${i}]`, value }] : []));

/** The objects of `status --json` a row stands for; empty when it is gone from this snapshot. */
export function statusParts(snap: Snapshot, ref: StatusRef): StatusPart[] {
  switch (ref.kind) {
    case 'session':
      return at(snap.sessions, '.sessions', (s) => s.key === ref.key);
    case 'target': {
      const hosts = snap.portalHostMap[ref.iqn]?.[ref.portal];
      return [
        ...at(snap.sessions, '.sessions', (s) => s.targetIqn === ref.iqn && s.portal === ref.portal),
        ...at(
          snap.kubelet.volumes,
          '.kubelet.volumes',
          (v) =>
            v.iqn === ref.iqn &&
            (v.portal === ref.portal || (v.metadata?.Portals ?? []).includes(ref.portal)),
        ),
        ...(hosts === undefined
          ? []
          : [
              {
                path: `.portalHostMap[${JSON.stringify(ref.iqn)}][${JSON.stringify(ref.portal)}]`,
                value: hosts,
              },
            ]),
      ];
    }
    case 'device':
      return snap.sessions.flatMap((s, i) =>
        at(s.devices, `.sessions[${i}].devices`, (d) => d.key === ref.key),
      );
    case 'multipath':
      return at(snap.multipath, '.multipath', (m) => m.name === ref.name);
    case 'volume':
      return [
        ...at(snap.kubelet.volumes, '.kubelet.volumes', (v) => v.path === ref.path),
        ...at(
          snap.csi?.volumes ?? [],
          '.csi.volumes',
          (v) => (v.stagingPath ?? v.publish[0]?.path) === ref.path,
        ),
      ];
    case 'record':
      return at(snap.nodeRecords, '.nodeRecords', (r) => r.path === ref.path);
    case 'iface':
      return at(snap.ifaces, '.ifaces', (x) => x.path === ref.path);
  }
}
