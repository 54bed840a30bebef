/**
 * Plan-time side of discovery's node records. SendTargets discovery writes a node record for every
 * target the portal lists (kubernetes pkg/volume/iscsi/iscsi_util.go AttachDisk runs `--discover`;
 * open-iscsi usr/iscsiadm.c do_software_sendtargets adds one record per target and portal in the
 * reply), each with iscsid.conf's node.startup — `automatic` on many distributions, so every
 * unused target logs in at the next boot (synology-csi#138). The attach plan names those records,
 * deletes the ones it created and does not use, and on failure rolls back what it created.
 */

import { nodeDeleteArgv } from '../iscsiadm/argv.js';
import type { Snapshot } from '../model.js';
import { fingerprintText } from '../text/fingerprint.js';
import type { AttachRecordsPlan } from './attach-types.js';
import { recordKey } from './lookup.js';
import type { Plan } from './types.js';

/**
 * Adds the tidy step (after the last portal's login) and the rollback description; lists the
 * records a discovery run beforehand (the wizard's) listed, when known.
 */
export function planDiscoveryRecords(
  plan: Plan,
  s: Snapshot,
  spec: AttachRecordsPlan,
  discovered: readonly { portal: string; iqn: string }[] | undefined,
): void {
  plan.rollback = spec;
  if (spec.discoveryPortals.length === 0) return;
  const existing = new Set(s.nodeRecords.map(recordKey));
  const used = new Set(
    spec.loginPortals.map((p) => recordKey({ targetIqn: spec.iqn, portal: p, iface: spec.iface })),
  );
  const created = (discovered ?? [])
    .map((d) => recordKey({ targetIqn: d.iqn, portal: d.portal, iface: spec.iface }))
    .filter((k) => !existing.has(k));
  const unused = created.filter((k) => !used.has(k));
  for (const k of used)
    plan.blastRadius.nodeRecords.push(
      `${fingerprintText(k)} (used: node.startup=manual, node.session.scan=manual)`,
    );
  for (const k of unused)
    plan.blastRadius.nodeRecords.push(`${fingerprintText(k)} (created by discovery, deleted after login)`);
  const listed = discovered
    ? unused.length > 0
      ? `: ${unused.map((k) => k.split('|').slice(0, 2).join(' @ ')).join(', ')}`
      : ': none besides the one used'
    : ` (every other target ${spec.discoveryPortals.join(', ')} lists)`;
  plan.steps.push({
    id: 'tidy-discovered',
    why: `delete the node records discovery created that this attach does not use${listed}, so none logs in at boot with iscsid.conf's node.startup; records that existed before the attach are not touched (${existing.size} now); a delete that fails falls back to node.startup=manual`,
    argv: nodeDeleteArgv('<portal>', '<each unused discovered target>', spec.iface),
    // Each record found is checked by the guard right before its delete (or its startup=manual).
    effect: { kind: 'at-apply', effects: ['record-delete', 'record-update'] },
    preconditions: [],
    dynamic: { kind: 'tidy-discovered', iqn: spec.iqn, iface: spec.iface, loginPortals: spec.loginPortals },
  });
}

/** The plan's one line about failure: what is rolled back, or that it is kept. */
export function rollbackNote(spec: AttachRecordsPlan): string {
  const what = `its sessions, the node records it created${spec.clone ? `, iface ${spec.clone}` : ''} and the kubelet dir it made`;
  return spec.keep
    ? `on failure: --keep-on-failure leaves ${what} on the node for inspection`
    : `on failure: ${what} are removed again (--keep-on-failure keeps them)`;
}
