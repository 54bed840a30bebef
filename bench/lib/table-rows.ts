/**
 * The README's bench table, defined once: every row (its id in bench/results.json, section, label,
 * target and what it measures). The measurements report values by id; bench/lib/render-table.ts
 * turns this list plus bench/results.json into the table, and the targets below are the only ones
 * (a measurement's own `target` field is ignored). test/bench/readme-table.test.ts checks that
 * README.md holds exactly what the renderer makes, so no row, label, target or figure is edited by hand.
 */
import { READ_KINDS } from './read-kinds.js';

export interface Target {
  op: '<=' | '<';
  value: number;
}

export interface RowDef {
  id: string;
  section: string;
  label: string;
  target?: Target;
  /** What the figure measures (shown under the table). */
  note: string;
}

/** The snapshot sizes the table shows (the measurement may measure more; results.json keeps all). */
export const TABLE_SNAPSHOT_SIZES = [
  { key: '1000', label: '1,000 × 4' },
  { key: '1000-csi1000', label: '1,000 × 4, 1,000 CSI volumes' },
] as const;

/** Fixed latency target: a change on the node is in the store within this (p95), by poll or uevent. */
export const LATENCY_P95_TARGET_MS = 2_500;
/** Goal (a): `status --json --root` at 1,000 × 4 ÷ the independent floor, whole processes. */
export const PROCESS_RATIO_GOAL = 1.5;
/** Goal (b): `status --json` on a small node, CPU ÷ a bare `node -e 0`. */
export const SMALL_CPU_GOAL = 1.6;

const le = (value: number): Target => ({ op: '<=', value });
const lt = (value: number): Target => ({ op: '<', value });

function snapshotRows(): RowDef[] {
  const rows: RowDef[] = [];
  for (const { key, label } of TABLE_SNAPSHOT_SIZES) {
    const id = (s: string) => `snapshot.${key}.${s}`;
    rows.push(
      {
        id: id('ms'),
        section: 'snapshot',
        label: `${label}: snapshot, in-process`,
        note: 'median wall time of takeSnapshot() on an FsHost over a tmpfs fixture root (confined `--root` reads), after warm-up, gc() before each run',
      },
      {
        id: id('floor-ms'),
        section: 'snapshot',
        label: `${label}: independent floor, in-process`,
        note: 'bench/lib/independent-floor.ts on the same root: the sysfs/iscsi-db/mountinfo reads a session → connection → LUN → device → holder/map → mount listing needs, bare sync fs, no engine code; runs alternate with the snapshot runs; its facts are checked against the snapshot’s (sessions, LUNs, disks, maps, mount points) or no ratio is given',
      },
      {
        id: id('ratio'),
        section: 'snapshot',
        label: `${label}: snapshot / independent floor, in-process CPU`,
        note: 'ratio of the process.cpuUsage (user+system) medians of the alternating runs above: the same facts listed on both sides, the snapshot also reads and derives everything else it reports',
      },
      {
        id: id('reads'),
        section: 'snapshot',
        label: `${label}: reads, snapshot / independent floor`,
        note: 'files read + directories listed + links/stats, counted by RecordingHost (snapshot) and by the floor itself',
      },
      {
        id: id('beyond'),
        section: 'snapshot',
        label: `${label}: reads beyond the floor, all kinds`,
        note: 'snapshot reads − floor reads, by the path classifier bench/lib/read-kinds.ts; the per-kind rows below (1,000 × 4) say where',
      },
    );
    if (key === '1000')
      for (const kind of READ_KINDS)
        rows.push({
          id: id(`beyond.${kind}`),
          section: 'snapshot',
          label: `${label}: reads beyond the floor: ${kind}`,
          note: 'snapshot − floor reads of this kind (files read, dirs listed, links/stats), bench/lib/read-kinds.ts',
        });
    rows.push({
      id: id('syscalls'),
      section: 'snapshot',
      label: `${label}: syscalls, snapshot / independent floor`,
      note: 'perf stat -e raw_syscalls:sys_enter of a process that warms up and runs one snapshot (one floor read), minus one that only warms up',
    });
  }
  rows.push({
    id: 'snapshot.1000.promises-ratio',
    section: 'snapshot',
    label: '1,000 × 4: the snapshot’s reads via fs/promises ÷ sync fs',
    note: 'the read list one snapshot made (RecordingHost) done twice, alternating: with fs/promises in batches of 64 (Promise.all, as an async Host would) and with sync fs; median wall of 3 each: why the Host reads synchronously',
  });
  return rows;
}

const GOAL_ROWS: RowDef[] = [
  {
    id: 'goals.root1000.status-ms',
    section: 'goals',
    label: 'status --json --root 1,000 × 4, whole process',
    note: 'dist/cli.js status --json --root <1,000 × 4 fixture> on the project’s node, stdout to /dev/null: wall (bash `time`), median of the alternating runs',
  },
  {
    id: 'goals.root1000.floor-ms',
    section: 'goals',
    label: 'independent floor, whole process, same root',
    note: 'node .cache/bench/floor-process.mjs <root> (bench/floor-process.ts: the independent floor, printing its facts as JSON), alternating with the row above',
  },
  {
    id: 'goals.root1000.ratio',
    section: 'goals',
    label: 'status --json --root 1,000 × 4 / independent floor, whole processes',
    target: le(PROCESS_RATIO_GOAL),
    note: 'ratio of the two wall medians above (goal a); the CPU (user+sys) ratio is in the value',
  },
  {
    id: 'goals.small.status-cpu-ms',
    section: 'goals',
    label: 'status --json --root 6 × 2 (small node), CPU',
    note: 'user+sys (bash `time`) of dist/cli.js status --json --root <6 sessions × 2 LUNs fixture, half multipath>, median of the A/B pairs',
  },
  {
    id: 'goals.small.node-cpu-ms',
    section: 'goals',
    label: 'node -e 0, same node binary, CPU',
    note: 'user+sys of a bare `node -e 0` of the same binary, each run paired with one of the row above (order alternating)',
  },
  {
    id: 'goals.small.cpu-ratio',
    section: 'goals',
    label: 'status --json on a small node / node -e 0, CPU',
    target: le(SMALL_CPU_GOAL),
    note: 'ratio of the two CPU medians above (goal b); the median of the per-pair ratios is in the value',
  },
];

const IDLE_ROWS: RowDef[] = [
  {
    id: 'idle.cpu-ms-per-tick',
    section: 'idle',
    label: '1,000 × 4, idle: CPU per poll tick',
    note: 'measureIdleTick: production poll() ticks back to back on an FsHost over the fixture root, process.cpuUsage (user+system) per tick',
  },
  {
    id: 'idle.core-percent',
    section: 'idle',
    label: '1,000 × 4, idle: share of one core at the 2 s poll (driven ticks)',
    target: le(2),
    note: 'CPU ms per tick ÷ the 2 s refresh interval',
  },
  {
    id: 'idle.window-core-percent',
    section: 'idle',
    label: '1,000 × 4, idle: share of one core over a real-time window',
    target: le(2),
    note: 'startWatcher with its own 2 s timer (chokidar on, udev off), process.cpuUsage over the window after the first tick ÷ its wall time',
  },
];

const CHANGES = [
  ['device', 'device offline'],
  ['session', 'session FAILED'],
  ['portal', 'portal down'],
  ['login', 'login (session added)'],
  ['logout', 'logout (session removed)'],
] as const;

function latencyRows(): RowDef[] {
  return ['scale', 'healthy'].flatMap((scenario) =>
    CHANGES.map(([key, name]) => ({
      id: `latency.${scenario}.${key}`,
      section: 'latency',
      label: `${scenario}: ${name} → event, p95`,
      target: lt(LATENCY_P95_TARGET_MS),
      note: `measureChangeToEvent on openSimHost + startWatcher (2 s poll; the simulator has no uevents): changes at spread phases of the poll, nearest-rank p95 (with few samples that is the max); fixed target ${LATENCY_P95_TARGET_MS.toLocaleString('en-US')} ms; the median is in the value`,
    })),
  );
}

function serveRows(): RowDef[] {
  const sizes = [
    { n: 50, label: '50 × 4', p99: 20, rss: 64, cpu: 0.3 },
    { n: 1000, label: '1,000 × 4', p99: 100, rss: 150 },
  ];
  return sizes.flatMap((s) => {
    const rows: RowDef[] = [
      {
        id: `serve.${s.n}.scrape-p50`,
        section: 'serve',
        label: `${s.label}: GET /metrics p50`,
        note: 'back-to-back scrapes over loopback of `serve --root <fixture>` (built CLI, own process) after its first full read',
      },
      {
        id: `serve.${s.n}.scrape-p99`,
        section: 'serve',
        label: `${s.label}: GET /metrics p99`,
        target: le(s.p99),
        note: 'the same scrapes, p99 of the client’s wall time',
      },
      {
        id: `serve.${s.n}.rss`,
        section: 'serve',
        label: `${s.label}: serve RSS, scraped every 15 s`,
        target: le(s.rss),
        note: 'VmRSS (MiB) of the serve process at the end of the window; the goal is after 10 minutes (BENCH_SERVE_WINDOW_S=600); the window measured is in results.json',
      },
    ];
    if (s.cpu !== undefined)
      rows.push({
        id: `serve.${s.n}.cpu`,
        section: 'serve',
        label: `${s.label}: serve CPU, idle, scraped every 15 s`,
        target: le(s.cpu),
        note: '/proc/<pid>/stat utime+stime over the window ÷ its wall time; default 2 s poll',
      });
    rows.push(
      {
        id: `serve.${s.n}.oneshot-status`,
        section: 'serve',
        label: `${s.label}: status --json one-shot`,
        note: 'dist/cli.js status --json --root <fixture>, process start to exit, median',
      },
      {
        id: `serve.${s.n}.oneshot-metrics`,
        section: 'serve',
        label: `${s.label}: metrics one-shot`,
        note: 'dist/cli.js metrics --root <fixture>, process start to exit, median; beside status --json',
      },
    );
    return rows;
  });
}

const CONSOLE_ROWS: RowDef[] = [
  {
    id: 'console.render.first-frame-ms',
    section: 'console',
    label: 'Sessions view first render, 1,000 sessions (in-process)',
    note: 'benchConsole (bench/lib/console-frames.tsx): ConsoleApp rendered by Ink into an in-memory terminal from a ready snapshot; render only, no process start or read',
  },
  {
    id: 'console.render.key-to-frame-ms',
    section: 'console',
    label: 'key-to-frame, Sessions view, 1,000 sessions (in-process), p95',
    target: le(50),
    note: 'benchConsole: ↓ written to the app’s stdin → the first frame written after the cursor moved to the next row that shows the new position ("N of M"); p95 over the presses, median and CPU per key frame in the value',
  },
  {
    id: 'console.render.refresh-to-frame-ms',
    section: 'console',
    label: 'store update → frame, 1,000 sessions (in-process), p95',
    note: 'benchConsole: one visible session changes state in a new snapshot → next frame; change→screen ≈ change→event (latency section) + this',
  },
  {
    id: 'console.root1000.first-frame-ms',
    section: 'console',
    label: 'first frame, --root 1,000 × 4',
    target: le(500),
    note: 'built dist/cli.js in a pty: from spawn (script+stty+node) until a session row (target IQN) reaches the pty; median of fresh processes after one warm-up',
  },
  {
    id: 'console.root1000.full-frame-ms',
    section: 'console',
    label: 'full read on screen, --root 1,000 × 4',
    note: 'the same runs: from spawn until the status bar says "read … ago" (the first frame shows the first look while the full snapshot is read)',
  },
  {
    id: 'console.root1000.key-to-frame-ms',
    section: 'console',
    label: 'key-to-frame, Sessions view, --root 1,000 × 4, p95',
    target: le(50),
    note: 'j/k written to the pty until the output shows the cursor’s new position ("N of M" in the status line); p95 over all presses of all runs, median in the value',
  },
  {
    id: 'console.root1000.peak-rss-mb',
    section: 'console',
    label: 'peak RSS, --root 1,000 × 4',
    target: le(150),
    note: 'VmHWM of the console process (/proc/<pid>/status) after first frame and key presses; max over runs',
  },
  {
    id: 'console.demo-scale.first-frame-ms',
    section: 'console',
    label: 'first frame, --demo scale',
    note: 'as for --root, on the simulated 1,000-session node (it builds the simulator first)',
  },
  {
    id: 'console.demo-scale.peak-rss-mb',
    section: 'console',
    label: 'peak RSS, --demo scale',
    note: 'VmHWM, as for --root; also holds the simulated node',
  },
];

/** Peers: written by `npm run bench:vm` (bench/vm/run.mjs) into results.json; rendered like the rest. */
const PEER_ROWS: RowDef[] = [
  {
    id: 'peers.iscsiadm-p3-ms',
    section: 'peers',
    label: 'iscsiadm -m session -P 3, whole process (VM)',
    note: 'QEMU TCG guest, real kernel: median wall of 5 runs after a warm-up, process start included',
  },
  {
    id: 'peers.status-json-ms',
    section: 'peers',
    label: 'status --json, whole process (VM)',
    note: 'the built CLI on the guest, process start included: node start + bundle load + snapshot + JSON; median',
  },
  {
    id: 'peers.status-json-vs-iscsiadm',
    section: 'peers',
    label: 'status --json / iscsiadm -P 3, both whole processes (VM)',
    note: 'like with like: two whole processes listing the same sessions; information (a Node process start alone costs more than iscsiadm under TCG)',
  },
  {
    id: 'peers.snapshot-ms',
    section: 'peers',
    label: 'snapshot in-process, warm (VM)',
    note: 'takeSnapshot() on FsHost("/") in the guest, median after warm-up: what each console refresh costs; not comparable with a whole iscsiadm process',
  },
  {
    id: 'peers.snapshot-independent-floor-ratio',
    section: 'peers',
    label: 'snapshot / independent floor on real sysfs, in-process CPU (VM)',
    note: 'takeSnapshot() and bench/lib/independent-floor.ts in the same guest process, alternating, after warm-up (bench/vm/snapshot-in-guest.ts); CPU medians',
  },
  {
    id: 'peers.attach-raw-ms',
    section: 'peers',
    label: 'attach floor: iscsiadm --login + udevadm settle → by-path (VM)',
    note: 'median: login to the by-path link of LUN 1 existing',
  },
  {
    id: 'peers.attach-kubelet-ms',
    section: 'peers',
    label: "attach, kubelet's 1 s polling (VM)",
    note: 'login, then stat the by-path link, sleep 1 s, repeat (kubelet AttachDisk waitForPathToExist)',
  },
  {
    id: 'peers.attach-console-ms',
    section: 'peers',
    label: 'attach via iscsi-console attach (VM)',
    note: 'whole CLI process (node start included) until the by-path link exists; information beside the two rows above',
  },
  ...(
    [
      ['session_add', 'iscsiadm --login → session event'],
      ['session_remove', 'iscsiadm --logout → session event'],
      ['device_add', 'LUN rescan → device event'],
      ['device_remove', 'sd delete → device event'],
      ['device_offline', 'device offline (no uevent) → event'],
    ] as const
  ).map(([k, label]) => ({
    id: `peers.change-to-event.${k}`,
    section: 'peers',
    label: `real kernel: ${label}, median (VM)`,
    note: 'the production watcher (udev on, 2 s poll) in the guest, measureChangeToEvent from the uevent a separate `udevadm monitor --kernel` stamped (offline: from the write returning); a median of a few runs, so information only',
  })),
];

/** The whole table, in order. */
export const TABLE_ROWS: readonly RowDef[] = [
  ...snapshotRows(),
  ...GOAL_ROWS,
  ...IDLE_ROWS,
  ...latencyRows(),
  ...serveRows(),
  ...CONSOLE_ROWS,
  ...PEER_ROWS,
];

const BY_ID = new Map(TABLE_ROWS.map((r) => [r.id, r]));

/** The target of a table row (measurements use this for their printed PASS/MISS). */
export function targetOf(id: string): Target | undefined {
  return BY_ID.get(id)?.target;
}

export function rowOf(id: string): RowDef | undefined {
  return BY_ID.get(id);
}
