/**
 * Runs in the e2e guest (bench/vm/peers.sh): the production watcher (startWatcher on FsHost("/"),
 * udev on, default 2 s poll) against real kernel changes, timed with measureChangeToEvent.
 *
 *   node vm-watch.mjs REPS IQN PORTAL LUN KUBELET_ROOT
 *
 * For each rep: login (session add), delete the LUN's sd device (device remove), rescan the host
 * (device add), set the device offline (no uevent: the poll's job) and back, logout (session
 * remove). Every change runs in a child process (as an admin's command would), never blocking this
 * event loop. Three clocks per change, all CLOCK_MONOTONIC:
 * - start → event: what measureChangeToEvent returns (includes the command's own run time);
 * - uevent → event: from the kernel uevent (the timestamp a separate `udevadm monitor --kernel`
 *   prints, CLOCK_MONOTONIC at reception) to the event in the store: the watcher's own latency,
 *   what bench/README.md targets (< 300 ms for add/remove where uevents are available);
 * - return → event: from the command's exit (negative: the event came first).
 * Prints one JSON line: { kind: [{startMs, ueventMs, returnMs}, ...], ... , meta }.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { FsHost } from '../../src/engine/host/fs-host.js';
import type { NodeEvent } from '../../src/watchers/index.js';
import { startWatcher } from '../../src/watchers/index.js';
import { round } from '../lib/stats.js';
import { measureChangeToEvent } from '../lib/watch-measure.js';

const [repsArg, iqn, portal, lunArg, kubeletRoot = '/var/lib/kubelet'] = process.argv.slice(2);
if (!iqn || !portal || !lunArg) {
  process.stderr.write('usage: vm-watch.mjs REPS IQN PORTAL LUN [KUBELET_ROOT]\n');
  process.exit(2);
}
const reps = Number(repsArg ?? 3);
const lun = Number(lunArg);
const monoMs = () => Number(process.hrtime.bigint()) / 1e6;
const log = (m: string) => process.stderr.write(`[bench watch] ${m}\n`);

/** The reference: every kernel uevent with its reception time (udevadm's CLOCK_MONOTONIC stamp). */
interface Uevent {
  atMs: number;
  action: string;
  devpath: string;
  subsystem: string;
}
const uevents: Uevent[] = [];
const monitor = spawn(
  'udevadm',
  ['monitor', '--kernel', '--subsystem-match=iscsi_session', '--subsystem-match=block'],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
let partial = '';
monitor.stdout.on('data', (b: Buffer) => {
  const lines = (partial + b.toString('utf8')).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    const m = /^KERNEL\[(\d+)\.(\d+)\]\s+(\S+)\s+(\S+)\s+\((\S+)\)/.exec(line);
    if (m) {
      const atMs = Number(m[1]) * 1000 + Number(m[2]) / 1000;
      uevents.push({ atMs, action: m[3]!, devpath: m[4]!, subsystem: m[5]! });
    }
  }
});

const host = new FsHost({ root: '/', runner: { mode: 'direct' } });
const watcher = startWatcher({ host, kubeletRoot });

/** Runs argv as a child (an admin's command); resolves with its exit time on the monotonic clock. */
function run(argv: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const c = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
    c.on('error', reject);
    c.on('exit', (code) =>
      code === 0 ? resolve(monoMs()) : reject(new Error(`${argv.join(' ')} exited ${code}`)),
    );
  });
}
const sh = (script: string) => run(['sh', '-c', script]);

interface Run {
  startMs: number;
  ueventMs: number | null;
  returnMs: number;
}
const out: Record<string, Run[]> = {
  session_add: [],
  session_remove: [],
  device_add: [],
  device_remove: [],
  device_offline: [],
};

/**
 * One timed change: measureChangeToEvent from the production watcher, plus the reference uevent
 * (the first after the change started that `uevent` matches) and the command's return time.
 */
async function timed(
  kind: string,
  argv: string[],
  match: (e: NodeEvent) => boolean,
  uevent?: (u: Uevent) => boolean,
): Promise<void> {
  let startMono = 0;
  let returned = 0;
  let failed: Error | undefined;
  const ms = await measureChangeToEvent(
    watcher,
    async () => {
      startMono = monoMs();
      // Not awaited: the clock stops at the event, which may come before the command returns.
      void run(argv).then(
        (t) => {
          returned = t;
        },
        (e: Error) => {
          failed = e;
        },
      );
    },
    match,
    20_000,
  ).catch((e: Error) => {
    throw new Error(`${kind}: ${failed?.message ?? `no matching event (${e.message})`}`);
  });
  const eventMono = startMono + ms;
  await until(() => returned > 0 || !!failed, 30_000, `${kind} command to return`);
  if (failed) throw new Error(`${kind}: ${failed.message}`);
  // The monitor's line may be read after the store event (its pipe vs the watcher's): wait briefly.
  let u: Uevent | undefined;
  if (uevent) {
    // Same clock or nothing: a stamp outside [start, now] means udevadm's clock is not ours.
    const find = () => uevents.find((x) => x.atMs >= startMono - 1 && x.atMs <= monoMs() + 1 && uevent(x));
    const deadline = monoMs() + 2_000;
    u = find();
    while (!u && monoMs() < deadline) {
      await sleep(20);
      u = find();
    }
  }
  out[kind]!.push({
    startMs: round(ms),
    ueventMs: u ? round(eventMono - u.atMs) : null,
    returnMs: round(eventMono - returned),
  });
  log(`${kind}: start→event ${round(ms)} ms, uevent→event ${u ? round(eventMono - u.atMs) : '?'} ms`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = monoMs() + timeoutMs;
  while (!cond()) {
    if (monoMs() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The session of IQN on PORTAL and its LUN's sd name and SCSI host, from sysfs. */
function sessionOf(): { sid: string; hostNo: string; disk?: string } | undefined {
  try {
    return findSession();
  } catch {
    // A session or device that came or went between two reads: ask again on the next look.
    return undefined;
  }
}
function findSession(): { sid: string; hostNo: string; disk?: string } | undefined {
  for (const s of readdirSync('/sys/class/iscsi_session')) {
    const dir = `/sys/class/iscsi_session/${s}`;
    if (host.readText(`${dir}/targetname`)?.trim() !== iqn) continue;
    const dev = `/sys/class/iscsi_session/${s}/device`;
    const conn = readdirSync(dev).find((n) => n.startsWith('connection'));
    const cdir = conn ? `${dev}/${conn}/iscsi_connection/${conn}` : undefined;
    const addr = cdir
      ? `${host.readText(`${cdir}/persistent_address`)?.trim()}:${host.readText(`${cdir}/persistent_port`)?.trim()}`
      : '';
    if (addr !== portal) continue;
    const hostNo = basename(readlinkSync(dev).replace(/\/session\d+$/, '')).replace(/\D/g, '');
    let disk: string | undefined;
    for (const t of readdirSync(dev).filter((n) => n.startsWith('target'))) {
      for (const h of readdirSync(`${dev}/${t}`).filter((n) => n.endsWith(`:${lun}`))) {
        const b = `${dev}/${t}/${h}/block`;
        if (existsSync(b)) disk = readdirSync(b)[0];
      }
    }
    return { sid: s.replace('session', ''), hostNo, disk };
  }
  return undefined;
}
const byPath = `/dev/disk/by-path/ip-${portal}-iscsi-${iqn}-lun-${lun}`;
const settle = () => run(['udevadm', 'settle', '--timeout=30']);
const isMsg = (kind: string, re: RegExp) => (e: NodeEvent) => e.kind === kind && re.test(e.message);

try {
  await watcher.ready;
  const health = watcher.store
    .getState()
    .health.sources.filter((s) => s.active)
    .map((s) => s.name);
  log(`watcher ready; sources: ${health.join(', ')}`);
  const node = ['iscsiadm', '-m', 'node', '-T', iqn, '-p', portal];
  for (let i = 0; i < reps; i++) {
    await timed(
      'session_add',
      [...node, '--login'],
      isMsg('session', /appeared/),
      (u) => u.action === 'add' && u.subsystem === 'iscsi_session',
    );
    await until(() => existsSync(byPath) && !!sessionOf()?.disk, 60_000, 'the by-path link');
    await settle();
    let s = sessionOf()!;
    const disk1 = s.disk!;
    await timed(
      'device_remove',
      ['sh', '-c', `echo 1 > /sys/block/${disk1}/device/delete`],
      isMsg('device', new RegExp(`^${disk1} gone`)),
      (u) => u.action === 'remove' && u.subsystem === 'block' && u.devpath.endsWith(`/${disk1}`),
    );
    await settle();
    await timed(
      'device_add',
      ['sh', '-c', `echo '- - ${lun}' > /sys/class/scsi_host/host${s.hostNo}/scan`],
      isMsg('device', /appeared/),
      (u) => u.action === 'add' && u.subsystem === 'block' && /\/sd[a-z]+$/.test(u.devpath),
    );
    await until(() => existsSync(byPath) && !!sessionOf()?.disk, 60_000, 'the rescanned disk');
    await settle();
    s = sessionOf()!;
    const disk2 = s.disk!;
    await timed(
      'device_offline',
      ['sh', '-c', `echo offline > /sys/block/${disk2}/device/state`],
      isMsg('device', new RegExp(`^${disk2} state running→offline`)),
    );
    // Back to running, seen by the poll before the logout (else the logout's diff hides it).
    await measureChangeToEvent(
      watcher,
      () => sh(`echo running > /sys/block/${disk2}/device/state`),
      isMsg('device', new RegExp(`^${disk2} state offline→running`)),
      10_000,
    );
    await timed(
      'session_remove',
      [...node, '--logout'],
      isMsg('session', /gone/),
      (u) => u.action === 'remove' && u.subsystem === 'iscsi_session',
    );
    await until(() => !existsSync(byPath), 30_000, 'the by-path link to go');
    await settle();
  }
  process.stdout.write(`${JSON.stringify({ ...out, sources: health, reps })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ ...out, error: (e as Error).message })}\n`);
} finally {
  await watcher.stop();
  monitor.kill();
}
