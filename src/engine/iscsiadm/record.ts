/**
 * Parser for `iscsiadm ... -o show` record output (iface and node records):
 * `# BEGIN RECORD <version>`, `key = value` lines (`<empty>` when unset, `********` when masked),
 * `# END RECORD` (open-iscsi usr/idbm.c idbm_print; captures iface-default-show.txt, node-show.txt).
 */

/** Marker iscsiadm prints for an unset value (usr/iscsi_settings.h UNKNOWN_VALUE). */
const EMPTY_VALUE = '<empty>';

/**
 * open-iscsi's `key<sep>value` lines (records, iscsid.conf): blank and `#` lines skipped, key and
 * value trimmed, the last assignment of a key wins.
 */
export function parseKeyValues(text: string, sep: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf(sep);
    if (eq <= 0) continue;
    out.set(line.slice(0, eq).trim(), line.slice(eq + sep.length).trim());
  }
  return out;
}

/** All `key = value` pairs of a record; `<empty>` becomes ''. */
export function parseRecord(text: string): Map<string, string> {
  const out = parseKeyValues(text, ' = ');
  for (const [k, v] of out) if (v === EMPTY_VALUE) out.set(k, '');
  return out;
}

/**
 * kubelet's extractTransportname (docs/kubelet-iscsi.md#attachdisk step 1): regex `iface.transport_name = (.*)\n`;
 * `<empty>` means tcp; no match means '' (and AttachDisk later fails "could not parse iface file").
 */
export function transportName(text: string): string {
  const m = /iface\.transport_name = (.*)\n/.exec(text);
  if (!m) return '';
  const v = m[1]!.trim();
  return v === EMPTY_VALUE ? 'tcp' : v;
}

/**
 * kubelet's parseIscsiadmShow for cloneIface (docs/kubelet-iscsi.md#attachdisk step 2): keep `iface.*` lines without `<empty>`,
 * each must be exactly `key = value` (three whitespace fields), skip `iface.iscsi_ifacename`.
 * Throws like kubelet ("invalid iface setting") on a malformed line.
 */
export function ifaceCloneParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('iface.') || line.includes(EMPTY_VALUE)) continue;
    const fields = line.split(/\s+/);
    if (fields.length !== 3 || fields[1] !== '=') throw new Error(`invalid iface setting: ${line}`);
    if (fields[0] === 'iface.iscsi_ifacename') continue;
    params.set(fields[0]!, fields[2]!);
  }
  return params;
}
