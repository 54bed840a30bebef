/**
 * Multipath path groups and path states as `multipath -ll` words them, without running
 * `multipath -ll`: that runs the path checkers and prioritizers itself and hangs while paths are
 * blocked (the simulator models it). The topology comes from one of two sources, asked once for
 * every map (never a process per map or per path), each with a timeout:
 *
 * 1. `multipathd show maps json` (multipathd-json.ts): the daemon's memory, every word -ll prints.
 *    Asked only when a multipathd process runs: on a node with multipathd.socket, connecting to the
 *    socket would start the daemon, and a read-only console must not start one.
 * 2. Otherwise (or when it fails), the kernel's own state: `dmsetup table` and `dmsetup status` for
 *    the multipath target (multipath-dm.ts), an ioctl that does no I/O to any path. It has groups,
 *    selectors, group states and dm's path states, but no priorities or checker states.
 *
 * sysfs has none of this (dm/ holds name, uuid and suspended only). So the read is asynchronous and
 * kept per Host: a snapshot (synchronous) attaches the last read to its maps with this read's sysfs
 * device states (applyTopology); `followMultipathTopology` starts a new read when the maps or their
 * paths' states changed since the last one, and `readMultipathTopology` is the one-shot read for
 * `status`. Commands only run where they reach the node read (not a `--root` tree with `--exec
 * direct`, whose commands would answer for this machine).
 */
import { ExternalCommandError } from '../errors.js';
import type { Host, RunResult } from '../host/host.js';
import type {
  MultipathMap,
  MultipathPath,
  MultipathPathGroup,
  MultipathTopology,
  ScsiDevice,
  Snapshot,
} from '../model.js';
import { isoTime } from '../text/time.js';
import { type DmMultipath, joinDm, parseDmStatus, parseDmTable, splitDmLine } from './multipath-dm.js';
import { parseMultipathdMaps } from './multipathd-json.js';
import { readProcessTable } from './processes.js';

const TOPOLOGY_TIMEOUT_MS = 5_000;
/**
 * A checker can turn a path faulty while its SCSI device still reads `running` (a target that stops
 * answering TUR): a read older than this is renewed at the next snapshot even if nothing in sysfs moved.
 */
const TOPOLOGY_MAX_AGE_MS = 60_000;
export const MULTIPATHD_MAPS_ARGV = ['multipathd', 'show', 'maps', 'json'] as const;
const DMSETUP_TABLE_ARGV = ['dmsetup', 'table', '--target', 'multipath'] as const;
const DMSETUP_STATUS_ARGV = ['dmsetup', 'status', '--target', 'multipath'] as const;

/** One map's topology as a source gave it, before this snapshot's device states are added. */
export interface ReadTopology {
  features?: string;
  hwhandler?: string;
  writeProt?: string;
  queueing?: string;
  groups: {
    group: number;
    selector?: string;
    priority?: number;
    state: string;
    paths: {
      dev?: string;
      devT?: string;
      dmState?: string;
      checkerState?: string;
      devState?: string;
      priority?: number;
      failCount?: number;
    }[];
  }[];
}

/** A topology read of every map on the node. */
export interface TopologyRead {
  /** When it was read (host clock, ISO). */
  at: string;
  /** The source that answered; absent when none did. */
  source?: 'multipathd' | 'dmsetup';
  /** By map name (dm name: `mpatha`). */
  maps: Map<string, ReadTopology>;
  /** Why a source gave nothing (one line each, for the snapshot's problems). */
  problems: string[];
  /** The maps and path states the read was asked for (topologyFingerprint). */
  fingerprint: string;
}

const lastRead = new WeakMap<Host, TopologyRead>();
const inFlight = new WeakMap<Host, Promise<TopologyRead>>();

/** The last topology read of this host, if any. */
export function cachedTopology(host: Host): TopologyRead | undefined {
  return lastRead.get(host);
}

/** Sessions' block devices by name (`sdb`). */
function devicesByName(sessions: readonly { devices: readonly ScsiDevice[] }[]): Map<string, ScsiDevice> {
  const out = new Map<string, ScsiDevice>();
  for (const s of sessions) for (const d of s.devices) if (d.name) out.set(d.name, d);
  return out;
}

function fingerprintOf(snapshot: Snapshot): string {
  const devices = devicesByName(snapshot.sessions);
  return topologyFingerprint(snapshot.multipath, (sd) => devices.get(sd)?.state);
}

/** What a topology depends on: map names, their paths, and the paths' kernel states. */
function topologyFingerprint(
  maps: readonly MultipathMap[],
  stateOf: (sd: string) => string | undefined,
): string {
  return maps
    .map(
      (m) =>
        `${m.alias}${m.suspended ? '!' : ''}:${m.slaves.map((s) => `${s}=${stateOf(s) ?? '?'}`).join(',')}`,
    )
    .join(';');
}

function failure(what: string, r: RunResult): string {
  if (r.spawnError) return `${what}: not installed (${r.spawnError})`;
  if (r.timedOut) return `${what}: no answer within ${TOPOLOGY_TIMEOUT_MS / 1000} s`;
  const last = (r.stderr.trim() || r.stdout.trim()).split('\n').pop()?.slice(0, 200) ?? '';
  return `${what}: exit ${r.exitCode ?? 'killed'}${last ? ` (${last})` : ''}`;
}

/** Runs a reader command; output over the runner's cap (a thrown refusal) becomes a failed result. */
async function runQuiet(host: Host, argv: readonly string[]): Promise<RunResult> {
  try {
    return await host.run(argv, { timeoutMs: TOPOLOGY_TIMEOUT_MS });
  } catch (e) {
    if (!(e instanceof ExternalCommandError)) throw e;
    return { argv: [...argv], exitCode: null, stdout: '', stderr: e.message, timedOut: false, durationMs: 0 };
  }
}

/** Every map's topology from a `multipathd show maps json` reply (throws when it is not one). */
export function multipathdTopology(text: string): Map<string, ReadTopology> {
  const out = new Map<string, ReadTopology>();
  for (const m of parseMultipathdMaps(text)) {
    const t: ReadTopology = {
      groups: m.groups.map((g) => ({
        group: g.group,
        ...(g.selector !== undefined ? { selector: g.selector } : {}),
        ...(g.priority !== undefined ? { priority: g.priority } : {}),
        state: g.state ?? 'undef',
        paths: g.paths.map((p) => ({ ...p })),
      })),
    };
    if (m.features !== undefined) t.features = m.features;
    if (m.hwhandler !== undefined) t.hwhandler = m.hwhandler;
    if (m.writeProt !== undefined) t.writeProt = m.writeProt;
    if (m.queueing !== undefined) t.queueing = m.queueing;
    out.set(m.name, t);
  }
  return out;
}

function dmLines(
  text: string,
  parse: (w: readonly string[]) => DmMultipath,
  problems: string[],
): Map<string, DmMultipath> {
  const out = new Map<string, DmMultipath>();
  for (const line of text.split('\n')) {
    const l = splitDmLine(line);
    if (!l) continue;
    try {
      out.set(l.name, parse(l.words));
    } catch (e) {
      problems.push(`dmsetup: ${l.name}: ${(e as Error).message}`);
    }
  }
  return out;
}

/**
 * Every map's topology from `dmsetup table` and `dmsetup status` output (status may be empty when
 * it failed); lines that do not parse are one problem each.
 */
export function dmTopology(
  tableText: string,
  statusText: string,
  problems: string[],
): Map<string, ReadTopology> {
  const table = dmLines(tableText, parseDmTable, problems);
  const status = dmLines(statusText, parseDmStatus, problems);
  const out = new Map<string, ReadTopology>();
  for (const [name, t] of table) {
    const j = joinDm(t, status.get(name));
    const r: ReadTopology = {
      groups: j.groups.map((g, i) => ({
        group: i + 1,
        ...(g.selector !== undefined ? { selector: g.selector } : {}),
        state: g.state ?? 'undef',
        paths: g.paths.map((p) => ({
          devT: p.devT,
          ...(p.active !== undefined ? { dmState: p.active ? 'active' : 'failed' } : {}),
          ...(p.failCount !== undefined ? { failCount: p.failCount } : {}),
        })),
      })),
    };
    if (j.features !== undefined) r.features = j.features;
    if (j.hwhandler !== undefined) r.hwhandler = j.hwhandler;
    out.set(name, r);
  }
  return out;
}

/**
 * Reads the topology of every multipath map now: multipathd when it runs, else dmsetup (see the
 * file comment). Never throws; what failed is in `problems`. Kept as this host's last read.
 */
export async function readMultipathTopology(host: Host, fingerprint = ''): Promise<TopologyRead> {
  const problems: string[] = [];
  const at = isoTime(host.now());
  const done = (source: TopologyRead['source'], maps: Map<string, ReadTopology>): TopologyRead => {
    const r: TopologyRead = { at, maps, problems, fingerprint };
    if (source) r.source = source;
    lastRead.set(host, r);
    return r;
  };
  if (readProcessTable(host).pids('multipathd').length > 0) {
    const r = await runQuiet(host, MULTIPATHD_MAPS_ARGV);
    if (r.exitCode === 0) {
      try {
        return done('multipathd', multipathdTopology(r.stdout));
      } catch (e) {
        problems.push(`multipathd show maps json: unreadable reply (${(e as Error).message})`);
      }
    } else problems.push(failure('multipathd show maps json', r));
  }
  const t = await runQuiet(host, DMSETUP_TABLE_ARGV);
  if (t.exitCode !== 0) {
    problems.push(failure('dmsetup table', t));
    return done(undefined, new Map());
  }
  const s = await runQuiet(host, DMSETUP_STATUS_ARGV);
  if (s.exitCode !== 0) problems.push(failure('dmsetup status', s));
  return done('dmsetup', dmTopology(t.stdout, s.exitCode === 0 ? s.stdout : '', problems));
}

/**
 * Adds the last read's topology to `maps` (in place): path names for `major:minor`, H:C:T:L and
 * the kernel device state of this snapshot. Maps the read did not cover get none.
 */
export function applyTopology(
  maps: readonly MultipathMap[],
  sessions: readonly { devices: readonly ScsiDevice[] }[],
  read: TopologyRead | undefined,
): void {
  if (!read?.source || maps.length === 0) return;
  const devices = devicesByName(sessions);
  const byDevT = new Map<string, ScsiDevice>();
  for (const d of devices.values()) if (d.majMin) byDevT.set(d.majMin, d);
  for (const m of maps) {
    const t = read.maps.get(m.alias);
    if (!t) continue;
    const pathGroups: MultipathPathGroup[] = t.groups.map((g) => {
      const paths: MultipathPath[] = g.paths.map((p) => {
        const d =
          (p.dev !== undefined ? devices.get(p.dev) : undefined) ?? (p.devT ? byDevT.get(p.devT) : undefined);
        const out: MultipathPath = { dev: p.dev ?? d?.name ?? p.devT ?? '?' };
        if (p.devT !== undefined) out.devT = p.devT;
        if (d?.hctl) out.hctl = d.hctl;
        if (p.dmState !== undefined) out.dmState = p.dmState;
        if (p.checkerState !== undefined) out.checkerState = p.checkerState;
        const devState = d?.state ?? p.devState;
        if (devState !== undefined) out.devState = devState;
        if (p.priority !== undefined) out.priority = p.priority;
        if (p.failCount !== undefined) out.failCount = p.failCount;
        return out;
      });
      const group: MultipathPathGroup = { group: g.group, state: g.state, paths };
      if (g.selector !== undefined) group.selector = g.selector;
      if (g.priority !== undefined) group.priority = g.priority;
      return group;
    });
    const topology: MultipathTopology = { source: read.source, readAt: read.at, pathGroups };
    if (t.features !== undefined) topology.features = t.features;
    if (t.hwhandler !== undefined) topology.hwhandler = t.hwhandler;
    if (t.writeProt !== undefined) topology.writeProt = t.writeProt;
    if (t.queueing !== undefined) topology.queueing = t.queueing;
    m.topology = topology;
  }
}

/**
 * For a long-running reader (the console's watcher): after each snapshot, starts a topology read
 * when the snapshot's maps or path states differ from what the last read was asked for, or that
 * read is older than TOPOLOGY_MAX_AGE_MS, and calls
 * `onRead` once it is in (the caller re-reads, and the new snapshot carries it). One read at a
 * time per host; nothing runs while the node has no multipath map or commands do not reach it.
 */
export function followMultipathTopology(
  host: Host,
  snapshot: Snapshot,
  onRead: (changed: boolean) => void,
  commandsReachNode = host.kind !== 'root',
): void {
  const maps = snapshot.multipath;
  if (!commandsReachNode || maps.length === 0 || inFlight.has(host)) return;
  const fingerprint = fingerprintOf(snapshot);
  const last = lastRead.get(host);
  if (last?.fingerprint === fingerprint && host.now() - Date.parse(last.at) < TOPOLOGY_MAX_AGE_MS) return;
  const p = readMultipathTopology(host, fingerprint);
  inFlight.set(host, p);
  void p.then(
    (read) => {
      inFlight.delete(host);
      // `changed` is false for a renewal that found what the last read found: the watcher then
      // needs no re-read of the node to carry it (a minute's renewal on a steady node costs one
      // command, not a second snapshot).
      onRead(!last || !sameTopology(last, read));
    },
    () => inFlight.delete(host),
  );
}

/** Two reads that say the same (source, problems, every map's groups and paths), whenever taken. */
function sameTopology(a: TopologyRead, b: TopologyRead): boolean {
  const text = (r: TopologyRead) => JSON.stringify([r.source, r.problems, [...r.maps]]);
  return text(a) === text(b);
}

/**
 * `status`: reads the topology now and adds it to `snapshot`'s maps (no process when the node has
 * no multipath map, or commands do not reach it).
 */
export async function addMultipathTopology(
  host: Host,
  snapshot: Snapshot,
  commandsReachNode: boolean,
): Promise<void> {
  if (!commandsReachNode || snapshot.multipath.length === 0) return;
  const read = await readMultipathTopology(host, fingerprintOf(snapshot));
  applyTopology(snapshot.multipath, snapshot.sessions, read);
  for (const p of read.problems) snapshot.problems.push(`multipath topology: ${p}`);
}
