import type { Host } from '../host/host.js';
import type { FsInfo } from '../model.js';

/**
 * What udev recorded about a block device, read from its database file rather than by running
 * `udevadm info` or `blkid` (no process per device). systemd writes one file per device,
 * `/run/udev/data/b<major>:<minor>` for block devices, one record per line: `E:KEY=VALUE` for a
 * property, `S:` a devlink, `I:` the initialisation time, `G:`/`Q:` tags (systemd
 * src/libsystemd/sd-device/device-private.c, device_update_db; captures single-udevadm-info.txt,
 * mp-udevadm-info-dm.txt show the same keys). The blkid builtin sets ID_FS_TYPE, ID_FS_UUID and
 * ID_FS_LABEL (whitespace made `_`) with ID_FS_LABEL_ENC (`\xNN`-escaped, what lsblk unescapes
 * for LABEL) (systemd src/udev/udev-builtin-blkid.c).
 */
const UDEV_DATA_DIR = '/run/udev/data';

const MAJ_MIN = /^\d+:\d+$/;

/** `\x20` escapes of udev's *_ENC properties, decoded (what lsblk shows). */
function decodeEnc(v: string): string {
  return v.replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/** FSTYPE/LABEL/UUID from the text of a udev database file; undefined when it records none. */
export function parseUdevFs(text: string): FsInfo | undefined {
  let type: string | undefined;
  let label: string | undefined;
  let labelEnc: string | undefined;
  let uuid: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('E:ID_FS_')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(2, eq);
    const value = line.slice(eq + 1);
    if (value === '') continue;
    if (key === 'ID_FS_TYPE') type = value;
    else if (key === 'ID_FS_LABEL') label = value;
    else if (key === 'ID_FS_LABEL_ENC') labelEnc = value;
    else if (key === 'ID_FS_UUID') uuid = value;
  }
  const fs: FsInfo = {};
  if (type !== undefined) fs.type = type;
  const l = labelEnc !== undefined ? decodeEnc(labelEnc) : label;
  if (l !== undefined) fs.label = l;
  if (uuid !== undefined) fs.uuid = uuid;
  return Object.keys(fs).length > 0 ? fs : undefined;
}

/**
 * The filesystem udev recorded for the block device `major:minor` (one bounded read through the
 * Host); undefined when udev has no record (not running, not probed yet) or it names no filesystem.
 */
export function readUdevFs(host: Host, majMin: string | undefined): FsInfo | undefined {
  if (majMin === undefined || !MAJ_MIN.test(majMin)) return undefined;
  const text = host.readText(`${UDEV_DATA_DIR}/b${majMin}`);
  return text === undefined ? undefined : parseUdevFs(text);
}
