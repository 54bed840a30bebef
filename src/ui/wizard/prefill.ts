/**
 * A new wizard starts from what the cursor is on: a session or a node record gives portal, target
 * and iface; a device gives its LUN too; a kubelet volume gives everything its iscsi.json (or its
 * dir name) says, including the volume name and mode. The rows act on fingerprints
 * (`target|portal|iface[|lun]`, a volume's path), so nothing is parsed from display text.
 */

import type { Selection } from '../../app/backend.js';
import { decimalOf } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { DispatchContext } from '../context.js';

interface Prefill {
  fields: Record<string, string>;
  /** What it came from ("session 3"), for the status line. */
  from?: string;
}

function fromKey(key: string): Record<string, string> | undefined {
  const [iqn, portal, iface, lun] = key.split('|');
  if (!iqn || !portal || !iface) return undefined;
  return {
    iqn,
    targetPortal: portal,
    iscsiInterface: iface,
    ...(lun !== undefined && decimalOf(lun) !== undefined ? { lun } : {}),
  };
}

function fromVolume(s: Snapshot, path: string): Record<string, string> | undefined {
  const v = s.kubelet.volumes.find((x) => x.path === path);
  if (!v) return undefined;
  const m = v.metadata;
  return {
    iqn: m?.Iqn ?? v.iqn,
    targetPortal: m?.Portals?.[0] ?? v.portal,
    portals: (m?.Portals ?? []).slice(1).join(','),
    iscsiInterface: m?.InitIface ?? v.iface,
    lun: m?.Lun ?? v.lun,
    ...(m?.VolName ? { volName: m.VolName } : {}),
    ...(m?.InitiatorName ? { initiatorName: m.InitiatorName } : {}),
    block: v.mode === 'block' ? 'true' : 'false',
  };
}

/** `sel`: the row an action would apply to (dispatch.ts selectionsFor), if any. */
export function prefillFromSelection(ctx: DispatchContext, sel: Selection | undefined): Prefill {
  if (!sel) return { fields: {} };
  const snap = ctx.backend.store.getState().snapshot;
  const fields =
    sel.scope === 'volume'
      ? snap && fromVolume(snap, sel.key)
      : sel.scope === 'session' || sel.scope === 'device' || sel.scope === 'record'
        ? fromKey(sel.key)
        : undefined;
  return fields ? { fields, from: `the selected ${sel.label}` } : { fields: {} };
}
