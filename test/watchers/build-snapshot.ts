/** Hand-built snapshots for store and diff unit tests (the simulator tests use the real read engine). */
import {
  type KubeletVolume,
  lunKey,
  type Mount,
  type MultipathMap,
  SCHEMA_VERSION,
  type ScsiDevice,
  type Session,
  type Snapshot,
  sessionKey,
} from '../../src/engine/model.js';

export const IQN = 'iqn.2024-01.lab.example:storage.target1';

export function device(sid: number, lun: number, name: string | undefined, state = 'running'): ScsiDevice {
  const d: ScsiDevice = {
    hctl: `${sid}:0:0:${lun}`,
    host: sid,
    channel: 0,
    target: 0,
    lun,
    state,
    holders: [],
    partitions: [],
    mountpoints: [],
    swap: false,
    loops: [],
    byPath: [],
    key: lunKey(IQN, `127.0.0.${sid}:3260`, 'default', lun),
  };
  if (name) d.name = name;
  return d;
}

export function session(sid: number, state = 'LOGGED_IN', devices: ScsiDevice[] = []): Session {
  const portal = `127.0.0.${sid}:3260`;
  return {
    sid,
    name: `session${sid}`,
    targetIqn: IQN,
    portal,
    tpgt: 1,
    iface: 'default',
    state,
    connections: [],
    devices,
    verdict: 'in-use',
    health: 'ok',
    reasons: [],
    kubeletBusy: false,
    kubeletVolumes: [],
    pods: [],
    key: sessionKey(IQN, portal, 'default'),
  };
}

export function mount(mountId: number, mountPoint: string, majMin = '8:16'): Mount {
  return {
    mountId,
    parentId: 1,
    majMin,
    root: '/',
    mountPoint,
    options: 'rw',
    fsType: 'ext4',
    source: '/dev/sdb',
    superOptions: 'rw',
  };
}

export function map(
  name: string,
  alias: string,
  slaves: string[],
  failedSlaves: string[] = [],
): MultipathMap {
  return {
    name,
    alias,
    wwid: `3600${name}`,
    uuid: `mpath-3600${name}`,
    slaves,
    holders: [],
    mountpoints: [],
    failedSlaves,
    mapperLink: true,
  };
}

export function volume(
  path: string,
  metadataSource: KubeletVolume['metadataSource'],
  volName = 'pv-x',
): KubeletVolume {
  const v: KubeletVolume = {
    path,
    mode: 'filesystem',
    iface: 'default',
    portal: '127.0.0.1:3260',
    iqn: IQN,
    lun: '1',
    metadataSource,
    mounted: metadataSource === 'hidden',
    podDevices: [],
    sessions: [],
    pods: [],
    problems: [],
  };
  if (metadataSource === 'iscsi.json') v.metadata = { VolName: volName, Iqn: IQN };
  return v;
}

export function snapshot(parts: Partial<Snapshot> = {}): Snapshot {
  return {
    schemaVersion: SCHEMA_VERSION,
    takenAt: new Date(0).toISOString(),
    readMs: 1,
    node: { hostname: 'node1', root: '/', kind: 'root', kubeletRoot: '/var/lib/kubelet', iscsiLoaded: true },
    sessions: [],
    portalHostMap: {},
    outages: [],
    multipath: [],
    mounts: [],
    swaps: [],
    loops: {},
    kubelet: { root: '/var/lib/kubelet', volumes: [], podVolumes: [] },
    nodeRecords: [],
    ifaces: [],
    problems: [],
    ...parts,
  };
}
