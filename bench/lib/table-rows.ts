/**
 * The README's bench table, defined once: every row (its id in bench/results.json, section, label,
 * target and what it measures). The measurements report values by id; bench/lib/render-table.ts
 * turns this list plus bench/results.json into the table, and the targets below are the only ones
 * (a measurement's own `target` field is ignored). test/bench/readme-table.test.ts checks that
 * README.md holds exactly what the renderer makes, so no row, label, target or figure is edited by hand.
 */
import type { Target } from './figure.js';
import { READ_KINDS } from './read-kinds.js';

export type { Target };

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

/** One row: [id, label, note, target?]. */
type Spec = readonly [id: string, label: string, note: string, target?: Target];

function row(id: string, section: string, label: string, note: string, target?: Target): RowDef {
  return { id, section, label, note, ...(target ? { target } : {}) };
}

function inSection(section: string, specs: readonly Spec[]): RowDef[] {
  return specs.map(([id, label, note, target]) => row(id, section, label, note, target));
}

const le = (value: number): Target => ({ op: '<=', value });
const lt = (value: number): Target => ({ op: '<', value });

function snapshotRows(): RowDef[] {
  const rows: RowDef[] = [];
  for (const { key, label } of TABLE_SNAPSHOT_SIZES) {
    const id = (s: string) => `snapshot.${key}.${s}`;
    rows.push(
      row(
        id('ms'),
        'snapshot',
        `${label}: snapshot, in-process`,
        'median wall time of takeSnapshot() on an FsHost over a tmpfs fixture root (confined `--root` reads), after warm-up, gc() before each run',
      ),
      row(
        id('floor-ms'),
        'snapshot',
        `${label}: independent floor, in-process`,
        'bench/lib/independent-floor.ts on the same root: the reads of sysfs, udev’s database, mountinfo, swaps, the iscsi db and kubelet’s dirs that the facts status --json reports need (bench/README.md “The independent floor”), bare sync fs, no engine code; runs alternate with the snapshot runs; its facts are checked against the snapshot’s (sessions, LUNs, disks, maps, mount points) or no ratio is given',
      ),
      row(
        id('ratio'),
        'snapshot',
        `${label}: snapshot / independent floor, in-process CPU`,
        'ratio of the process.cpuUsage (user+system) medians of the alternating runs above: the same facts listed on both sides, the snapshot also reads and derives everything else it reports',
      ),
      row(
        id('reads'),
        'snapshot',
        `${label}: reads, snapshot / independent floor`,
        'files read + directories listed + links/stats, counted by RecordingHost (snapshot) and by the floor itself',
      ),
      row(
        id('beyond'),
        'snapshot',
        `${label}: reads beyond the floor, all kinds`,
        'snapshot reads − floor reads, by the path classifier bench/lib/read-kinds.ts; the per-kind rows below (1,000 × 4) say where',
      ),
    );
    if (key === '1000')
      for (const kind of READ_KINDS)
        rows.push(
          row(
            id(`beyond.${kind}`),
            'snapshot',
            `${label}: reads beyond the floor: ${kind}`,
            'snapshot − floor reads of this kind (files read, dirs listed, links/stats), bench/lib/read-kinds.ts',
          ),
        );
    rows.push(
      row(
        id('syscalls'),
        'snapshot',
        `${label}: syscalls, snapshot / independent floor`,
        'perf stat -e raw_syscalls:sys_enter of a process that warms up and runs one snapshot (one floor read), minus one that only warms up',
      ),
    );
  }
  rows.push(
    row(
      'snapshot.1000.promises-ratio',
      'snapshot',
      '1,000 × 4: the snapshot’s reads via fs/promises (batches of 64) ÷ sync fs',
      'the read list one snapshot made (RecordingHost) done twice, alternating: with fs/promises in batches of 64 (Promise.all, as an async Host would) and with sync fs; median wall of 3 each: what an async read path would cost or save',
    ),
  );
  return rows;
}

const GOAL_ROWS: RowDef[] = inSection('goals', [
  [
    'goals.root1000.status-ms',
    'status --json --root 1,000 × 4, whole process',
    'dist/cli.js status --json --root <1,000 × 4 fixture> on the project’s node, stdout to /dev/null: wall (bash `time`), median of the alternating runs',
  ],
  [
    'goals.root1000.floor-ms',
    'independent floor, whole process, same root',
    'node .cache/bench/floor-process.mjs <root> (bench/floor-process.ts: the independent floor, printing its facts as JSON), alternating with the row above',
  ],
  [
    'goals.root1000.ratio',
    'status --json --root 1,000 × 4 / independent floor, whole processes',
    'ratio of the two wall medians above (goal a); the CPU (user+sys) ratio is in the value',
    le(PROCESS_RATIO_GOAL),
  ],
  [
    'goals.small.status-cpu-ms',
    'status --json --root 6 × 2 (small node), CPU',
    'user+sys (bash `time`) of dist/cli.js status --json --root <6 sessions × 2 LUNs fixture, half multipath>, median of the A/B pairs',
  ],
  [
    'goals.small.node-cpu-ms',
    'node -e 0, same node binary, CPU',
    'user+sys of a bare `node -e 0` of the same binary, each run paired with one of the row above (order alternating)',
  ],
  [
    'goals.small.cpu-ratio',
    'status --json on a small node / node -e 0, CPU',
    'ratio of the two CPU medians above (goal b); the median of the per-pair ratios is in the value',
    le(SMALL_CPU_GOAL),
  ],
]);

const IDLE_ROWS: RowDef[] = inSection('idle', [
  [
    'idle.cpu-ms-per-tick',
    '1,000 × 4, idle: CPU per poll tick',
    'measureIdleTick: production poll() ticks back to back on an FsHost over the fixture root, process.cpuUsage (user+system) per tick',
  ],
  [
    'idle.core-percent',
    '1,000 × 4, idle: share of one core at the 2 s poll (driven ticks)',
    'CPU ms per tick ÷ the 2 s refresh interval',
    le(2),
  ],
  [
    'idle.window-core-percent',
    '1,000 × 4, idle: share of one core over a real-time window',
    'startWatcher with its own 2 s timer (chokidar on, udev off), process.cpuUsage over the window after the first tick ÷ its wall time',
    le(2),
  ],
]);

const CHANGES = [
  ['device', 'device offline'],
  ['session', 'session FAILED'],
  ['portal', 'portal down'],
  ['login', 'login (session added)'],
  ['logout', 'logout (session removed)'],
] as const;

function latencyRows(): RowDef[] {
  return ['scale', 'healthy'].flatMap((scenario) =>
    CHANGES.map(([key, name]) =>
      row(
        `latency.${scenario}.${key}`,
        'latency',
        `${scenario}: ${name} → event, p95`,
        `measureChangeToEvent on openSimHost + startWatcher (2 s poll; the simulator has no uevents): changes at spread phases of the poll, nearest-rank p95 (with few samples that is the max); fixed target ${LATENCY_P95_TARGET_MS.toLocaleString('en-US')} ms; the median is in the value`,
        lt(LATENCY_P95_TARGET_MS),
      ),
    ),
  );
}

function serveRows(): RowDef[] {
  const sizes = [
    { n: 50, label: '50 × 4', p99: 20, rss: 64, cpu: 0.3 },
    { n: 1000, label: '1,000 × 4', p99: 100, rss: 150 },
  ];
  return sizes.flatMap((s) => {
    const rows: RowDef[] = [
      row(
        `serve.${s.n}.scrape-p50`,
        'serve',
        `${s.label}: GET /metrics p50`,
        'back-to-back scrapes over loopback of `serve --root <fixture>` (built CLI, own process) after its first full read',
      ),
      row(
        `serve.${s.n}.scrape-p99`,
        'serve',
        `${s.label}: GET /metrics p99`,
        'the same scrapes, p99 of the client’s wall time',
        le(s.p99),
      ),
      row(
        `serve.${s.n}.rss`,
        'serve',
        `${s.label}: serve RSS, scraped every 15 s`,
        'VmRSS (MiB) of the serve process at the end of the window; the goal is after 10 minutes (BENCH_SERVE_WINDOW_S=600); the window measured is in results.json',
        le(s.rss),
      ),
    ];
    if (s.cpu !== undefined)
      rows.push(
        row(
          `serve.${s.n}.cpu`,
          'serve',
          `${s.label}: serve CPU, idle, scraped every 15 s`,
          '/proc/<pid>/stat utime+stime over the window ÷ its wall time; default 2 s poll',
          le(s.cpu),
        ),
      );
    rows.push(
      row(
        `serve.${s.n}.oneshot-status`,
        'serve',
        `${s.label}: status --json one-shot`,
        'dist/cli.js status --json --root <fixture>, process start to exit, median',
      ),
      row(
        `serve.${s.n}.oneshot-metrics`,
        'serve',
        `${s.label}: metrics one-shot`,
        'dist/cli.js metrics --root <fixture>, process start to exit, median; beside status --json',
      ),
    );
    return rows;
  });
}

const CONSOLE_ROWS: RowDef[] = inSection('console', [
  [
    'console.render.first-frame-ms',
    'Sessions view first render, 1,000 sessions (in-process)',
    'benchConsole (bench/lib/console-frames.tsx): ConsoleApp rendered by Ink into an in-memory terminal from a ready snapshot; render only, no process start or read',
  ],
  [
    'console.render.key-to-frame-ms',
    'key-to-frame, Sessions view, 1,000 sessions (in-process), p95',
    'benchConsole: ↓ written to the app’s stdin → the first frame written after the cursor moved to the next row that shows the new position ("N of M"); p95 over the presses, median and CPU per key frame in the value',
    le(50),
  ],
  [
    'console.render.refresh-to-frame-ms',
    'store update → frame, 1,000 sessions (in-process), p95',
    'benchConsole: one visible session changes state in a new snapshot → next frame; change→screen ≈ change→event (latency section) + this',
  ],
  [
    'console.root1000.first-frame-ms',
    'first frame, --root 1,000 × 4',
    'built dist/cli.js in a pty: from spawn (script+stty+node) until a session row (target IQN) reaches the pty; median of fresh processes after one warm-up',
    le(500),
  ],
  [
    'console.root1000.full-frame-ms',
    'full read on screen, --root 1,000 × 4',
    'the same runs: from spawn until the status bar says "read … ago" (the first frame shows the first look while the full snapshot is read)',
  ],
  [
    'console.root1000.key-to-frame-ms',
    'key-to-frame, Sessions view, --root 1,000 × 4, p95',
    'j/k written to the pty until the output shows the cursor’s new position ("N of M" in the status line); p95 over all presses of all runs, median in the value',
    le(50),
  ],
  [
    'console.root1000.peak-rss-mb',
    'peak RSS, --root 1,000 × 4',
    'VmHWM of the console process (/proc/<pid>/status) after first frame and key presses; max over runs',
    le(150),
  ],
  [
    'console.demo-scale.first-frame-ms',
    'first frame, --demo scale',
    'as for --root, on the simulated 1,000-session node (it builds the simulator first)',
  ],
  [
    'console.demo-scale.peak-rss-mb',
    'peak RSS, --demo scale',
    'VmHWM, as for --root; also holds the simulated node',
  ],
]);

/** Peers: written by `npm run bench:vm` (bench/vm/run.mjs) into results.json; rendered like the rest. */
const PEER_ROWS: RowDef[] = inSection('peers', [
  [
    'peers.iscsiadm-p3-ms',
    'iscsiadm -m session -P 3, whole process (VM)',
    'QEMU TCG guest, real kernel: median wall of 5 runs after a warm-up, process start included',
  ],
  [
    'peers.status-json-ms',
    'status --json, whole process (VM)',
    'the built CLI on the guest, process start included: node start + bundle load + snapshot + JSON; median',
  ],
  [
    'peers.status-json-vs-iscsiadm',
    'status --json / iscsiadm -P 3, both whole processes (VM)',
    'like with like: two whole processes listing the same sessions; information (a Node process start alone costs more than iscsiadm under TCG)',
  ],
  [
    'peers.snapshot-ms',
    'snapshot in-process, warm (VM)',
    'takeSnapshot() on FsHost("/") in the guest, median after warm-up: what each console refresh costs; not comparable with a whole iscsiadm process',
  ],
  [
    'peers.snapshot-independent-floor-ratio',
    'snapshot / independent floor on real sysfs, in-process CPU (VM)',
    'takeSnapshot() and bench/lib/independent-floor.ts in the same guest process, alternating, after warm-up (bench/vm/snapshot-in-guest.ts); CPU medians',
  ],
  [
    'peers.attach-raw-ms',
    'attach floor: iscsiadm --login + udevadm settle → by-path (VM)',
    'median: login to the by-path link of LUN 1 existing',
  ],
  [
    'peers.attach-kubelet-ms',
    "attach, kubelet's 1 s polling (VM)",
    'login, then stat the by-path link, sleep 1 s, repeat (kubelet AttachDisk waitForPathToExist)',
  ],
  [
    'peers.attach-console-ms',
    'attach via iscsi-console attach (VM)',
    'whole CLI process (node start included) until the by-path link exists; information beside the two rows above',
  ],
  ...(
    [
      ['session_add', 'iscsiadm --login → session event'],
      ['session_remove', 'iscsiadm --logout → session event'],
      ['device_add', 'LUN rescan → device event'],
      ['device_remove', 'sd delete → device event'],
      ['device_offline', 'device offline (no uevent) → event'],
    ] as const
  ).map(
    ([k, label]): Spec => [
      `peers.change-to-event.${k}`,
      `real kernel: ${label}, median (VM)`,
      'the production watcher (udev on, 2 s poll) in the guest, measureChangeToEvent from the uevent a separate `udevadm monitor --kernel` stamped (offline: from the write returning); a median of a few runs, so information only',
    ],
  ),
]);

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
