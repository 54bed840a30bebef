/**
 * The parameters of an attach, in one table: `attach --help` lists the rows that have a flag, the
 * console's wizard shows the rows that have a form field, and a row with both is one parameter
 * worded once. Form field ids are the names of k8s core/v1 ISCSIVolumeSource
 * (https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/volume/#iscsi)
 * where it has one, and the CHAP keys kubelet copies from the Secret (docs/kubelet-iscsi.md).
 * Where the flag and the field are used differently (`--portal` repeats while the form has a list
 * of extra portals; `--no-mount` says the opposite of "Format+mount"), they are two rows.
 */
import { BugError } from '../errors.js';
import { MAX_TARGET_LUN } from '../iscsi/lun.js';
import type { OptionSpec } from '../options.js';

/**
 * What an absent fsType and iscsiInterface stand for (ISCSIVolumeSource, URL above: fsType is
 * "implicitly inferred to be ext4", iscsiInterface "defaults to default (tcp)"): flag and manifest agree.
 */
export const DEFAULT_FS_TYPE = 'ext4';
export const DEFAULT_IFACE = 'default';

export interface AttachParam {
  /** The wizard's form field. */
  field?: string;
  /** The `attach` flag, without `--`. */
  flag?: string;
  /** Its name on a form. */
  label?: string;
  /** A text value unless said otherwise. */
  kind?: 'bool' | 'secret';
  valueName?: string;
  multiple?: boolean;
  /** The value an empty field or an absent flag stands for. */
  default?: string;
  /** What it means (the CLI prints it after "attach: "). */
  help: string;
}

const ROWS = [
  { field: 'manifest', flag: 'manifest', label: 'Manifest file', valueName: 'FILE' },
  { field: 'secretFile', flag: 'secret', label: 'Secret file', valueName: 'FILE' },
  { flag: 'portal', valueName: 'ADDR[:PORT]', multiple: true },
  { field: 'targetPortal', label: 'Target portal' },
  { field: 'portals', label: 'Extra portals' },
  { field: 'iqn', flag: 'iqn', label: 'Target IQN', valueName: 'IQN' },
  { field: 'lun', flag: 'lun', label: 'LUN', valueName: 'N' },
  { field: 'volName', flag: 'volume-name', label: 'Volume name', valueName: 'NAME' },
  { field: 'iscsiInterface', flag: 'iface', label: 'iSCSI iface', valueName: 'NAME', default: DEFAULT_IFACE },
  { field: 'initiatorName', flag: 'initiator-name', label: 'Initiator name', valueName: 'IQN' },
  { field: 'chapAuthDiscovery', flag: 'chap-discovery', label: 'Discovery CHAP', kind: 'bool' },
  { field: 'discoveryUser', label: 'Discovery user' },
  { field: 'discoverySecret', label: 'Discovery secret', kind: 'secret' },
  { field: 'chapAuthSession', flag: 'chap-session', label: 'Session CHAP', kind: 'bool' },
  { field: 'sessionUser', label: 'Session user' },
  { field: 'sessionSecret', label: 'Session secret', kind: 'secret' },
  { field: 'block', flag: 'block', label: 'Block volume', kind: 'bool' },
  { field: 'fsType', flag: 'fs-type', label: 'fsType', valueName: 'FS', default: DEFAULT_FS_TYPE },
  { field: 'readOnly', flag: 'read-only', label: 'Read-only', kind: 'bool' },
  { field: 'mount', label: 'Format+mount', kind: 'bool' },
  { flag: 'no-mount', kind: 'bool' },
  { flag: 'mount-option', valueName: 'OPT', multiple: true },
  { field: 'keepOnFailure', flag: 'keep-on-failure', label: 'Keep on failure', kind: 'bool' },
] as const satisfies readonly Omit<AttachParam, 'help'>[];

/** A row's key: its form field, else its flag. */
type RowKey<R> = R extends { field: infer F extends string }
  ? F
  : R extends { flag: infer G extends string }
    ? G
    : never;

const CHAP_FROM_SECRET = 'user and secret from the Secret';

/** What each row means, keyed by its form field, else its flag (the type wants every row, no other key). */
const HELP: Readonly<Record<RowKey<(typeof ROWS)[number]>, string>> = {
  manifest: 'Pod or PersistentVolume manifest (YAML/JSON) with an iscsi volume',
  secretFile: 'Secret manifest with the CHAP keys (values never shown)',
  portal: 'target portal (repeat for multipath; IPv6 as [ADDR]:PORT)',
  targetPortal: 'ADDR[:PORT], IPv6 as [ADDR]:PORT',
  portals: 'comma-separated, for multipath',
  iqn: 'target name: iqn.YYYY-MM.reverse.domain:name or eui.<16 hex>',
  lun: `LUN number, 0-${MAX_TARGET_LUN} (the Kubernetes API takes 0-255; kubelet finds no LUN ≥ 256's by-path link)`,
  volName: 'PV name or pod volume name (the name kubelet gives the volume; it names the global dir)',
  iscsiInterface: "open-iscsi iface record, the volume's iscsiInterface",
  initiatorName: "custom initiator IQN (kubelet clones the iface as <portal>:<volume>); none: the node's own",
  chapAuthDiscovery: `CHAP for discovery (${CHAP_FROM_SECRET})`,
  discoveryUser: 'discovery.sendtargets.auth.username',
  discoverySecret: 'discovery.sendtargets.auth.password',
  chapAuthSession: `CHAP for the session (${CHAP_FROM_SECRET})`,
  sessionUser: 'node.session.auth.username',
  sessionSecret: 'node.session.auth.password',
  block: 'volumeMode: Block (volumeDevices path; no filesystem, no mount)',
  fsType: 'filesystem type: ext4, xfs, ... (formatted only when the device is blank)',
  readOnly: 'mount read-only (never formats)',
  mount: 'format only if blank and mount on the kubelet global dir, as kubelet does',
  'no-mount': 'log in and write iscsi.json but do not format/mount',
  'mount-option': 'extra mount option',
  keepOnFailure:
    'on failure, leave what it made (session, records, iface, kubelet dir) for inspection instead of removing it',
};

const ATTACH_PARAMS: readonly AttachParam[] = ROWS.map((r) => ({
  ...r,
  help: HELP['field' in r ? r.field : r.flag],
}));

/** The rows with a flag, as the CLI's option specs (in table order). */
export function attachOptionSpecs(): OptionSpec[] {
  return ATTACH_PARAMS.flatMap(({ flag, kind, help, valueName, multiple, default: dflt }) =>
    flag === undefined
      ? []
      : [
          {
            name: flag,
            type: kind === 'bool' ? 'boolean' : 'string',
            description: `attach: ${help}`,
            ...(valueName ? { valueName } : {}),
            ...(multiple ? { multiple } : {}),
            ...(dflt !== undefined ? { default: dflt } : {}),
          },
        ],
  );
}

/** The row of a form field; throws on a field the table lacks (a typo in a step list). */
export function attachParamOfField(field: string): AttachParam {
  const p = ATTACH_PARAMS.find((x) => x.field === field);
  if (!p) throw new BugError(`no attach parameter for form field ${field}`);
  return p;
}
