import { iscsiNameKind, iscsiNameProblem } from '../../iscsi/names.js';
import type { DoctorCheck, DoctorContext } from '../types.js';

const INITIATOR_NAME_FILE = '/etc/iscsi/initiatorname.iscsi';

/**
 * The node's initiator name (`InitiatorName=` in initiatorname.iscsi, read by iscsid at start).
 * Without one iscsiadm refuses discovery ("Initiatorname required", captures
 * err-discovery-without-iscsid.txt); a malformed one is rejected by targets and ACLs.
 */
export function initiatorName(ctx: DoctorContext): DoctorCheck {
  const base = { id: 'initiator.name', title: 'initiator name set and valid' };
  const text = ctx.host.readText(INITIATOR_NAME_FILE);
  if (text === undefined) {
    return {
      ...base,
      status: 'fail',
      evidence: `${INITIATOR_NAME_FILE} missing`,
      hint: `echo "InitiatorName=$(iscsi-iname)" > ${INITIATOR_NAME_FILE} && systemctl restart iscsid`,
    };
  }
  const lines = text.split('\n').map((l) => l.trim());
  const value = lines
    .filter((l) => l.startsWith('InitiatorName='))
    .pop()
    ?.slice('InitiatorName='.length)
    .trim();
  if (!value) {
    // Debian/Ubuntu ship `GenerateName=yes`; the package's start script replaces it on first start.
    const pending = lines.some((l) => l === 'GenerateName=yes');
    return {
      ...base,
      status: 'fail',
      evidence: pending
        ? `${INITIATOR_NAME_FILE}: GenerateName=yes (not generated yet)`
        : `${INITIATOR_NAME_FILE}: no InitiatorName=`,
      hint: `echo "InitiatorName=$(iscsi-iname)" > ${INITIATOR_NAME_FILE} && systemctl restart iscsid`,
    };
  }
  const problem = iscsiNameProblem(value);
  if (problem) {
    return {
      ...base,
      status: 'fail',
      evidence: `${value}: ${problem}`,
      hint: `set a valid name in ${INITIATOR_NAME_FILE} (iscsi-iname generates one), then restart iscsid`,
    };
  }
  // RFC 3722 normalises names to lower case; targets compare ACLs case-sensitively in practice.
  if (iscsiNameKind(value) === 'iqn' && value !== value.toLowerCase()) {
    return {
      ...base,
      status: 'warn',
      evidence: `${value} (upper-case letters)`,
      hint: 'iSCSI names are case-insensitive by RFC 3722 but many targets match ACLs case-sensitively; prefer lower case',
    };
  }
  return { ...base, status: 'pass', evidence: value };
}
