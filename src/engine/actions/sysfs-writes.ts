/**
 * The sysfs attributes the engine writes, spelled in one place (as engine/iscsiadm/argv.ts does for
 * iscsiadm): plans show them and apply writes the same path and data. Paths and formats are in
 * docs/iscsiadm.md#sysfs and docs/kubelet-iscsi.md#targeted-lun-scan (linux drivers/scsi/scsi_sysfs.c:
 * store_scan reads `<channel> <id> <lun>`, `-` for all; sdev_store_delete; store_state_field).
 */

/** A SCSI host's `scan`; `<N>` while the plan cannot know the host yet. */
export function hostScanPath(host: number | undefined): string {
  return `/sys/class/scsi_host/host${host ?? '<N>'}/scan`;
}

/**
 * What a scan of one session's host writes: an iSCSI session is a SCSI host of its own with channel
 * 0 and target 0, so only the LUN varies. `lun` is the kernel's LUN number (src/engine/iscsi/lun.ts),
 * or `-` for every LUN the target reports.
 */
export function scanData(lun: number | '-'): string {
  return `0 0 ${lun}`;
}

/**
 * A SCSI device's `device/<attr>`: through its block node when it has one, else by H:C:T:L (a LUN
 * 0 controller has no block node). `delete` takes `1`; `state` takes `running` or `offline`.
 */
export function deviceAttrPath(d: { name?: string; hctl: string }, attr: 'delete' | 'state'): string {
  return d.name ? `/sys/block/${d.name}/device/${attr}` : `/sys/class/scsi_device/${d.hctl}/device/${attr}`;
}
