import type { FsInfo } from '../model.js';

/**
 * `ext4 LABEL=data UUID=6683…`: what `lsblk -o FSTYPE,LABEL,UUID` shows for a device, in one phrase
 * (empty when udev recorded nothing). One home: `status` and the session detail both print it.
 */
export function fsWords(fs: FsInfo | undefined): string {
  if (!fs) return '';
  return [
    fs.type,
    fs.label !== undefined ? `LABEL=${fs.label}` : undefined,
    fs.uuid !== undefined ? `UUID=${fs.uuid}` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
}
