import type { Host } from '../../host/host.js';
import { resolveLink } from '../../host/path.js';
import { readMountinfo } from '../../snapshot/mountinfo.js';
import { defineCheck } from '../define-check.js';

/** Mount points whose device must never be logged out, flushed or deleted. */
export const PROTECTED_MOUNTS = ['/', '/boot', '/boot/efi', '/usr'] as const;

/**
 * The iSCSI session a block device sits on, or undefined. Follows the kernel's device links:
 * `/sys/class/block/<dev>` resolves under `.../session<N>/target.../block/<sdX>[/<part>]` for iSCSI
 * disks and partitions; device-mapper devices (multipath, LVM, crypt) are followed through `slaves/`.
 */
function iscsiSessionOfBlock(host: Host, name: string, depth = 0): string | undefined {
  if (depth > 8) return undefined; // dm stacks are shallow; this bounds a cycle in a broken tree
  const link = host.readLink(`/sys/class/block/${name}`);
  if (link) {
    const m = /\/(session\d+)\//.exec(resolveLink(`/sys/class/block/${name}`, link));
    if (m) return m[1];
  }
  for (const slave of host.readDir(`/sys/class/block/${name}/slaves`)) {
    const s = iscsiSessionOfBlock(host, slave, depth + 1);
    if (s) return s;
  }
  return undefined;
}

/** Block device name of a `major:minor` (`8:1` → `sda1`) via /sys/dev/block, or undefined. */
function blockName(host: Host, majMin: string): string | undefined {
  const link = host.readLink(`/sys/dev/block/${majMin}`);
  return link ? link.split('/').pop() : undefined;
}

/**
 * Root or boot filesystem on iSCSI (iBFT boot, diskless nodes): those sessions carry the OS itself;
 * logging them out or deleting their devices takes the node down. Reported so every action can
 * refuse them; mounts come from PID 1's mountinfo (the host's mount namespace, not the console's).
 */
export const rootOnIscsi = defineCheck(
  { id: 'root.iscsi', title: 'root and boot filesystems not on iSCSI' },
  (ctx) => {
    const read = protectedMounts(ctx.host);
    if (!read) {
      const problems: string[] = [];
      readMountinfo(ctx.host, problems);
      return { status: 'skip', evidence: problems[0] ?? 'no mounts in /proc/1/mountinfo' };
    }
    const { onIscsi, seen } = read;
    const ibft = ctx.host.stat('/sys/firmware/ibft') === 'dir' ? '; iBFT present' : '';
    if (onIscsi.length > 0) {
      return {
        status: 'warn',
        evidence: `${onIscsi.join(', ')}${ibft}`,
        hint: 'these sessions carry the OS: never log them out, flush or delete their devices (the console refuses)',
      };
    }
    return { status: 'pass', evidence: `${seen.join(', ') || 'no / or /boot mount'}${ibft}` };
  },
);

/** The protected mounts (PID 1's view) and which of them sit on an iSCSI session; undefined without mountinfo. */
function protectedMounts(host: Host): { onIscsi: string[]; seen: string[] } | undefined {
  const mounts = readMountinfo(host, []);
  if (mounts.length === 0) return undefined;
  const onIscsi: string[] = [];
  const seen: string[] = [];
  for (const mp of PROTECTED_MOUNTS) {
    // The last mount at a point is the visible one (later mounts stack on top).
    const m = mounts.filter((x) => x.mountPoint === mp).pop();
    if (!m) continue;
    const dev = m.majMin.startsWith('0:') ? undefined : blockName(host, m.majMin);
    seen.push(`${mp} ${dev ?? m.source}`);
    const session = dev ? iscsiSessionOfBlock(host, dev) : undefined;
    if (session) onIscsi.push(`${mp} on ${dev} (${session})`);
  }
  return { onIscsi, seen };
}

/** `/ on sda1 (session1)` for each protected mount on iSCSI (iSCSI root: pings off is right there). */
export function rootOnIscsiMounts(host: Host): string[] {
  return protectedMounts(host)?.onIscsi ?? [];
}
