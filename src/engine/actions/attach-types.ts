/**
 * The attach planner's shapes, apart from the planners (attach.ts, attach-input.ts, manifest.ts,
 * attach-records.ts) and from the Plan type that carries a rollback: each of those imports this
 * file and none imports another only for a type, so the planners form no import cycle.
 */

export interface AttachInput {
  /** PV name or inline volume name (kubelet spec.Name()). */
  volName: string;
  /** targetPortal first, then spec.portals (as given; normalised by the planner). */
  portals: string[];
  iqn: string;
  lun: number;
  mode: 'filesystem' | 'block';
  fsType: string;
  readOnly: boolean;
  /** spec.iscsiInterface (default `default`). */
  initIface: string;
  initiatorName?: string;
  chapDiscovery: boolean;
  chapSession: boolean;
  /** Names of the CHAP keys that have a non-empty value (values travel apart, in ApplyOptions.secrets). */
  secretKeys: string[];
  /** Format-and-mount onto the global path (filesystem mode). */
  mount: boolean;
  mountOptions: string[];
  /**
   * On failure, leave what this attach created (session, node records, iface clone, kubelet dir)
   * for inspection instead of rolling it back.
   */
  keepOnFailure?: boolean;
  /** What a discovery run beforehand (the wizard's) listed: the plan names the records it creates. */
  discovered?: { portal: string; iqn: string }[];
}

export interface AttachRecordsPlan {
  iqn: string;
  iface: string;
  /** Portals this attach logs in to (as planned; hostnames are resolved at apply time). */
  loginPortals: string[];
  /** Portals discovery runs at. */
  discoveryPortals: string[];
  /** The `<portal>:<volName>` iface clone this attach creates, if any. */
  clone?: string;
  globalPath: string;
  /** The admin chose to keep what a failed attach created (`--keep-on-failure`). */
  keep: boolean;
  /**
   * Roll back after an interrupt too (the LUN listing: a temporary login that must not outlive
   * the wizard, whoever stops it). Unset (an attach): an interrupt only lists what is left.
   */
  undoOnInterrupt?: boolean;
}
