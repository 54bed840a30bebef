import { fail, ok, type SimContext, type ToolResult } from '../context.js';

/** The block device a file stands for: kubelet bind-mounts `/dev/sdX` onto `<globalMapPath>/<podUID>`. */
function sizeBehind(ctx: SimContext, path: string): number {
  const m = ctx.mounts.find(path);
  const ref =
    m?.root.startsWith('/') && m.fstype === 'devtmpfs' ? ctx.kernel.resolveBlock(`/dev${m.root}`) : undefined;
  return ref ? ctx.kernel.sizeOf(ref) : 0;
}

function line(minor: number, file: string): string {
  return `/dev/loop${minor}: [0005]:${1000 + minor} (${file})\n`;
}

/** `losetup -f [--show] FILE`, `-d /dev/loopN`, `-j FILE`, `-a` (util-linux 2.38). */
export function losetup(ctx: SimContext, args: readonly string[]): ToolResult {
  const files = args.filter((a) => !a.startsWith('-'));
  if (args.includes('-d') || args.includes('--detach')) {
    let stderr = '';
    for (const dev of files) {
      const m = /^\/dev\/loop(\d+)$/.exec(dev);
      const l = m ? ctx.kernel.loops.get(Number(m[1])) : undefined;
      if (!l) stderr += `losetup: ${dev}: detach failed: No such device or address\n`;
      else ctx.kernel.detachLoop(l);
    }
    return stderr ? fail(1, stderr) : ok();
  }
  if (args.includes('-a') || args.includes('--all')) {
    return ok([...ctx.kernel.loops.values()].map((l) => line(l.minor, l.backingFile)).join(''));
  }
  const j = args.indexOf('-j') >= 0 ? args.indexOf('-j') : args.indexOf('--associated');
  if (j >= 0) {
    const file = args[j + 1] ?? '';
    return ok(
      [...ctx.kernel.loops.values()]
        .filter((l) => l.backingFile === file)
        .map((l) => line(l.minor, l.backingFile))
        .join(''),
    );
  }
  if (args.includes('-f') || args.includes('--find')) {
    const file = files[0];
    if (!file) return ok('/dev/loop0\n');
    if (!ctx.tree.exists(file))
      return fail(1, `losetup: ${file}: failed to set up loop device: No such file or directory\n`);
    const l = ctx.kernel.attachLoop(file, sizeBehind(ctx, file));
    return ok(args.includes('--show') ? `/dev/loop${l.minor}\n` : '');
  }
  return fail(1, 'losetup: bad usage\n');
}
