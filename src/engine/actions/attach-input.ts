/**
 * The one check of an attach input, whatever it came from (flags, a Pod/PV manifest and its
 * Secret, the console's wizard): planAttach calls it first, the manifest reader calls it on what it
 * read, and the wizard shows its per-field answers inline. The names checked here build kubelet
 * paths (`<root>/plugins/kubernetes.io/iscsi/iface-<iface>/<portal>-<iqn>-lun-<lun>`), open-iscsi
 * record files and argv, so a bad one is refused before anything is planned (exit 2).
 */
import { UserError } from '../errors.js';
import { parseLun } from '../iscsi/lun.js';
import { ifaceNameProblem, iscsiNameProblem } from '../iscsi/names.js';
import { portalProblem } from '../iscsi/portal.js';
import type { AttachInput } from './attach-types.js';

export type AttachField =
  | 'volName'
  | 'portals'
  | 'iqn'
  | 'lun'
  | 'initIface'
  | 'initiatorName'
  | 'fsType'
  | 'mountOptions';

/** kubelet's VolName: a PV name (DNS subdomain, 253) or a Pod volume name (DNS label). */
const VOL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const CONTROL = /[\p{Cc}\p{Cf}]/u;
/** CHAP usernames and secrets fill AUTH_STR_MAX_LEN (256) buffers with their NUL (open-iscsi usr/auth.h). */
const MAX_CHAP_VALUE_BYTES = 255;

/** `"value"` as it appears in a message: exact here; text sinks make its controls visible (safeText). */
const q = (v: string) => `"${v}"`;

interface FieldProblem {
  /** The value as given (quoted in the CLI message). */
  value: string;
  /** Why it is refused (what the wizard shows beside the field). */
  problem: string;
}

const LABEL: Record<AttachField, string> = {
  volName: 'volume name',
  portals: 'portal',
  iqn: 'target name',
  lun: 'LUN',
  initIface: 'iface name',
  initiatorName: 'initiator name',
  fsType: 'fsType',
  mountOptions: 'mount option',
};

/** Why each field of `i` is not acceptable (empty when all are). */
export function attachInputProblems(i: AttachInput): Partial<Record<AttachField, FieldProblem>> {
  const out: Partial<Record<AttachField, FieldProblem>> = {};
  const bad = (field: AttachField, value: unknown, problem: string | undefined) => {
    if (problem !== undefined && !out[field]) out[field] = { value: String(value), problem };
  };
  bad(
    'volName',
    i.volName,
    VOL_NAME.test(i.volName) && i.volName.length <= 253 && !i.volName.includes('..')
      ? undefined
      : 'a PV or volume name: letters, digits, . _ - (at most 253)',
  );
  if (i.portals.length === 0) bad('portals', '', 'attach needs at least one portal');
  for (const p of i.portals) bad('portals', p, portalProblem(p));
  bad('iqn', i.iqn, iscsiNameProblem(i.iqn));
  try {
    parseLun(i.lun);
  } catch (e) {
    bad('lun', i.lun, (e as UserError).hint ?? (e as Error).message);
  }
  bad('initIface', i.initIface, ifaceNameProblem(i.initIface));
  if (i.initiatorName !== undefined) bad('initiatorName', i.initiatorName, iscsiNameProblem(i.initiatorName));
  bad('fsType', i.fsType, /^[a-z0-9]{1,32}$/.test(i.fsType) ? undefined : 'a filesystem type: a-z, 0-9');
  for (const o of i.mountOptions)
    bad(
      'mountOptions',
      o,
      o === '' || /[\s,]/.test(o) || CONTROL.test(o) ? 'one option per flag, no spaces or commas' : undefined,
    );
  return out;
}

/** Throws a UserError (exit 2) for the first unacceptable field; `source` names the manifest. */
export function validateAttachInput(i: AttachInput, source?: string): void {
  const first = Object.entries(attachInputProblems(i))[0];
  if (!first) return;
  const [field, { value, problem }] = first as [AttachField, FieldProblem];
  throw new UserError(
    `${source ? `${source}: ` : ''}invalid ${LABEL[field]} ${q(value)}: ${problem}`,
    'iSCSI names: iqn.YYYY-MM.reversed.domain[:name], eui.<16 hex> or naa.<16|32 hex>; portals ADDR[:PORT], IPv6 as [ADDR]:PORT',
  );
}

/**
 * Why a set of CHAP values (Secret data, wizard fields) is not acceptable: one line per key,
 * naming the key, never the value. A value is 1-255 bytes with no control characters (a newline
 * would split an open-iscsi record line).
 */
export function chapValuesProblem(values: Record<string, string>): string | undefined {
  for (const [key, v] of Object.entries(values)) {
    if (Buffer.byteLength(v, 'utf8') > MAX_CHAP_VALUE_BYTES)
      return `${key} is longer than ${MAX_CHAP_VALUE_BYTES} bytes`;
    if (CONTROL.test(v)) return `${key} contains a control character`;
  }
  return undefined;
}
