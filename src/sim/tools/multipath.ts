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

/** One path group per path (group_by_serial on tgt), ordered by SCSI host, as the captures show. */
interface SimGroup {
  name: string;
  devT: string;
  hctl: string;
  state: string;
  active: boolean;
}

/**
 * The map's path groups as multipathd and dm see them: one group per path, the first group with a
 * running path is dm's active group (it switches away from a failed one), a path that is not
 * running is failed in dm and faulty to the checker (mp-multipathd-show-maps-json.txt, mp-dmsetup-status.txt).
 */
function groupsOf(ctx: SimContext, m: SimDmMap): { groups: SimGroup[]; current: number } {
  const groups = m.slaves
    .map((name) => ({ name, hit: ctx.kernel.sdDevice(name) }))
    .filter((p) => p.hit)
    .sort((a, b) => a.hit!.session.host - b.hit!.session.host)
    .map((p) => {
      const t = sdDevt(p.hit!.device.sdIndex!);
      const d = p.hit!.device;
      return {
        name: p.name,
        devT: `${t.major}:${t.minor}`,
        hctl: `${d.host}:0:0:${d.lun}`,
        state: d.state,
        active: d.state === 'running',
      };
    });
  return { groups, current: groups.findIndex((g) => g.active) };
}

/** `multipathd show maps json` (multipath-tools 0.9.4 print.c templates; mp-multipathd-show-maps-json.txt). */
function mapsJson(ctx: SimContext): string {
  const maps = [...ctx.kernel.maps.values()]
    .sort((a, b) => a.minor - b.minor)
    .map((m) => {
      const { groups, current } = groupsOf(ctx, m);
      return {
        name: m.name,
        uuid: m.wwid,
        sysfs: `dm-${m.minor}`,
        failback: '-',
        queueing: '-',
        paths: groups.length,
        write_prot: 'rw',
        dm_st: 'active',
        features: '0',
        hwhandler: '0',
        action: 'create',
        path_faults: groups.filter((g) => !g.active).length,
        vend: 'IET',
        prod: 'VIRTUAL-DISK',
        rev: '0001',
        switch_grp: 0,
        map_loads: 1,
        total_q_time: 0,
        q_timeouts: 0,
        path_groups: groups.map((g, i) => ({
          selector: 'service-time 0',
          pri: g.active ? 1 : 0,
          dm_st: i === current ? 'active' : 'enabled',
          marginal_st: 'normal',
          group: i + 1,
          paths: [
            {
              dev: g.name,
              dev_t: g.devT,
              dm_st: g.active ? 'active' : 'failed',
              dev_st: g.state,
              chk_st: g.active ? 'ready' : 'faulty',
              checker: 'tur',
              pri: g.active ? 1 : -1,
              host_wwnn: '[undef]',
              target_wwnn: ctx.kernel.sdDevice(g.name)?.session.iqn ?? '[undef]',
              host_wwpn: '[undef]',
              target_wwpn: '[undef]',
              host_adapter: ctx.kernel.sdDevice(g.name)?.session.localAddress ?? '[undef]',
              lun_hex: '0x0001000000000000',
              marginal_st: 'normal',
            },
          ],
        })),
      };
    });
  return `${JSON.stringify({ major_version: 0, minor_version: 1, maps }, null, 3)}\n`;
}

/**
 * `dmsetup table|status [--target multipath]`: the multipath target's lines (drivers/md/dm-mpath.c
 * multipath_status; mp-dmsetup-table.txt, mp-dmsetup-status.txt). An ioctl: it answers while paths are blocked.
 */
export function dmsetup(ctx: SimContext, args: readonly string[]): ToolResult {
  const cmd = args[0];
  if (cmd !== 'table' && cmd !== 'status')
    return fail(1, `dmsetup: ${cmd ?? ''}: unsupported in the simulator\n`);
  const maps = [...ctx.kernel.maps.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (maps.length === 0) return ok('No devices found\n');
  let out = '';
  for (const m of maps) {
    const { groups, current } = groupsOf(ctx, m);
    const head = `${m.name}: 0 ${m.sizeBytes / 512} multipath`;
    if (cmd === 'table') {
      out += `${head} 0 0 ${groups.length} 1 ${groups.map((g) => `service-time 0 1 2 ${g.devT} 1 1 `).join('')}\n`;
    } else {
      const pgs = groups.map(
        (g, i) => `${i === current ? 'A' : 'E'} 0 1 2 ${g.devT} ${g.active ? 'A 0' : 'F 1'} 0 1 `,
      );
      out += `${head} 2 0 0 0 ${groups.length} ${current + 1 || 1} ${pgs.join('')}\n`;
    }
  }
  return ok(out);
}

/** `multipath -ll` topology (mp-multipath-ll.txt): one path group per path, the first active. */
function topology(ctx: SimContext, maps: readonly SimDmMap[]): ToolResult {
  let out = '';
  for (const m of maps) {
    const { groups, current } = groupsOf(ctx, m);
    // multipath -ll waits on blocked paths' I/O: it hangs until they recover (docs/iscsiadm.md#sysfs).
    if (groups.some((g) => g.state === 'blocked')) return { hang: true };
    out += `${m.name} (${m.wwid}) dm-${m.minor} IET,VIRTUAL-DISK\nsize=${size(m.sizeBytes)} features='0' hwhandler='0' wp=rw\n`;
    const width = Math.max(...groups.map((g) => g.devT.length));
    groups.forEach((g, i) => {
      const last = i === groups.length - 1;
      const st = g.active ? 'active ready running' : `failed faulty ${g.state}`;
      out += `${last ? '`' : '|'}-+- policy='service-time 0' prio=${g.active ? 1 : 0} status=${i === current ? 'active' : 'enabled'}\n`;
      out += `${last ? ' ' : '|'} \`- ${g.hctl} ${g.name} ${g.devT.padEnd(width)} ${st}\n`;
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
  if (cmd === 'show maps json') return ok(mapsJson(ctx));
  if (cmd === 'show maps') {
    let out = 'name   sysfs uuid                             \n';
    for (const m of ctx.kernel.maps.values()) out += `${m.name} dm-${m.minor}  ${m.wwid}\n`;
    return ok(out);
  }
  return ok();
}
