import { posix } from 'node:path';
import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import type { SimMount } from '../kernel/mounts.js';
import { device, devtOf, fsOf, held, readable, sourceName } from './block.js';

const WRONG_FS = (target: string, dev: string) =>
  `mount: ${target}: wrong fs type, bad option, bad superblock on ${dev}, missing codepage or helper program, or other error.\n       dmesg(1) may have more information after failed mount system call.\n`;

/** Super-block options as the captured kernel shows them (single-mountinfo.txt: ext4 `rw,stripe=4`). */
function superOptions(fstype: string, ro: boolean): string {
  const rw = ro ? 'ro' : 'rw';
  return fstype === 'xfs' ? `${rw},attr2,inode64,logbufs=8,logbsize=32k,noquota` : `${rw},stripe=4`;
}

/** `mount [-t T] [-o OPTS] SRC DST`, `mount --bind SRC DST`, `mount -o bind[,ro] SRC DST`. */
export function mount(ctx: SimContext, args: readonly string[]): ToolResult {
  let fstype: string | undefined;
  const opts: string[] = [];
  const pos: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-t') fstype = args[++i];
    else if (a === '-o') opts.push(...(args[++i] ?? '').split(','));
    else if (a === '--bind' || a === '-B') opts.push('bind');
    else if (a === '--rbind' || a === '-R') opts.push('bind');
    else if (!a.startsWith('-')) pos.push(a);
  }
  if (pos.length === 0) return ok(ctx.tree.read('/proc/mounts') ?? '');
  const [src, target] = pos as [string, string];
  if (!target) return fail(1, 'mount: bad usage\n');
  const ro = opts.includes('ro');
  const targetKind = ctx.tree.isDir(target) ? 'dir' : ctx.tree.exists(target) ? 'file' : undefined;
  if (!targetKind) return fail(32, `mount: ${target}: mount point does not exist.\n`);

  if (opts.includes('bind')) {
    if (opts.includes('remount')) {
      const m = ctx.mounts.find(target);
      if (!m) return fail(32, `mount: ${target}: mount point not mounted or bad option.\n`);
      m.options = `${ro ? 'ro' : 'rw'},${m.options.split(',').slice(1).join(',')}`;
      ctx.mountsChanged();
      return ok();
    }
    // mount(8) canonicalises the source: a bind of /dev/disk/by-path/... shows root /sdX.
    const real = ctx.tree.realpath(src);
    if (!real) return fail(32, `mount: ${target}: special device ${src} does not exist.\n`);
    const parent = containing(ctx, real);
    const rel =
      real === parent.mountpoint ? '' : real.slice(parent.mountpoint === '/' ? 0 : parent.mountpoint.length);
    ctx.mounts.mount(
      {
        devt: parent.devt,
        root: posix.normalize(posix.join(parent.root, rel || '/')),
        mountpoint: target,
        options:
          `${ro ? 'ro' : parent.options.split(',')[0]},${parent.options.split(',').slice(1).join(',')}`.replace(
            /,$/,
            '',
          ),
        fstype: parent.fstype,
        source: parent.source,
        superOptions: parent.superOptions,
        bind: true,
      },
      undefined,
      targetKind === 'dir' ? real : undefined,
    );
    ctx.mountsChanged();
    return ok();
  }

  const ref = device(ctx, src);
  if (!ref) return fail(32, `mount: ${target}: special device ${src} does not exist.\n`);
  const name = sourceName(ctx, ref);
  if (
    held(ctx, ref) &&
    ref.kind === 'sd' &&
    [...ctx.kernel.maps.values()].some((m) => m.slaves.includes(ref.name))
  ) {
    return fail(32, `mount: ${target}: ${name} already mounted or mount point busy.\n`);
  }
  if (!readable(ctx, ref)) return fail(32, `mount: ${target}: can't read superblock on ${name}.\n`);
  const fs = fsOf(ctx, ref);
  if (!fs || (fstype && fstype !== 'auto' && fstype !== fs.type)) return fail(32, WRONG_FS(target, name));
  ctx.mounts.mount(
    {
      devt: devtOf(ref),
      root: '/',
      mountpoint: target,
      options: `${ro ? 'ro' : 'rw'},relatime`,
      fstype: fs.type,
      source: name,
      superOptions: superOptions(fs.type, ro),
    },
    fs.uuid,
  );
  ctx.mountsChanged();
  return ok();
}

/** The innermost mount containing a path. */
function containing(ctx: SimContext, path: string): SimMount {
  let best = ctx.mounts.mounts[0]!;
  for (const m of ctx.mounts.mounts) {
    const inside = m.mountpoint === '/' || path === m.mountpoint || path.startsWith(`${m.mountpoint}/`);
    if (inside && m.mountpoint.length >= best.mountpoint.length) best = m;
  }
  return best;
}

/** `umount DIR` or `umount DEV` (the most recent mount of that device). */
export function umount(ctx: SimContext, args: readonly string[]): ToolResult {
  const arg = args.find((a) => !a.startsWith('-'));
  if (!arg) return fail(1, 'umount: bad usage\n');
  let m = ctx.mounts.find(arg);
  if (!m) {
    const ref = device(ctx, arg);
    if (ref)
      m = [...ctx.mounts.mounts].reverse().find((x) => x.source === sourceName(ctx, ref) && x.root === '/');
  }
  if (!m) {
    if (!ctx.tree.exists(arg)) return fail(32, `umount: ${arg}: no mount point specified.\n`);
    return fail(32, `umount: ${arg}: not mounted.\n`);
  }
  const isBind = m.bind === true;
  const ref = m.source.startsWith('/dev/') ? device(ctx, m.source) : undefined;
  const fsKey = ref ? fsOf(ctx, ref)?.uuid : undefined;
  ctx.mounts.umount(m, fsKey, isBind);
  ctx.mountsChanged();
  return ok();
}
