/**
 * kubelet's in-tree iSCSI plugin path naming and parsing (kubernetes pkg/volume/iscsi/iscsi_util.go),
 * mirrored exactly where the action engine must agree with kubelet, plus a stricter parser that
 * handles what kubelet's fallback gets wrong (IPv6 portals, hostnames containing `-`).
 * See docs/kubelet-iscsi.md#paths and docs/kubelet-iscsi.md#issessionbusy. All paths are host paths.
 */
import { posix } from 'node:path';
import { kubeletPortal, parsePortal } from '../iscsi/portal.js';

/** The plugin name's directory component. */
export const ISCSI_PLUGIN = 'kubernetes.io/iscsi';
/** The pod-volume directory component (`kubernetes.io~iscsi`, escaped plugin name). */
export const ISCSI_POD_PLUGIN = 'kubernetes.io~iscsi';

/** `--kubelet-root` without trailing slashes (`/` stays `/`): the one spelling every kubelet path starts from. */
export function normalizeKubeletRoot(root: string): string {
  return root.length > 1 ? root.replace(/\/+$/, '') : root;
}

/** `<root>/plugins/kubernetes.io/iscsi`: where FS global dirs live (one `iface-*` level below). */
export function pluginDir(kubeletRoot: string): string {
  return `${normalizeKubeletRoot(kubeletRoot)}/plugins/${ISCSI_PLUGIN}`;
}

/** `<root>/plugins/kubernetes.io/iscsi/volumeDevices`: where block global map paths live. */
export function volumeDevicesDir(kubeletRoot: string): string {
  return `${pluginDir(kubeletRoot)}/volumeDevices`;
}

/** The global dir's last component: `<portal>-<iqn>-lun-<lun>` (portal is Portals[0] as kubelet stores it). */
export function globalDirName(portal: string, iqn: string, lun: string | number): string {
  return `${portal}-${iqn}-lun-${lun}`;
}

/** What names one volume's global dir, below the filesystem or the block base. */
type GlobalDirKey = [iface: string, portal: string, iqn: string, lun: string | number];

/** `iface-<iface>/<portal>-<iqn>-lun-<lun>`: the same two levels under both bases. */
function ifaceGlobalDir(...[iface, portal, iqn, lun]: GlobalDirKey): string {
  return `iface-${iface}/${globalDirName(portal, iqn, lun)}`;
}

/** kubelet `makePDNameInternal`: the filesystem volume's global mount dir. */
export function makePDName(kubeletRoot: string, ...key: GlobalDirKey): string {
  return `${pluginDir(kubeletRoot)}/${ifaceGlobalDir(...key)}`;
}

/** kubelet `makeVDPDNameInternal`: the block volume's global map path. */
export function makeVDPDName(kubeletRoot: string, ...key: GlobalDirKey): string {
  return `${volumeDevicesDir(kubeletRoot)}/${ifaceGlobalDir(...key)}`;
}

/**
 * kubelet's iface for a volume: `InitIface`, except when the spec sets `initiatorName`, then
 * `<Portals[0]>:<volName>` (a cloned iface; kubernetes PR #79977). Portal gets kubelet's `:3260` rule.
 */
export function kubeletIfaceName(
  initIface: string,
  portal: string,
  volName: string,
  initiatorName?: string,
): string {
  return initiatorName ? `${kubeletPortal(portal)}:${volName}` : initIface;
}

/** `<root>/pods/<uid>/volumes/kubernetes.io~iscsi/<vol>`: a pod's filesystem volume (bind mount of the global dir). */
export function podVolumeDir(kubeletRoot: string, podUid: string, volName: string): string {
  return `${normalizeKubeletRoot(kubeletRoot)}/pods/${podUid}/volumes/${ISCSI_POD_PLUGIN}/${volName}`;
}

/** `<root>/pods/<uid>/volumeDevices/kubernetes.io~iscsi/<vol>`: a pod's block volume (symlink to the device). */
export function podDeviceDir(kubeletRoot: string, podUid: string, volName: string): string {
  return `${normalizeKubeletRoot(kubeletRoot)}/pods/${podUid}/volumeDevices/${ISCSI_POD_PLUGIN}/${volName}`;
}

/** kubelet `extractDeviceAndPrefix`: device = last path component; prefix = text before its last `-lun-`. */
export function extractDeviceAndPrefix(mntPath: string): { device: string; prefix: string } {
  const device = mntPath.slice(mntPath.lastIndexOf('/') + 1);
  const i = device.lastIndexOf('-lun-');
  return { device, prefix: i < 0 ? device : device.slice(0, i) };
}

/**
 * kubelet `extractPortalAndIqn`, exactly: portal = text before the FIRST `-` (so a hostname with `-`
 * or nothing else goes wrong); IQN = from the first `iqn.` (else `eui.`) up to the last `-lun-`.
 * Returns undefined where kubelet returns an error.
 */
export function extractPortalAndIqnKubelet(device: string): { portal: string; iqn: string } | undefined {
  const dash = device.indexOf('-');
  if (dash < 0) return undefined;
  const portal = device.slice(0, dash);
  let start = device.indexOf('iqn.');
  if (start < 0) start = device.indexOf('eui.');
  if (start < 0) return undefined;
  const end = device.lastIndexOf('-lun-');
  if (end < 0) return undefined;
  return { portal, iqn: device.slice(start, end) };
}

/** kubelet `extractIface`: regex `.+/iface-([^/]+)/.+`. */
export function extractIface(mntPath: string): string | undefined {
  return /.+\/iface-([^/]+)\/.+/.exec(mntPath)?.[1];
}

interface ParsedGlobalDirName {
  /** Portal exactly as in the name (kubelet's Portals[0]: may be a hostname, `[v6]:port`, or portless). */
  portal: string;
  iqn: string;
  /** LUN as in the name (kubelet stores it as a decimal string). */
  lun: string;
}

// Target names start at `iqn.YYYY-MM.`, `eui.<16 hex>` or `naa.<hex>` (RFC 3720 section 3.2.6.3).
const TARGET_START = /^(iqn\.\d{4}-\d{2}\.|eui\.[0-9A-Fa-f]{16}$|naa\.[0-9A-Fa-f]{16,32}$)/;

/**
 * Parses a global dir name `<portal>-<iqn>-lun-<lun>` better than kubelet does: the split between
 * portal and target name is the first `-` that is followed by a valid target-name start AND preceded
 * by something that parses as a portal, so `[fd00::1]:3260-iqn...` and `san-a.example.com:3260-iqn...`
 * come out right. Returns undefined when no split works.
 */
export function parseGlobalDirName(name: string): ParsedGlobalDirName | undefined {
  const lunAt = name.lastIndexOf('-lun-');
  if (lunAt < 0) return undefined;
  const lun = name.slice(lunAt + 5);
  if (!/^\d+$/.test(lun)) return undefined;
  const prefix = name.slice(0, lunAt);
  for (let i = prefix.indexOf('-'); i >= 0; i = prefix.indexOf('-', i + 1)) {
    const portal = prefix.slice(0, i);
    const iqn = prefix.slice(i + 1);
    if (TARGET_START.test(iqn) && parsePortal(portal)) return { portal, iqn, lun };
  }
  return undefined;
}

interface ParsedGlobalPath extends ParsedGlobalDirName {
  mode: 'filesystem' | 'block';
  iface: string;
  /** The global dir itself (a block pod device path is trimmed to its map path). */
  globalPath: string;
  /** For a path below a block map path: the per-pod entry name (pod UID). */
  podUid?: string;
}

/**
 * Parses any host path inside the plugin tree: a FS global dir, a block map path, or a per-pod device
 * node below a map path (what loop devices' backing_file shows). Undefined for anything else.
 */
export function parseGlobalPath(kubeletRoot: string, path: string): ParsedGlobalPath | undefined {
  const base = `${pluginDir(kubeletRoot)}/`;
  if (!path.startsWith(base)) return undefined;
  const parts = path.slice(base.length).split('/');
  let mode: 'filesystem' | 'block' = 'filesystem';
  if (parts[0] === 'volumeDevices') {
    mode = 'block';
    parts.shift();
  }
  const ifaceDir = parts[0];
  const dir = parts[1];
  if (!ifaceDir?.startsWith('iface-') || !dir) return undefined;
  const parsed = parseGlobalDirName(dir);
  if (!parsed) return undefined;
  const globalPath = `${base}${mode === 'block' ? 'volumeDevices/' : ''}${ifaceDir}/${dir}`;
  const out: ParsedGlobalPath = { ...parsed, mode, iface: ifaceDir.slice(6), globalPath };
  if (mode === 'block' && parts[2] && parts.length === 3) out.podUid = parts[2];
  return out;
}

/**
 * A directory listing of one plugin tree: iface subdir name → its entry names. What getVolCount
 * reads, so it can be computed from a listing the snapshot already holds.
 */
export type PluginListing = ReadonlyMap<string, readonly string[]>;

/**
 * kubelet `getVolCount` on a listing (kubernetes PR #80091): for each subdir except `volumeDevices`,
 * count entries whose name starts with `<portal>-<iqn>`. LUN and iface are ignored and an IQN that is
 * a prefix of another also counts — kubelet's behaviour, kept on purpose.
 */
export function getVolCount(listing: PluginListing, portal: string, iqn: string): number {
  const prefix = `${portal}-${iqn}`;
  let count = 0;
  for (const [sub, entries] of listing) {
    if (sub === 'volumeDevices') continue;
    for (const e of entries) if (e.startsWith(prefix)) count++;
  }
  return count;
}

/**
 * kubelet `isSessionBusy`: busy iff the FS and block counts together exceed 1 (the volume being
 * detached still has its own dir). kubelet's portal is Portals[0] as given in the PV.
 */
export function isSessionBusy(fs: PluginListing, block: PluginListing, portal: string, iqn: string): boolean {
  return getVolCount(fs, portal, iqn) + getVolCount(block, portal, iqn) > 1;
}

/**
 * getVolCount over many sessions at once: the entry names of both trees (subdirs except
 * `volumeDevices`, as getVolCount skips it) sorted once, so each `<portal>-<iqn>` prefix count is a
 * binary search instead of a scan — same answer as getVolCount(fs) + getVolCount(block).
 */
export function makeVolCounter(...listings: PluginListing[]): (portal: string, iqn: string) => number {
  const names: string[] = [];
  for (const l of listings)
    for (const [sub, entries] of l) if (sub !== 'volumeDevices') names.push(...entries);
  names.sort();
  return (portal, iqn) => {
    const prefix = `${portal}-${iqn}`;
    let lo = 0;
    let hi = names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (names[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    let n = 0;
    for (let i = lo; i < names.length && names[i]!.startsWith(prefix); i++) n++;
    return n;
  };
}

/**
 * Why a path a planner built is not safely inside the kubelet plugin dir, or undefined when it is:
 * it must be absolute, have no empty, `.` or `..` component (so its normalised form is itself) and
 * lie strictly below `<root>/plugins/kubernetes.io/iscsi`. The second line of defence behind the
 * input checks: a name with `/` or `..` in it would otherwise move a mkdir, a write or a mount.
 */
export function pluginPathProblem(kubeletRoot: string, path: string): string | undefined {
  const dir = pluginDir(kubeletRoot);
  if (!path.startsWith('/')) return `${path} is not an absolute path`;
  const parts = path.slice(1).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..'))
    return `${path} has an empty, '.' or '..' component (normalised: ${posix.normalize(path)})`;
  if (!path.startsWith(`${dir}/`)) return `${path} is not inside the kubelet plugin dir ${dir}`;
  return undefined;
}
