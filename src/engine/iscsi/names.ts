/**
 * iSCSI name validation. Forms (RFC 3720 section 3.2.6.3, https://www.rfc-editor.org/rfc/rfc3720
 * and RFC 7143 section 4.2.7.2): `iqn.` names with a year-month and a reversed domain, `eui.` + 16
 * hex digits, `naa.` + 16 or 32 hex digits (RFC 3980, https://www.rfc-editor.org/rfc/rfc3980).
 * At most 223 bytes of UTF-8 (RFC 3720 section 3.2.6.1).
 *
 * Characters (RFC 3720 section 3.2.6.2 and its stringprep profile, RFC 3722 section 6 "Prohibited
 * Output", https://www.rfc-editor.org/rfc/rfc3722): ASCII letters (upper case folds to lower),
 * digits, `-`, `.` and `:`; every other ASCII character is prohibited — space, `/`, `_`, `,`, `@` and
 * all controls among them — as are non-ASCII spaces, controls and format characters (bidi). Other
 * non-ASCII characters are allowed; here only letters, marks and digits (`\p{L}\p{M}\p{N}`), a
 * conservative reading of the profile's tables.
 *
 * An iSCSI name also builds kubelet paths (`<portal>-<iqn>-lun-<n>`), so `..` is refused as well,
 * though the RFC does not forbid it: no real target needs it and it reads as a parent-dir step.
 */

type IscsiNameKind = 'iqn' | 'eui' | 'naa';

const LABEL = '[a-z0-9]([a-z0-9-]*[a-z0-9])?';
const IQN = new RegExp(`^iqn\\.\\d{4}-(0[1-9]|1[0-2])\\.${LABEL}(\\.${LABEL})*(:.*)?$`, 'i');
const EUI = /^eui\.[0-9A-Fa-f]{16}$/;
const NAA = /^naa\.([0-9A-Fa-f]{16}|[0-9A-Fa-f]{32})$/;
/** RFC 3720 section 3.2.6.1: iSCSI names are at most 223 bytes (UTF-8). */
const MAX_ISCSI_NAME_BYTES = 223;
/** A character outside RFC 3722's allowed output (ASCII other than letters, digits, `-.:`; non-ASCII other than letters, marks, digits). */
const BAD_CHAR = /[^A-Za-z0-9.:\-\u0080-\u{10ffff}]|[^\p{ASCII}\p{L}\p{M}\p{N}]/u;

/** The kind of a valid iSCSI name, or undefined when it is not one. */
export function iscsiNameKind(name: string): IscsiNameKind | undefined {
  if (Buffer.byteLength(name, 'utf8') > MAX_ISCSI_NAME_BYTES) return undefined;
  if (BAD_CHAR.test(name) || name.includes('..')) return undefined;
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
  if (/[\p{Cc}\p{Cf}]/u.test(name)) return 'an iSCSI name contains no control or format characters';
  if (/\s/.test(name)) return 'an iSCSI name contains no whitespace';
  if (name.includes('/')) return "an iSCSI name contains no '/'";
  if (name.includes('..')) return "an iSCSI name contains no '..'";
  if (Buffer.byteLength(name, 'utf8') > MAX_ISCSI_NAME_BYTES)
    return `an iSCSI name is at most ${MAX_ISCSI_NAME_BYTES} bytes`;
  const bad = BAD_CHAR.exec(name)?.[0];
  if (bad !== undefined)
    return `an iSCSI name holds only letters, digits, '-', '.' and ':' (not ${JSON.stringify(bad)})`;
  const lower = name.toLowerCase();
  if (lower.startsWith('iqn.') && !IQN.test(name))
    return 'an iqn. name looks like iqn.YYYY-MM.reversed.domain[:suffix]';
  if (lower.startsWith('eui.') && !EUI.test(name)) return 'an eui. name is eui. followed by 16 hex digits';
  if (lower.startsWith('naa.') && !NAA.test(name))
    return 'a naa. name is naa. followed by 16 or 32 hex digits';
  if (!isValidIscsiName(name)) return 'an iSCSI name starts with iqn., eui. or naa.';
  return undefined;
}

/**
 * open-iscsi iface names: 1..64 characters (ISCSI_MAX_IFACE_LEN is 65 with the NUL, open-iscsi
 * usr/config.h). An iface name is a file in /etc/iscsi/ifaces and a kubelet path component
 * (`iface-<name>`), so only letters, digits and `._:-[]` (kubelet's clones are `<portal>:<volume>`).
 */
const MAX_IFACE_NAME_LENGTH = 64;

/** Why a string is not an acceptable iface name, or undefined when it is. */
export function ifaceNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the iface name is empty';
  if (name.length > MAX_IFACE_NAME_LENGTH)
    return `an iface name is at most ${MAX_IFACE_NAME_LENGTH} characters (open-iscsi)`;
  if (name.includes('..')) return "an iface name contains no '..'";
  if (!/^[A-Za-z0-9[][A-Za-z0-9._:[\]-]*$/.test(name))
    return 'an iface name starts with a letter, a digit or [ and holds only letters, digits and . _ : - [ ]';
  return undefined;
}
