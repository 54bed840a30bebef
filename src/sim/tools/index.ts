import { fail, ok, type SimContext, type Tool, type ToolResult } from '../context.js';
import { iscsiadm } from '../iscsiadm/index.js';
import { blkid, blockdev, fsck, mkfs } from './block.js';
import { losetup } from './losetup.js';
import { mount, umount } from './mount.js';
import { dmsetup, multipath, multipathd } from './multipath.js';

/** Every program the simulated node has. Anything else is "not installed" (ENOENT), like execa says. */
const TOOLS: Record<string, Tool> = {
  iscsiadm,
  iscsid: (ctx, args) =>
    args.includes('--version') || args.includes('-v')
      ? ok(`iscsid version ${ctx.faults.iscsidVersion}\n`)
      : ok(),
  mount,
  umount,
  'mkfs.ext4': mkfs('ext4'),
  'mkfs.ext3': mkfs('ext3'),
  'mkfs.xfs': mkfs('xfs'),
  blkid,
  fsck,
  blockdev,
  losetup,
  multipath,
  multipathd,
  dmsetup,
  udevadm: (_ctx, args) =>
    ['settle', 'trigger', 'info', 'control'].includes(args[0] ?? '')
      ? ok()
      : fail(1, 'udevadm: unknown command\n'),
  sync: () => ok(),
};

/** `nsenter ... -- argv` / `nsenter --target 1 --mount ... argv` / `chroot DIR argv`: the inner command. */
function unwrap(argv: readonly string[]): readonly string[] {
  const [prog, ...rest] = argv;
  const base = prog?.split('/').pop();
  if (base === 'chroot') return unwrap(rest.slice(rest[0]?.startsWith('-') ? 2 : 1));
  if (base === 'nsenter') {
    const dd = rest.indexOf('--');
    if (dd >= 0) return unwrap(rest.slice(dd + 1));
    let i = 0;
    while (i < rest.length && rest[i]!.startsWith('-')) {
      const opt = rest[i]!;
      i += (opt === '-t' || opt === '--target') && !opt.includes('=') ? 2 : 1;
    }
    return unwrap(rest.slice(i));
  }
  return argv;
}

/** Runs one simulated program; undefined when it does not exist on the node. */
export function runTool(ctx: SimContext, argv: readonly string[]): ToolResult | undefined {
  const inner = unwrap(argv);
  const name = inner[0]?.split('/').pop() ?? '';
  const tool = TOOLS[name];
  return tool ? tool(ctx, inner.slice(1)) : undefined;
}
