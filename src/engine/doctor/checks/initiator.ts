import { iscsiNameKind, iscsiNameProblem } from '../../iscsi/names.js';
import { isoTime } from '../../text/time.js';
import { defineCheck } from '../define-check.js';
import { SOURCES } from '../sources.js';

const INITIATOR_NAME_FILE = '/etc/iscsi/initiatorname.iscsi';

/** The `InitiatorName=` value iscsid uses (the last one), or undefined. */
function initiatorNameValue(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('InitiatorName='))
    .pop()
    ?.slice('InitiatorName='.length)
    .trim();
}

/**
 * The node's initiator name (`InitiatorName=` in initiatorname.iscsi, read by iscsid at start).
 * Without one iscsiadm refuses discovery ("Initiatorname required", captures
 * err-discovery-without-iscsid.txt); a malformed one is rejected by targets and ACLs.
 */
export const initiatorName = defineCheck(
  { id: 'initiator.name', title: 'initiator name set and valid' },
  (ctx) => {
    const text = ctx.host.readText(INITIATOR_NAME_FILE);
    if (text === undefined) {
      return {
        status: 'fail',
        evidence: `${INITIATOR_NAME_FILE} missing`,
        hint: `echo "InitiatorName=$(iscsi-iname)" > ${INITIATOR_NAME_FILE} && systemctl restart iscsid`,
      };
    }
    const lines = text.split('\n').map((l) => l.trim());
    const value = initiatorNameValue(text);
    if (!value) {
      // Debian/Ubuntu ship `GenerateName=yes`; the package's start script replaces it on first start.
      const pending = lines.some((l) => l === 'GenerateName=yes');
      return {
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
        status: 'fail',
        evidence: `${value}: ${problem}`,
        hint: `set a valid name in ${INITIATOR_NAME_FILE} (iscsi-iname generates one), then restart iscsid`,
      };
    }
    // RFC 3722 normalises names to lower case; targets compare ACLs case-sensitively in practice.
    if (iscsiNameKind(value) === 'iqn' && value !== value.toLowerCase()) {
      return {
        status: 'warn',
        evidence: `${value} (upper-case letters)`,
        hint: 'iSCSI names are case-insensitive by RFC 3722 but many targets match ACLs case-sensitively; prefer lower case',
      };
    }
    return { status: 'pass', evidence: value };
  },
);

/**
 * Distribution prefixes iscsi-iname and the packages' install scripts put before the random part
 * (open-iscsi utils/iscsi-iname.c ISCSI_NAME_PREFIX, utils/iscsi-gen-initiatorname.sh; Debian,
 * Ubuntu, Red Hat and SUSE names as they ship): a name that is only the prefix has no unique part.
 */
const DISTRIBUTION_PREFIXES = [
  'iqn.2016-04.com.open-iscsi:',
  'iqn.2005-03.org.open-iscsi:',
  'iqn.1993-08.org.debian:01:',
  'iqn.2004-10.com.ubuntu:01:',
  'iqn.1994-05.com.redhat:',
  'iqn.1996-04.de.suse:01:',
] as const;

/**
 * Names published as the one every machine of an image or install got, each with where it was
 * seen. A node carrying one shares it with every other machine from that image.
 */
const KNOWN_SHARED: Readonly<Record<string, string>> = {
  // usr/iscsid.c: the example in iscsid's own error text, copied into files by hand.
  'iqn.2001-04.com.redhat:fc6': "open-iscsi usr/iscsid.c's example name",
  // A cloned appliance VM showing the name its image was built with (delphix/delphix-platform#259).
  'iqn.1993-08.org.debian:01:187bb6704796': 'the Delphix appliance image (delphix/delphix-platform#259)',
  // Two nodes of one image sharing their name (democratic-csi/democratic-csi#375).
  'iqn.2004-10.com.ubuntu:01:cea0b497234a':
    'an Ubuntu image shared by several nodes (democratic-csi/democratic-csi#375)',
};

/** systemd writes /etc/machine-id on a machine's first boot when the image ships it empty (machine-id(5)). */
const MACHINE_ID = '/etc/machine-id';

/**
 * The initiator name must be unique per node (targets' ACLs and CHAP are per name; two nodes with
 * one name log each other out, rancher/os#2446). It is generated once, when open-iscsi is
 * installed: a node made from an image that had open-iscsi installed carries the image's name.
 * Seen here: a name that is only a distribution prefix, a name published as shared, and a name
 * file older than this machine's identity (written before its first boot: it came with the image).
 */
export const initiatorUnique = defineCheck(
  { id: 'initiator.unique', title: 'initiator name unique to this node', source: SOURCES.initiatorUnique },
  (ctx) => {
    const text = ctx.host.readText(INITIATOR_NAME_FILE);
    const value = text === undefined ? undefined : initiatorNameValue(text);
    if (!value) return { status: 'skip', evidence: 'no initiator name (see initiator.name)' };
    const fix = `generate a new one: echo "InitiatorName=$(iscsi-iname)" > ${INITIATOR_NAME_FILE} && systemctl restart iscsid — then update the targets' ACLs (and log in again); on an image, remove the file before capturing it`;
    const lower = value.toLowerCase();
    const bare = DISTRIBUTION_PREFIXES.find((p) => lower === p || lower === p.slice(0, -1));
    if (bare) {
      return {
        status: 'fail',
        evidence: `${value} is the distribution prefix with no unique part`,
        hint: fix,
      };
    }
    const known = KNOWN_SHARED[lower.replace(/\.$/, '')];
    if (known) {
      return {
        status: 'fail',
        evidence: `${value} is ${known}: other machines carry it too`,
        hint: fix,
      };
    }
    const name = ctx.host.entryInfo(INITIATOR_NAME_FILE);
    const id = ctx.host.entryInfo(MACHINE_ID);
    if (name && id && id.size > 0 && name.mtimeMs < id.mtimeMs) {
      const day = (ms: number) => isoTime(ms).slice(0, 10);
      return {
        status: 'warn',
        evidence: `${INITIATOR_NAME_FILE} (${day(name.mtimeMs)}) is older than ${MACHINE_ID} (${day(id.mtimeMs)}): the name was written before this machine's first boot, so it came with the image and every node from that image has it`,
        hint: `compare with the other nodes (iscsi-console status --json | jq .node.initiatorName); if shared, ${fix}`,
      };
    }
    return { status: 'pass', evidence: `${value}: not a distribution default or a known shared name` };
  },
);
