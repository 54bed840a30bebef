import type { Host } from '../host/host.js';
import type { Mount } from '../model.js';

/** Where the mount table of the host's init mount namespace is read (PID 1's view, not ours). */
export const MOUNTINFO_PATH = '/proc/1/mountinfo';

/**
 * Decodes the kernel's octal escapes in /proc mount tables (`\040` space, `\011` tab, `\012` newline,
 * `\134` backslash — fs/proc_namespace.c `mangle`, also used by /proc/swaps via seq_file).
 */
export function decodeOctal(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/**
 * Parses /proc/<pid>/mountinfo (proc(5)): `id parent maj:min root mountpoint options [optional...] -
 * fstype source superoptions`. Malformed lines are skipped and counted in `bad`.
 */
export function parseMountinfo(text: string): { mounts: Mount[]; bad: number } {
  const mounts: Mount[] = [];
  let bad = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const f = line.split(' ');
    const sep = f.indexOf('-', 6);
    if (f.length < 10 || sep < 0 || sep + 3 > f.length) {
      bad++;
      continue;
    }
    const mountId = Number(f[0]);
    const parentId = Number(f[1]);
    const majMin = f[2]!;
    if (!Number.isInteger(mountId) || !Number.isInteger(parentId) || !/^\d+:\d+$/.test(majMin)) {
      bad++;
      continue;
    }
    mounts.push({
      mountId,
      parentId,
      majMin,
      root: decodeOctal(f[3]!),
      mountPoint: decodeOctal(f[4]!),
      options: f[5]!,
      fsType: f[sep + 1]!,
      source: decodeOctal(f[sep + 2]!),
      superOptions: f[sep + 3] ?? '',
    });
  }
  return { mounts, bad };
}

/** Reads and parses PID 1's mountinfo; a missing table is a problem, not an error. */
export function readMountinfo(host: Host, problems: string[]): Mount[] {
  const r = host.readTextOrError(MOUNTINFO_PATH);
  if ('error' in r) {
    problems.push(`cannot read ${MOUNTINFO_PATH} (${r.error}): mounts unknown`);
    return [];
  }
  const { mounts, bad } = parseMountinfo(r.value);
  if (bad > 0) problems.push(`${MOUNTINFO_PATH}: ${bad} malformed line(s) skipped`);
  return mounts;
}
