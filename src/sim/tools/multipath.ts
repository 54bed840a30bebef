import { fail, ok, type SimContext, type ToolResult } from '../context.js';
import { sdDevt } from '../kernel/names.js';
import type { SimDmMap } from '../types.js';
import { mountedAt } from './block.js';

function size(bytes: number): string {
  const mib = bytes / 1048576;
  return mib < 1024 ? `${Math.round(mib)}M` : `${+(mib / 1024).toFixed(1)}G`;
}

/** A map is in use while mounted, held by a loop device or another dm device (dm open count > 0). */
function inUse(ctx: SimContext, m: SimDmMap): boolean {
  const ref = { kind: 'dm' as const, name: `dm-${m.minor}`, map: m };
  if (mountedAt(ctx, ref).length > 0) return true;
  return [...ctx.kernel.loops.values()].some(
    (l) => ctx.mounts.find(l.backingFile)?.root === `/dm-${m.minor}`,
  );
}

function findMap(ctx: SimContext, arg: string): SimDmMap | undefined {
  const byName = [...ctx.kernel.maps.values()].find((m) => m.name === arg || m.wwid === arg);
  if (byName) return byName;
  const ref = ctx.kernel.resolveBlock(arg);
  return ref?.kind === 'dm' ? ref.map : undefined;
}

/** `multipath -ll` topology (mp-multipath-ll.txt): one path group per path, the first active. */
function topology(ctx: SimContext, maps: readonly SimDmMap[]): ToolResult {
  let out = '';
  for (const m of maps) {
    const paths = m.slaves
      .map((name) => ({ name, hit: ctx.kernel.sdDevice(name) }))
      .filter((p) => p.hit)
      .sort((a, b) => a.hit!.session.host - b.hit!.session.host);
    // multipath -ll waits on blocked paths' I/O: it hangs until they recover (docs/iscsiadm.md#sysfs).
    if (paths.some((p) => p.hit!.device.state === 'blocked')) return { hang: true };
    out += `${m.name} (${m.wwid}) dm-${m.minor} IET,VIRTUAL-DISK\nsize=${size(m.sizeBytes)} features='0' hwhandler='0' wp=rw\n`;
    const devts = paths.map((p) => {
      const t = sdDevt(p.hit!.device.sdIndex!);
      return `${t.major}:${t.minor}`;
    });
    const width = Math.max(...devts.map((d) => d.length));
    paths.forEach((p, i) => {
      const last = i === paths.length - 1;
      const d = p.hit!.device;
      const st = d.state === 'running' ? 'active ready running' : `failed faulty ${d.state}`;
      const group = i === 0 && d.state === 'running' ? 'active' : 'enabled';
      out += `${last ? '`' : '|'}-+- policy='service-time 0' prio=1 status=${group}\n`;
      out += `${last ? ' ' : '|'} \`- ${d.host}:0:0:${d.lun} ${p.name} ${devts[i]!.padEnd(width)} ${st}\n`;
    });
  }
  return ok(out);
}

/** `multipath -f MAP`, `-F`, `-ll [MAP]`, `-r` (multipath-tools 0.9.4). */
export function multipath(ctx: SimContext, args: readonly string[]): ToolResult {
  const target = args.find((a) => !a.startsWith('-'));
  if (args.includes('-f')) {
    const m = target ? findMap(ctx, target) : undefined;
    if (!m) return fail(1, `${target}: no map found\n`);
    if (inUse(ctx, m)) return fail(1, `${m.name}: map in use\n`);
    ctx.kernel.removeMap(m);
    return ok();
  }
  if (args.includes('-F')) {
    let stderr = '';
    for (const m of [...ctx.kernel.maps.values()]) {
      if (inUse(ctx, m)) stderr += `${m.name}: map in use\n`;
      else ctx.kernel.removeMap(m);
    }
    return stderr ? fail(1, stderr) : ok();
  }
  if (args.includes('-ll') || args.includes('-l')) {
    const maps = [...ctx.kernel.maps.values()].sort((a, b) => a.minor - b.minor);
    return topology(ctx, target ? maps.filter((m) => m === findMap(ctx, target)) : maps);
  }
  ctx.kernel.reconcileMultipath();
  return ok();
}

/** `multipathd show status|maps|paths`; refused while the daemon is stopped. */
export function multipathd(ctx: SimContext, args: readonly string[]): ToolResult {
  if (!ctx.daemons.multipathd) return fail(1, 'ux_socket_connect: Connection refused\n');
  const cmd = args.join(' ');
  if (cmd === 'show status') {
    return ok(
      `path checker states:\n${ctx.kernel.sdDevices().size ? `up                  ${ctx.kernel.sdDevices().size}\n` : ''}\npaths: ${ctx.kernel.sdDevices().size}\nbusy: False\n`,
    );
  }
  if (cmd === 'show maps') {
    let out = 'name   sysfs uuid                             \n';
    for (const m of ctx.kernel.maps.values()) out += `${m.name} dm-${m.minor}  ${m.wwid}\n`;
    return ok(out);
  }
  return ok();
}
