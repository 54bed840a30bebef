import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import type { BlockRef } from '../kernel/kernel.js';
import type { LunSpec } from '../types.js';

/** Resolves a device argument, or the tool's "No such file" answer. */
export function device(ctx: SimContext, path: string | undefined): BlockRef | undefined {
  return path ? ctx.kernel.resolveBlock(path) : undefined;
}

/** I/O to a device only works while it (and every path under a dm map) can serve it. */
export function readable(ctx: SimContext, ref: BlockRef): boolean {
  if (ref.kind === 'sd') return ref.device.state === 'running';
  if (ref.kind === 'dm') {
    return ref.map.slaves.some((s) => ctx.kernel.sdDevice(s)?.device.state === 'running');
  }
  return true;
}

/** Mounted anywhere (the device itself, a partition, or through a bind of its node). */
export function mountedAt(ctx: SimContext, ref: BlockRef): string[] {
  return ctx.mounts.mounts
    .filter((m) => m.source === sourceName(ctx, ref) || m.root === `/${ref.name}`)
    .map((m) => m.mountpoint);
}

/** The name util-linux shows as the mount source: dm maps as /dev/mapper/<name>. */
export function sourceName(_ctx: SimContext, ref: BlockRef): string {
  return ref.kind === 'dm' ? `/dev/mapper/${ref.map.name}` : `/dev/${ref.name}`;
}

export function devtOf(ref: BlockRef): string {
  if (ref.kind === 'dm') return `254:${ref.map.minor}`;
  if (ref.kind === 'loop') return `7:${ref.loop.minor}`;
  const idx = ref.device.sdIndex!;
  const group = (idx & 0xf0) >> 4;
  const major = group === 0 ? 8 : group <= 7 ? 64 + group : 128 + group - 8;
  return `${major}:${(((idx & 0xf) << 4) | (idx & 0xfff00)) + (ref.partition ?? 0)}`;
}

/** The filesystem on a device: the LUN's (a partition carries none unless it is swap). */
export function fsOf(ctx: SimContext, ref: BlockRef): LunSpec['fs'] | undefined {
  if (ref.kind === 'sd' && ref.partition) return undefined;
  return ctx.kernel.specOf(ref)?.fs;
}

/** In use by the kernel: held by a dm map (a multipath path) or mounted. */
export function held(ctx: SimContext, ref: BlockRef): boolean {
  if (ref.kind === 'sd' && !ref.partition) {
    if ([...ctx.kernel.maps.values()].some((m) => m.slaves.includes(ref.name))) return true;
  }
  return mountedAt(ctx, ref).length > 0;
}

let uuidCounter = 0;
/** Deterministic filesystem UUIDs (a seeded counter, not random: reproducible demos). */
function nextUuid(seed: number): string {
  uuidCounter++;
  const h = ((seed * 2654435761 + uuidCounter * 40503) >>> 0).toString(16).padStart(8, '0');
  const n = uuidCounter.toString(16).padStart(12, '0');
  return `${h}-5f26-46f4-adfb-${n}`;
}

/** `mkfs.ext4 [-F] [-m0] [-q] [-L label] DEV` / `mkfs.xfs [-f] DEV`: kubelet's formatter (docs/kubelet-iscsi.md#format-and-mount). */
export function mkfs(type: string): (ctx: SimContext, args: readonly string[]) => ToolResult {
  return (ctx, args) => {
    const prog = `mkfs.${type}`;
    let label: string | undefined;
    let quiet = false;
    const rest: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '-L') label = args[++i];
      else if (a === '-q') quiet = true;
      else if (a === '-E' || a === '-b' || a === '-O') i++;
      else if (!a.startsWith('-')) rest.push(a);
    }
    const path = rest[0];
    const ref = device(ctx, path);
    if (!ref) return fail(1, `${prog}: The file ${path} does not exist and no size was specified.\n`);
    if (held(ctx, ref)) {
      return fail(
        1,
        `${type === 'xfs' ? '' : 'mke2fs 1.47.0 (5-Feb-2023)\n'}${path} is apparently in use by the system; will not make a filesystem here!\n`,
      );
    }
    if (!readable(ctx, ref))
      return fail(1, `${prog}: Input/output error while writing out and closing file system\n`);
    const spec = ctx.kernel.specOf(ref);
    if (!spec) return fail(1, `${prog}: ${path}: cannot format this device in the simulator\n`);
    if (spec.fs) ctx.mounts.wipe(spec.fs.uuid);
    spec.fs = { type, uuid: nextUuid(spec.sizeBytes), ...(label ? { label } : {}) };
    spec.partitions = 0;
    ctx.kernel.fsChanged(spec);
    if (quiet || type === 'xfs') return ok();
    const blocks = Math.floor(spec.sizeBytes / 4096);
    return ok(
      `Discarding device blocks: done                            \nCreating filesystem with ${blocks} 4k blocks and ${Math.max(1024, blocks)} inodes\nFilesystem UUID: ${spec.fs.uuid}\n\nAllocating group tables: done                            \nWriting inode tables: done                            \nCreating journal (1024 blocks): done\nWriting superblocks and filesystem accounting information: done\n\n`,
      'mke2fs 1.47.0 (5-Feb-2023)\n',
    );
  };
}

/** blkid: `-p -s TYPE -s PTTYPE -o export DEV` (kubelet: exit 2 = nothing found), `-o value -s TYPE`, plain. */
export function blkid(ctx: SimContext, args: readonly string[]): ToolResult {
  const tags: string[] = [];
  let format = 'full';
  const devs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-s') tags.push(args[++i] ?? '');
    else if (a === '-o') format = args[++i] ?? 'full';
    else if (!a.startsWith('-')) devs.push(a);
  }
  const path = devs[0];
  const ref = device(ctx, path);
  if (!ref) return fail(2, '');
  if (!readable(ctx, ref)) return fail(4, `blkid: error: ${path}: Input/output error\n`);
  const fs = fsOf(ctx, ref);
  const spec = ctx.kernel.specOf(ref);
  const pairs: [string, string][] = [];
  if (fs) {
    if (fs.label) pairs.push(['LABEL', fs.label]);
    pairs.push(['UUID', fs.uuid], ['BLOCK_SIZE', fs.type === 'xfs' ? '512' : '4096'], ['TYPE', fs.type]);
  } else if (spec?.partitions && !(ref.kind === 'sd' && ref.partition)) {
    pairs.push(['PTUUID', '4a1f5e2c-0d5b-4a4e-9d5e-5b1c0a2b3c4d'], ['PTTYPE', 'gpt']);
  }
  const shown = tags.length ? pairs.filter(([k]) => tags.includes(k)) : pairs;
  if (shown.length === 0) return fail(2, '');
  if (format === 'export') return ok(`DEVNAME=${path}\n${shown.map(([k, v]) => `${k}=${v}\n`).join('')}`);
  if (format === 'value') return ok(shown.map(([, v]) => `${v}\n`).join(''));
  return ok(`${path}: ${shown.map(([k, v]) => `${k}="${v}"`).join(' ')}\n`);
}

/** `fsck -a DEV`: clean filesystems exit 0 (kubelet treats 1 as corrected, 4 as errors). */
export function fsck(ctx: SimContext, args: readonly string[]): ToolResult {
  const path = args.find((a) => !a.startsWith('-'));
  const ref = device(ctx, path);
  const head = 'fsck from util-linux 2.38.1\n';
  if (!ref) return fail(8, `fsck.ext4: No such file or directory while trying to open ${path}\n`, head);
  const fs = fsOf(ctx, ref);
  if (!fs) return fail(8, `fsck.ext2: Bad magic number in super-block while trying to open ${path}\n`, head);
  if (!readable(ctx, ref)) return fail(4, `${path}: Input/output error\n`, head);
  return ok(`${head}${path}: clean, 11/16384 files, 5765/65536 blocks\n`);
}

/** `blockdev --flushbufs DEV` / `--getsize64 DEV`. */
export function blockdev(ctx: SimContext, args: readonly string[]): ToolResult {
  const path = args.find((a) => !a.startsWith('-'));
  const ref = device(ctx, path);
  if (!ref) return fail(1, `blockdev: cannot open ${path}: No such file or directory\n`);
  if (args.includes('--getsize64')) return ok(`${ctx.kernel.sizeOf(ref)}\n`);
  if (!readable(ctx, ref)) return fail(1, `blockdev: ioctl error on BLKFLSBUF: Input/output error\n`);
  return ok();
}
