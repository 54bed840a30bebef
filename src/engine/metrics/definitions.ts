/**
 * Every metric family this exporter writes: its name (a contract, docs/metrics.md), type and HELP.
 * One place, so the collector, the docs test and the rule files agree on the names.
 */
import type { MetricType } from './exposition.js';

interface FamilyDef {
  readonly type: MetricType;
  readonly help: string;
}

const g = (help: string): FamilyDef => ({ type: 'gauge', help });
const c = (help: string): FamilyDef => ({ type: 'counter', help });

export const FAMILIES = {
  iscsi_session_info: g(
    'An iSCSI session of this node (value 1); sid is display only, the kernel reuses it.',
  ),
  iscsi_session_state: g(
    "The session's kernel state (sysfs iscsi_session state), one series per state, 1 for the current one.",
  ),
  iscsi_session_verdict: g(
    "Why the session exists from kubelet's point of view (docs/status-schema.md verdicts), one series per verdict.",
  ),
  iscsi_session_health: g("The session's health (ok, degraded, failed), one series per health."),
  iscsi_session_recovery_timeout_seconds: g(
    "The session's recovery_tmo (replacement_timeout), seconds; -1 when off (I/O queued forever).",
  ),
  iscsi_session_down_since_timestamp_seconds: g(
    'While the session is down: when this exporter first read it down (the kernel records no failure time).',
  ),
  iscsi_sessions: g(
    'Sessions on the node by health, every session counted (also those over --max-sessions).',
  ),
  iscsi_portal_down: g(
    '1 while every session of this node to the portal is down (the outage finding), else 0.',
  ),
  iscsi_portal_recovery_expired: g(
    '1 while sessions of this node to the portal are past recovery_tmo (FREE or a device transport-offline): the kernel fails their I/O, pods get EIO; else 0.',
  ),
  iscsi_portal_sessions: g('Sessions of this node to the portal.'),
  iscsi_iscsid_up: g(
    '1 while iscsid runs (or its systemd socket listens), 0 while it is down: no session recovers and logins and logouts fail. Absent when the read cannot tell.',
  ),
  iscsi_device_info: g('A SCSI device (LUN) of an iSCSI session (value 1); device is the block device name.'),
  iscsi_device_state: g(
    "The device's kernel state: running (0/1) for every device, and its own state (1) while not running.",
  ),
  iscsi_device_holder_info: g(
    'A device-mapper device holding the SCSI device (holder is the dm name, dm-N, as node_dmmultipath_device_info{sysfs_name}).',
  ),
  iscsi_volume_info: g(
    'A kubelet iSCSI volume (in-tree or CSI) on a device, one series per volume, device and pod (value 1).',
  ),
  iscsi_node_problems: g("Sessions per problem severity, as the console's summary line counts them."),
  iscsi_node_problem_objects: g(
    'Objects with a problem, per kind (session, kubelet_volume, csi_volume, device, multipath_map, volume_missing_path, volume_missing_lun, portal, read, stuck_session, filesystem, iscsid) and severity.',
  ),
  iscsi_session_state_changes_total: c("Changes of the session's kernel state the watcher saw (serve only)."),
  iscsi_events_total: c('Events of the live watcher, by kind and severity (serve only).'),
  iscsi_console_build_info: g('The exporter build (value 1).'),
  iscsi_console_read_duration_seconds: g('How long the last read of the node took, seconds.'),
  iscsi_console_last_read_timestamp_seconds: g(
    'When the node was last read (serve: last poll of the watcher), seconds since the epoch.',
  ),
  iscsi_console_read_errors_total: c('Failed reads of the node, by source (serve: since start).'),
  iscsi_console_series_dropped_total: c(
    'Series left out because the node has more sessions than --max-sessions.',
  ),
} as const satisfies Record<string, FamilyDef>;

export type FamilyName = keyof typeof FAMILIES;

/** Families only the live watcher feeds (absent from one-shot `metrics`). */
export const WATCHER_FAMILIES: ReadonlySet<FamilyName> = new Set([
  'iscsi_session_state_changes_total',
  'iscsi_events_total',
]);
