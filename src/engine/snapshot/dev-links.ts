import type { Host } from '../host/host.js';

const BY_PATH_DIR = '/dev/disk/by-path';
const MAPPER_DIR = '/dev/mapper';

/**
 * `/dev/disk/by-path` links by the kernel name they point to (`../../sdb` → sdb). udev may not run
 * (captures udev-before-start.txt): then the dir is absent and every device has no links.
 */
export function readByPathLinks(host: Host): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const link of host.readDir(BY_PATH_DIR)) {
    const to = host.readLink(`${BY_PATH_DIR}/${link}`);
    if (to === undefined) continue;
    const dev = to.slice(to.lastIndexOf('/') + 1);
    const list = out.get(dev);
    if (list) list.push(`${BY_PATH_DIR}/${link}`);
    else out.set(dev, [`${BY_PATH_DIR}/${link}`]);
  }
  return out;
}

/** Names present in /dev/mapper (aliases of dm maps; `control` excluded). */
export function readMapperNames(host: Host): Set<string> {
  return new Set(host.readDir(MAPPER_DIR).filter((n) => n !== 'control'));
}
