/**
 * Fingerprints as a person reads them. Sessions, LUNs and node records are keyed
 * `target|portal|iface` and `target|portal|iface|lun` (src/engine/model.ts): exact and stable, the
 * engine's identity for the journal, the guard and events. On screen they read
 * `target @ portal (iface)` and `target @ portal (iface) LUN n`; the pipe key stays internal.
 */

/**
 * `iqn… @ 10.0.0.10:3260 (default) LUN 1` for a LUN key, `iqn… @ 10.0.0.10:3260 (default)` for a
 * session or record key; any other text (a path, a WWID, a pod) as it is. Split from the right: a
 * target name is the node's and may hold anything, the portal, iface and LUN may not hold `|`.
 */
export function fingerprintText(key: string): string {
  const parts = key.split('|');
  if (parts.length < 3) return key;
  const lun = parts.length >= 4 && /^\d+$/.test(parts[parts.length - 1]!) ? parts.pop() : undefined;
  const iface = parts.pop()!;
  const portal = parts.pop()!;
  const target = parts.join('|');
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:|[\]]+):\d+$/.test(portal) || iface === '' || target === '') return key;
  return `${target} @ ${portal} (${iface})${lun === undefined ? '' : ` LUN ${lun}`}`;
}
