import type { Host } from '../host/host.js';
import { parseKeyValues } from '../iscsiadm/record.js';

/** open-iscsi's node-wide defaults; new node records copy them at discovery/creation time. */
export const ISCSID_CONF = '/etc/iscsi/iscsid.conf';

/**
 * Parses iscsid.conf (`key = value`, `#` comments). Unlike `-o show` output it may be hand-edited
 * as `key=value`, so the spaces are optional; the last assignment wins, as in open-iscsi's
 * idbm_recinfo_config. Callers never copy `*.password*` values anywhere (CHAP).
 */
function parseIscsidConf(text: string): Map<string, string> {
  return parseKeyValues(text, '=');
}

/** iscsid.conf as a map, or undefined when the host has none. */
export function readIscsidConf(host: Host): Map<string, string> | undefined {
  const text = host.readText(ISCSID_CONF);
  return text === undefined ? undefined : parseIscsidConf(text);
}
