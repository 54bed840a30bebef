/**
 * iSCSI name validation (RFC 3720 §3.2.6.3, RFC 7143 §4.2.7.2): `iqn.` names with a year-month and a
 * reversed domain, `eui.` + 16 hex digits, `naa.` + 16 or 32 hex digits. Names are at most 223 bytes.
 */

export type IscsiNameKind = 'iqn' | 'eui' | 'naa';

const IQN =
  /^iqn\.\d{4}-(0[1-9]|1[0-2])\.[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[^\s]*)?$/i;
const EUI = /^eui\.[0-9A-Fa-f]{16}$/;
const NAA = /^naa\.([0-9A-Fa-f]{16}|[0-9A-Fa-f]{32})$/;
/** RFC 3720 §3.2.6.1: iSCSI names are at most 223 bytes (UTF-8). */
export const MAX_ISCSI_NAME_BYTES = 223;

/** The kind of a valid iSCSI name, or undefined when it is not one. */
export function iscsiNameKind(name: string): IscsiNameKind | undefined {
  if (Buffer.byteLength(name, 'utf8') > MAX_ISCSI_NAME_BYTES) return undefined;
  if (IQN.test(name)) return 'iqn';
  if (EUI.test(name)) return 'eui';
  if (NAA.test(name)) return 'naa';
  return undefined;
}

/** True for a valid `iqn.`, `eui.` or `naa.` name. */
export function isValidIscsiName(name: string): boolean {
  return iscsiNameKind(name) !== undefined;
}

/** Why a string is not a valid iSCSI name (for UserError messages), or undefined when it is valid. */
export function iscsiNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the iSCSI name is empty';
  if (/\s/.test(name)) return 'an iSCSI name contains no whitespace';
  if (Buffer.byteLength(name, 'utf8') > MAX_ISCSI_NAME_BYTES)
    return `an iSCSI name is at most ${MAX_ISCSI_NAME_BYTES} bytes`;
  const lower = name.toLowerCase();
  if (lower.startsWith('iqn.') && !IQN.test(name))
    return 'an iqn. name looks like iqn.YYYY-MM.reversed.domain[:suffix]';
  if (lower.startsWith('eui.') && !EUI.test(name)) return 'an eui. name is eui. followed by 16 hex digits';
  if (lower.startsWith('naa.') && !NAA.test(name))
    return 'a naa. name is naa. followed by 16 or 32 hex digits';
  if (!isValidIscsiName(name)) return 'an iSCSI name starts with iqn., eui. or naa.';
  return undefined;
}
