/**
 * The names step effects give the records they touch (types.ts StepEffect): a node record is its
 * fingerprint `target|portal|iface` (the same as its session's), a SendTargets discovery record
 * `sendtargets|portal|iface` (it names no target).
 */
import { recordKey } from './lookup.js';

/** The discovery record of a portal through an iface. */
export function discoveryRecordKey(portal: string, iface: string): string {
  return `sendtargets|${portal}|${iface}`;
}

/** The record a CHAP step or an iscsiadm record command targets. */
export function recordOf(t: {
  scope: 'node' | 'discovery';
  iqn: string;
  portal: string;
  iface: string;
}): string {
  return t.scope === 'node'
    ? recordKey({ targetIqn: t.iqn, portal: t.portal, iface: t.iface })
    : discoveryRecordKey(t.portal, t.iface);
}
