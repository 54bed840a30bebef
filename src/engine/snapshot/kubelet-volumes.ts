import type { Host } from '../host/host.js';
import {
  extractIface,
  extractPortalAndIqnKubelet,
  type PluginListing,
  parseGlobalDirName,
  pluginDir,
  volumeDevicesDir,
} from '../kubelet/paths.js';
import type { KubeletVolume, Mount } from '../model.js';
import { parseIscsiJson } from './iscsi-json.js';
import { none, trimmed } from './lists.js';

interface KubeletVolumesRead {
  volumes: KubeletVolume[];
  /** Listings kubelet's getVolCount reads: FS plugin tree and block (volumeDevices) tree. */
  fsListing: PluginListing;
  blockListing: PluginListing;
}

function listTree(host: Host, dir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const sub of host.readDir(dir)) {
    if (sub === 'volumeDevices') out.set(sub, []);
    else out.set(sub, host.readDir(`${dir}/${sub}`));
  }
  return out;
}

function readVolume(
  host: Host,
  path: string,
  dirName: string,
  mode: 'filesystem' | 'block',
  mountPoints: ReadonlySet<string>,
): KubeletVolume {
  const problems: string[] = [];
  const notes: string[] = [];
  const mounted = mountPoints.has(path);
  const vol: KubeletVolume = {
    path,
    mode,
    iface: extractIface(path) ?? '',
    portal: '',
    iqn: '',
    lun: '',
    metadataSource: 'path',
    mounted,
    podDevices: none(),
    // Typed mutable (callers sort and fill them), so never the shared frozen empty list.
    sessions: [],
    pods: [],
    problems,
  };
  if (mode === 'filesystem' && mounted) {
    // kubelet skips writing (and can only read) iscsi.json while the dir is mounted: the file is
    // underneath the volume's filesystem (docs/kubelet-iscsi.md#iscsijson). Reading now would read the user's data instead.
    vol.metadataSource = 'hidden';
    notes.push('global dir is mounted: iscsi.json is hidden under the mount; identity from the dir name');
  } else {
    if (mode === 'block') vol.podDevices = trimmed(host.readDir(path).filter((e) => e !== 'iscsi.json'));
    const r = host.readTextOrError(`${path}/iscsi.json`);
    if ('error' in r) {
      if (r.error === 'ENOENT') {
        problems.push(
          'no iscsi.json: kubelet falls back to parsing the dir name (and then deletes no SCSI devices on detach)',
        );
      } else problems.push(`iscsi.json unreadable (${r.error})`);
    } else {
      const parsed = parseIscsiJson(r.value);
      if (parsed.ok) {
        vol.metadata = parsed.value;
        vol.metadataSource = 'iscsi.json';
      } else problems.push(parsed.problem);
    }
  }
  const fromName = parseGlobalDirName(dirName);
  const kubeletParse = extractPortalAndIqnKubelet(dirName);
  if (fromName && kubeletParse && kubeletParse.portal !== fromName.portal) {
    notes.push(
      `kubelet's own dir-name fallback would read portal "${kubeletParse.portal}" (it splits at the first '-')`,
    );
  }
  const md = vol.metadata;
  if (md) {
    vol.portal = md.Portals?.[0] ?? fromName?.portal ?? '';
    vol.iqn = md.Iqn ?? '';
    vol.lun = md.Lun ?? fromName?.lun ?? '';
    if (md.Iface && vol.iface && md.Iface !== vol.iface) {
      problems.push(`iscsi.json Iface "${md.Iface}" differs from the dir's iface "${vol.iface}"`);
    }
    if (
      fromName &&
      (fromName.iqn !== md.Iqn || (md.Portals?.[0] !== undefined && fromName.portal !== md.Portals[0]))
    ) {
      problems.push('iscsi.json and the dir name name different portal/IQN');
    }
  } else if (fromName) {
    vol.portal = fromName.portal;
    vol.iqn = fromName.iqn;
    vol.lun = fromName.lun;
  } else {
    problems.push('dir name is not <portal>-<iqn>-lun-<n>: kubelet cannot identify this volume');
  }
  if (!vol.iface) problems.push('not under an iface-<name> dir');
  if (notes.length > 0) vol.notes = notes.slice();
  return vol;
}

/**
 * Reads kubelet's iSCSI global dirs: `<root>/plugins/kubernetes.io/iscsi/iface-*\/<portal>-<iqn>-lun-<n>`
 * (filesystem) and `.../volumeDevices/iface-*\/...` (block), each with its iscsi.json.
 */
export function readKubeletVolumes(
  host: Host,
  kubeletRoot: string,
  mounts: readonly Mount[],
): KubeletVolumesRead {
  const mountPoints = new Set(mounts.map((m) => m.mountPoint));
  const fsDir = pluginDir(kubeletRoot);
  const blockDir = volumeDevicesDir(kubeletRoot);
  const fsListing = listTree(host, fsDir);
  const blockListing = listTree(host, blockDir);
  const volumes: KubeletVolume[] = [];
  for (const [tree, listing, mode] of [
    [fsDir, fsListing, 'filesystem'],
    [blockDir, blockListing, 'block'],
  ] as const) {
    for (const [sub, entries] of listing) {
      if (!sub.startsWith('iface-')) continue;
      for (const e of entries) volumes.push(readVolume(host, `${tree}/${sub}/${e}`, e, mode, mountPoints));
    }
  }
  return { volumes, fsListing, blockListing };
}
