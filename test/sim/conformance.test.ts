import * as fs from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { loadCapture, type SysfsCapture } from '../helpers/materialize-sysfs.js';
import { iscsiadm, labSim, labTargets, T1, type TestSim } from './helpers.js';

/**
 * Fidelity of the simulated sysfs against the real captures (Debian 6.1, open-iscsi 2.1.8, tgt):
 * after the same logins, the same set of paths once numbers are normalised, the same link targets,
 * modes and attribute value formats, within the subtrees the engine reads.
 */

/** Subtrees the engine (and kubelet, udev, iscsiadm) read. */
const SCOPE = [
  /^\/sys\/class\/(iscsi_session|iscsi_connection|iscsi_host|scsi_host|scsi_device)(\/|$)/,
  /^\/sys\/block(\/|$)/,
  /^\/sys\/bus\/scsi\/devices(\/|$)/,
  /^\/sys\/devices\/platform\/hostN(\/|$)/,
  /^\/sys\/devices\/virtual\/block\/dm-N(\/|$)/,
];

/**
 * What the simulator deliberately does not materialise because nothing reads it: runtime PM,
 * request-queue tuning, bsg/sg nodes, VPD pages, I/O counters, uevent/subsystem links, and the
 * leaf attributes listed (ALUA/device-handler state, queue tuning, block event polling, stats).
 */
const NOISE_DIRS =
  /\/(power|queue|mq|integrity|trace|bsg|scsi_generic|scsi_disk|subsystem|uevent|bdi|driver|generic|inquiry|vpd_pg\w+|evt_\w+|io\w+_cnt)(\/|$)/;
const NOISE_LEAVES = new Set([
  'eh_deadline',
  'nr_hw_queues',
  'prot_capabilities',
  'prot_guard_type',
  'sg_prot_tablesize',
  'sg_tablesize',
  'use_blk_mq',
  'access_state',
  'blacklist',
  'dh_state',
  'iocounterbits',
  'modalias',
  'preferred_path',
  'queue_ramp_up_period',
  'queue_type',
  'alignment_offset',
  'discard_alignment',
  'diskseq',
  'events',
  'events_async',
  'events_poll_msecs',
  'ext_range',
  'hidden',
  'range',
  'stat',
  'rq_based_seq_io_merge_deadline',
]);

function norm(p: string): string {
  return p
    .replace(/host\d+/g, 'hostN')
    .replace(/session\d+/g, 'sessionN')
    .replace(/connection\d+:\d+/g, 'connectionN:0')
    .replace(/target\d+:0:0/g, 'targetN:0:0')
    .replace(/\b\d+:0:0:(\d+)/g, 'H:0:0:$1')
    .replace(/\bsd[a-z]+\b/g, 'sdX')
    .replace(/dm-\d+/g, 'dm-N');
}

function inScope(p: string): boolean {
  if (!SCOPE.some((r) => r.test(p)) || NOISE_DIRS.test(p)) return false;
  return !NOISE_LEAVES.has(p.slice(p.lastIndexOf('/') + 1));
}

/** The format class of an attribute value (values differ between runs; their shapes must not). */
function valueClass(v: string): string {
  const nl = v.endsWith('\n') ? '\\n' : '';
  const s = nl ? v.slice(0, -1) : v;
  const classes: [string, RegExp][] = [
    ['empty', /^$/],
    ['int', /^-?\d+$/],
    ['hex', /^0x[0-9a-f]+$/],
    ['null', /^\(null\)$/],
    ['iqn', /^iqn\.\d{4}-\d{2}\.[^\s:]+:\S+$/],
    ['ipv4', /^\d+\.\d+\.\d+\.\d+$/],
    ['naa', /^naa\.[0-9a-f]{32}$/],
    ['dm-uuid', /^mpath-3[0-9a-f]{32}$/],
    ['mpath', /^mpath[a-z]+$/],
    ['devt', /^\d+:\d+$/],
    ['STATE', /^[A-Z_]+$/],
    ['word', /^[a-z][a-z_-]*$/],
    ['inflight', /^ {7}\d+ {8}\d+$/],
  ];
  for (const [name, re] of classes) if (re.test(s)) return name + nl;
  if (/\s+$/.test(s)) return `padded${s.length}${nl}`;
  return `other(${s})${nl}`;
}

interface Shape {
  kind: string;
  link?: string;
  mode?: string;
  cls?: string;
}

function captureShapes(cap: SysfsCapture): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [p, e] of Object.entries(cap.entries)) {
    const key = norm(p);
    if (!inScope(key)) continue;
    const s: Shape =
      e.t === 'd'
        ? { kind: 'dir' }
        : e.t === 'l'
          ? { kind: 'link', link: norm(e.to) }
          : { kind: 'file', mode: e.mode ?? '', ...('v' in e ? { cls: valueClass(e.v) } : {}) };
    out.set(key, (out.get(key) ?? new Set()).add(JSON.stringify(s)));
  }
  return out;
}

function simShapes(root: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(root + rel, { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      const key = norm(p);
      if (inScope(key)) {
        const st = fs.lstatSync(root + p);
        const mode = `0${(st.mode & 0o777).toString(8)}`;
        const s: Shape = e.isSymbolicLink()
          ? { kind: 'link', link: norm(fs.readlinkSync(root + p)) }
          : e.isDirectory()
            ? { kind: 'dir' }
            : mode === '0200'
              ? { kind: 'file', mode }
              : { kind: 'file', mode, cls: valueClass(fs.readFileSync(root + p, 'utf8')) };
        out.set(key, (out.get(key) ?? new Set()).add(JSON.stringify(s)));
      }
      if (e.isDirectory()) walk(p);
    }
  };
  walk('/sys');
  return out;
}

function compare(sim: Map<string, Set<string>>, cap: Map<string, Set<string>>) {
  const missing = [...cap.keys()].filter((k) => !sim.has(k)).sort();
  const extra = [...sim.keys()].filter((k) => !cap.has(k)).sort();
  const differing: string[] = [];
  for (const [k, shapes] of cap) {
    const mine = sim.get(k);
    if (!mine) continue;
    const a = [...shapes].sort().join(' | ');
    const b = [...mine].sort().join(' | ');
    if (a !== b) differing.push(`${k}\n  capture: ${a}\n  sim:     ${b}`);
  }
  return { missing, extra, differing };
}

let t: TestSim | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

describe('sysfs shape conformance with the real captures', () => {
  test('single-path login (single-sysfs.json): target1 via 127.0.0.1, LUN 0 controller + two disks', async () => {
    t = labSim();
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    const login = await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
    expect(login.exit).toBe(0);
    const result = compare(simShapes(t.sim.root), captureShapes(loadCapture('single-sysfs.json')));
    expect(result).toEqual({ missing: [], extra: [], differing: [] });
  });

  test('two-portal multipath login (mp-sysfs.json): 2 sessions, 4 paths, dm-0/dm-1 with holders/slaves', async () => {
    t = labSim(labTargets(['127.0.0.1:3260', '127.0.0.2:3260']));
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.2:3260');
    const login = await iscsiadm(t.host, '-m', 'node', '-T', T1, '--login');
    expect(login.exit).toBe(0);
    const cap = captureShapes(loadCapture('mp-sysfs.json'));
    const result = compare(simShapes(t.sim.root), cap);
    expect(result).toEqual({ missing: [], extra: [], differing: [] });
    // The maps themselves: names, uuid format and two slaves each, like the capture.
    expect(t.host.readText('/sys/block/dm-0/dm/name')).toBe('mpatha\n');
    expect(t.host.readText('/sys/block/dm-1/dm/uuid')).toMatch(/^mpath-3[0-9a-f]{32}\n$/);
    expect(t.host.readDir('/sys/block/dm-0/slaves')).toHaveLength(2);
  });

  test('the comparison can fail: a missing attribute is reported', async () => {
    t = labSim();
    await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    await iscsiadm(t.host, '-m', 'node', '-T', T1, '-p', '127.0.0.1:3260', '--login');
    fs.rmSync(`${t.sim.root}/sys/class/iscsi_session/session1/targetname`);
    const result = compare(simShapes(t.sim.root), captureShapes(loadCapture('single-sysfs.json')));
    expect(result.missing).toContain(
      '/sys/devices/platform/hostN/sessionN/iscsi_session/sessionN/targetname',
    );
  });
});
