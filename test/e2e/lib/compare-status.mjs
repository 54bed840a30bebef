// compare-status.mjs — runs in the guest on the project's node: compares `iscsi-console status --json`
// with what the kernel's own tools show on the same node at the same moment.
//
//   node compare-status.mjs --status S.json --session-p3 P3.txt --lsblk L.json [--multipath LL.txt]
//                           [--expect '<iqn>|<portal>=<verdict>/<health>' ...]
//
// Prints one `OK   ...` or `FAIL ...` line per check and exits 1 if any failed. The parsers below are
// written against real outputs (open-iscsi 2.1.8 `session_info_print_tree`, util-linux 2.38 lsblk,
// multipath-tools 0.9.4 `multipath -ll`), deliberately independent of the project's own parsers.
// E2E_FAULT=status-wrong-host shifts every host number iscsiadm reported by one, to prove the checks
// can fail.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const expects = args.flatMap((a, i) => (a === '--expect' ? [args[i + 1]] : []));
let fails = 0;
const ok = (m) => console.log(`OK   ${m}`);
const bad = (m) => {
  fails += 1;
  console.log(`FAIL ${m}`);
};
const check = (cond, m) => (cond ? ok(m) : bad(m));
const sameSet = (a, b) => {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};
const show = (v) => JSON.stringify(v);

/** `iscsiadm -m session -P 3`: one record per session (a target heads several portals' sessions). */
export function parseSessionP3(text) {
  const sessions = [];
  let target;
  let s;
  let dev;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let m = /^Target: (\S+)/.exec(line);
    if (m) {
      target = m[1];
      continue;
    }
    m = /^Current Portal: (.+):(\d+),(\d+)$/.exec(line);
    if (m) {
      s = { targetIqn: target, current: `${m[1]}:${m[2]}`, tpgt: Number(m[3]), devices: [] };
      sessions.push(s);
      continue;
    }
    if (!s) continue;
    m = /^Persistent Portal: (.+):(\d+),(\d+)$/.exec(line);
    if (m) s.portal = `${m[1]}:${m[2]}`;
    m = /^Iface Name: (.+)$/.exec(line);
    if (m) s.iface = m[1];
    m = /^SID: (\d+)$/.exec(line);
    if (m) s.sid = Number(m[1]);
    m = /^iSCSI Session State: (\S+)$/.exec(line);
    if (m) s.state = m[1];
    // "Timeouts:" and "Negotiated iSCSI params:" (open-iscsi usr/session_info.c print_iscsi_params /
    // session_info_print_tree): `Name: value`, `<empty>` when the kernel does not show one.
    m =
      /^(Recovery Timeout|Target Reset Timeout|LUN Reset Timeout|Abort Timeout|HeaderDigest|DataDigest|MaxRecvDataSegmentLength|MaxXmitDataSegmentLength|FirstBurstLength|MaxBurstLength|ImmediateData|InitialR2T|MaxOutstandingR2T): (.+)$/.exec(
        line,
      );
    if (m && m[2] !== '<empty>') {
      s.params ??= {};
      s.params[m[1]] = m[2];
    }
    m = /^Host Number: (\d+)\s+State: (\S+)/.exec(line);
    if (m) {
      s.hostNumber = Number(m[1]);
      s.hostState = m[2];
    }
    m = /^scsi(\d+) Channel (\d+) Id (\d+) Lun: (\d+)$/.exec(line);
    if (m) {
      dev = { hctl: `${Number(m[1])}:${Number(m[2])}:${Number(m[3])}:${Number(m[4])}`, lun: Number(m[4]) };
      s.devices.push(dev);
    }
    m = /^Attached scsi disk (\S+)\s+State: (\S+)$/.exec(line);
    if (m && dev) {
      dev.name = m[1];
      dev.state = m[2];
    }
  }
  return sessions;
}

/** `multipath -ll`: maps with alias, wwid, dm name and path devices. */
export function parseMultipathLl(text) {
  const maps = [];
  let map;
  for (const line of text.split('\n')) {
    // `mpatha (3600...) dm-0 IET,VIRTUAL-DISK`, or `3600... dm-0 ...` when the alias is the wwid
    let m = /^(\S+) \((\S+)\) (dm-\d+) /.exec(line) ?? /^()(\S+) (dm-\d+) /.exec(line);
    if (m && !line.startsWith(' ')) {
      map = { alias: m[1] || m[2], wwid: m[2], name: m[3], slaves: [] };
      maps.push(map);
      continue;
    }
    m = /[|`]- (\d+:\d+:\d+:\d+) (\S+) \d+:\d+/.exec(line);
    if (m && map) map.slaves.push(m[2]);
  }
  return maps;
}

const status = JSON.parse(readFileSync(opt('status'), 'utf8'));
const p3 = parseSessionP3(readFileSync(opt('session-p3'), 'utf8'));
const lsblk = JSON.parse(readFileSync(opt('lsblk'), 'utf8')).blockdevices ?? [];
const mpFile = opt('multipath');
const ll = mpFile ? parseMultipathLl(readFileSync(mpFile, 'utf8')) : [];
if (process.env.E2E_FAULT === 'status-wrong-host') {
  for (const s of p3) s.hostNumber += 1;
}

check(status.schemaVersion === 2, `schemaVersion is 2 (got ${status.schemaVersion})`);
const sessions = status.sessions ?? [];

// 1. sessions: the same sids, and each one's identity and state as iscsiadm reports it
check(
  sameSet(
    sessions.map((s) => s.sid),
    p3.map((s) => s.sid),
  ),
  `session ids: status ${show(sessions.map((s) => s.sid))} vs iscsiadm ${show(p3.map((s) => s.sid))}`,
);
for (const k of p3) {
  const s = sessions.find((x) => x.sid === k.sid);
  if (!s) continue;
  const pre = `session ${k.sid}`;
  for (const f of ['targetIqn', 'portal', 'tpgt', 'iface', 'state', 'hostNumber']) {
    check(s[f] === k[f], `${pre} ${f}: status ${show(s[f])} vs iscsiadm ${show(k[f])}`);
  }
  // 1b. negotiated parameters and timeouts, as -P 3 prints them: every value iscsiadm shows must be
  //     in status --json with the same value (numbers as numbers, Yes/No as booleans)
  const conn = s.connections?.[0]?.params ?? {};
  const sp = s.params ?? {};
  const yesNo = (v) => (v === 'Yes' ? true : v === 'No' ? false : v);
  const inStatus = {
    'Recovery Timeout': s.recoveryTmo,
    'Target Reset Timeout': sp.targetResetTmo,
    'LUN Reset Timeout': sp.lunResetTmo,
    'Abort Timeout': sp.abortTmo,
    HeaderDigest: conn.headerDigest,
    DataDigest: conn.dataDigest,
    MaxRecvDataSegmentLength: conn.maxRecvDataSegmentLength,
    MaxXmitDataSegmentLength: conn.maxXmitDataSegmentLength,
    FirstBurstLength: sp.firstBurstLength,
    MaxBurstLength: sp.maxBurstLength,
    ImmediateData: sp.immediateData,
    InitialR2T: sp.initialR2T,
    MaxOutstandingR2T: sp.maxOutstandingR2T,
  };
  const shown = Object.entries(k.params ?? {});
  check(
    shown.length >= 9,
    `${pre} params: iscsiadm -P 3 shows ${shown.length} negotiated parameters/timeouts`,
  );
  for (const [name, text] of shown) {
    const want = /^\d+$/.test(text) ? Number(text) : yesNo(text);
    check(
      inStatus[name] === want,
      `${pre} params ${name}: status ${show(inStatus[name])} vs iscsiadm ${show(text)}`,
    );
  }
  // 2. the SCSI devices under the session: H:C:T:L, LUN, sd name (none for tgt's LUN 0 controller), state
  const devs = s.devices ?? [];
  check(
    sameSet(
      devs.map((d) => d.hctl),
      k.devices.map((d) => d.hctl),
    ),
    `${pre} devices (H:C:T:L): status ${show(devs.map((d) => d.hctl))} vs iscsiadm ${show(k.devices.map((d) => d.hctl))}`,
  );
  for (const kd of k.devices) {
    const d = devs.find((x) => x.hctl === kd.hctl);
    if (!d) continue;
    check(d.lun === kd.lun, `${pre} ${kd.hctl} lun: ${show(d.lun)} vs ${kd.lun}`);
    check(
      d.name === kd.name,
      `${pre} ${kd.hctl} block device: status ${show(d.name)} vs iscsiadm ${show(kd.name)}`,
    );
    if (kd.state)
      check(d.state === kd.state, `${pre} ${kd.hctl} state: status ${show(d.state)} vs ${kd.state}`);
  }
}

// 3. block devices as lsblk sees them: size, major:minor, dm holders, mountpoints (a device's include
//    its holders' mounts, docs/status-schema.md#scsidevice)
const mountsOf = (n) => [
  ...(n.mountpoints ?? []).filter(Boolean),
  ...(n.children ?? []).flatMap((c) => mountsOf(c)),
];
const iscsiDisks = lsblk.filter((b) => b.tran === 'iscsi' && b.type === 'disk');
const statusDisks = sessions.flatMap((s) => (s.devices ?? []).filter((d) => d.name));
check(
  sameSet(
    statusDisks.map((d) => d.name),
    iscsiDisks.map((b) => b.kname),
  ),
  `iSCSI disks: status ${show(statusDisks.map((d) => d.name))} vs lsblk ${show(iscsiDisks.map((b) => b.kname))}`,
);
for (const b of iscsiDisks) {
  const d = statusDisks.find((x) => x.name === b.kname);
  if (!d) continue;
  const pre = `${b.kname}`;
  check(d.hctl === b.hctl, `${pre} hctl: status ${show(d.hctl)} vs lsblk ${show(b.hctl)}`);
  check(d.sizeBytes === Number(b.size), `${pre} sizeBytes: status ${show(d.sizeBytes)} vs lsblk ${b.size}`);
  check(d.majMin === b['maj:min'], `${pre} majMin: status ${show(d.majMin)} vs lsblk ${b['maj:min']}`);
  const holders = (b.children ?? []).filter((c) => c.type === 'mpath').map((c) => c.kname);
  check(
    sameSet(d.holders ?? [], holders),
    `${pre} holders: status ${show(d.holders)} vs lsblk ${show(holders)}`,
  );
  check(
    sameSet(d.mountpoints ?? [], mountsOf(b)),
    `${pre} mountpoints: status ${show(d.mountpoints)} vs lsblk ${show(mountsOf(b))}`,
  );
}

// 4. multipath maps as multipath -ll shows them
const maps = status.multipath ?? [];
check(
  sameSet(
    maps.map((m) => m.name),
    ll.map((m) => m.name),
  ),
  `multipath maps: status ${show(maps.map((m) => m.name))} vs multipath -ll ${show(ll.map((m) => m.name))}`,
);
for (const l of ll) {
  const m = maps.find((x) => x.name === l.name);
  if (!m) continue;
  check(m.alias === l.alias, `${l.name} alias: status ${show(m.alias)} vs ${l.alias}`);
  check(m.wwid === l.wwid, `${l.name} wwid: status ${show(m.wwid)} vs ${l.wwid}`);
  check(sameSet(m.slaves ?? [], l.slaves), `${l.name} slaves: status ${show(m.slaves)} vs ${show(l.slaves)}`);
  const node = lsblk.flatMap((b) => b.children ?? []).find((c) => c.kname === l.name);
  const mnts = node ? mountsOf(node) : [];
  check(
    sameSet(m.mountpoints ?? [], mnts),
    `${l.name} mountpoints: status ${show(m.mountpoints)} vs ${show(mnts)}`,
  );
}

// 5. portal→host map, keyed as kubelet keys it: current and persistent addr:port → host number
const want = {};
for (const k of p3) {
  want[k.targetIqn] ??= {};
  want[k.targetIqn][k.current] = k.hostNumber;
  want[k.targetIqn][k.portal] = k.hostNumber;
}
const got = status.portalHostMap ?? {};
check(
  sameSet(Object.keys(got), Object.keys(want)),
  `portalHostMap targets: ${show(Object.keys(got))} vs ${show(Object.keys(want))}`,
);
for (const [iqn, portals] of Object.entries(want)) {
  check(
    show(Object.entries(got[iqn] ?? {}).sort()) === show(Object.entries(portals).sort()),
    `portalHostMap[${iqn}]: status ${show(got[iqn])} vs iscsiadm ${show(portals)}`,
  );
}

// 6. verdict and health the scenario expects from the node's real state
for (const e of expects) {
  const m = /^(.+)\|(.+)=(.+)\/(.+)$/.exec(e);
  if (!m) {
    bad(`bad --expect ${e}`);
    continue;
  }
  const s = sessions.find((x) => x.targetIqn === m[1] && x.portal === m[2]);
  check(
    s?.verdict === m[3],
    `${m[1]} via ${m[2]} verdict: ${show(s?.verdict)} (expected ${m[3]}) ${show(s?.reasons)}`,
  );
  check(s?.health === m[4], `${m[1]} via ${m[2]} health: ${show(s?.health)} (expected ${m[4]})`);
}
console.log(`compare-status: ${fails} mismatch(es)`);
process.exitCode = fails === 0 ? 0 : 1;
