/**
 * bench/README.md "The two performance goals" — whole processes, as an admin or a script runs them:
 * (a) `status --json --root` on the 1,000 × 4 fixture ÷ the independent floor as a process
 *     (bench/floor-process.ts), alternating, median of ≥ 3 (5 in a full run);
 * (b) `status --json --root` on a small node (a generated 6 sessions × 2 LUNs root, half multipath)
 *     CPU ÷ a bare `node -e 0` of the same node binary, paired A/B, median of ≥ 5 (11 in a full run).
 * Both sides run the project's node with stdout to /dev/null; times from bash's `time` (rusage).
 */
import { benchArgs, projectDir } from './lib/args.js';
import { buildDist, cliPath, projectNode } from './lib/build-dist.js';
import { figure } from './lib/figure.js';
import { fixtureRoot } from './lib/fixtures.js';
import { log, Output } from './lib/output.js';
import { median, round, summarise } from './lib/stats.js';
import { targetOf } from './lib/table-rows.js';
import { alternate, checkRuns, type ProcessTime } from './lib/whole-process.js';

const args = benchArgs();
const out = new Output('process');
const cwd = projectDir();
const node = projectNode();

function add(id: string, label: string, value: number, unit: string, detail?: object): void {
  out.add(
    figure({ id, section: 'goals', label, value, unit, target: targetOf(id), ...(detail ? { detail } : {}) }),
  );
}

const ms = (xs: ProcessTime[], k: 'wall' | 'cpu') => median(xs.map((x) => x[k]));

function goalA(): void {
  const floor = process.env.BENCH_HELPER_FLOOR_PROCESS;
  if (!floor)
    throw new Error(`floor process not built: ${process.env.BENCH_HELPER_ERR_FLOOR_PROCESS ?? '?'}`);
  const root = fixtureRoot(1000, 4);
  const status = [node, cliPath(), 'status', '--json', '--root', root];
  const floorArgv = [node, floor, root];
  for (const argv of [status, floorArgv]) {
    const bad = checkRuns(argv, cwd); // also the warm-up: page cache, compile cache
    if (bad) throw new Error(bad);
  }
  const pairs = args.quick ? 3 : 5;
  const r = alternate(status, floorArgv, pairs, cwd);
  log(
    `goal a: status ${r.a.map((x) => Math.round(x.wall)).join(' ')} ms; floor ${r.b.map((x) => Math.round(x.wall)).join(' ')} ms`,
  );
  const sw = ms(r.a, 'wall');
  const fw = ms(r.b, 'wall');
  add(
    'goals.root1000.status-ms',
    'status --json --root 1,000 × 4, whole process',
    round(sw),
    `ms (CPU ${round(ms(r.a, 'cpu'))} ms)`,
    {
      runs: r.a,
    },
  );
  add(
    'goals.root1000.floor-ms',
    'independent floor, whole process',
    round(fw),
    `ms (CPU ${round(ms(r.b, 'cpu'))} ms)`,
    {
      runs: r.b,
    },
  );
  add(
    'goals.root1000.ratio',
    'status --json --root 1,000 × 4 / independent floor, whole processes',
    round(sw / fw),
    `× (CPU ${round(ms(r.a, 'cpu') / ms(r.b, 'cpu'))} ×; median of ${pairs} alternating pairs)`,
  );
}

function goalB(): void {
  const root = fixtureRoot(6, 2);
  const status = [node, cliPath(), 'status', '--json', '--root', root];
  const bare = [node, '-e', '0'];
  for (const argv of [status, bare]) {
    const bad = checkRuns(argv, cwd);
    if (bad) throw new Error(bad);
  }
  const pairs = args.quick ? 5 : 11;
  const r = alternate(status, bare, pairs, cwd);
  const sc = ms(r.a, 'cpu');
  const nc = ms(r.b, 'cpu');
  const pairRatios = r.a.map((x, i) => x.cpu / r.b[i]!.cpu);
  log(
    `goal b: status CPU ${r.a.map((x) => Math.round(x.cpu)).join(' ')} ms; node -e 0 ${r.b.map((x) => Math.round(x.cpu)).join(' ')} ms`,
  );
  add(
    'goals.small.status-cpu-ms',
    'status --json --root 6 × 2, CPU',
    round(sc),
    `ms (wall ${round(ms(r.a, 'wall'))} ms)`,
    {
      cpu: summarise(r.a.map((x) => x.cpu)),
    },
  );
  add('goals.small.node-cpu-ms', 'node -e 0, CPU', round(nc), `ms (wall ${round(ms(r.b, 'wall'))} ms)`, {
    cpu: summarise(r.b.map((x) => x.cpu)),
  });
  add(
    'goals.small.cpu-ratio',
    'status --json on a small node / node -e 0, CPU',
    round(sc / nc),
    `× (median of the ${pairs} pair ratios ${round(median(pairRatios))} ×)`,
    { pairRatios: pairRatios.map(round) },
  );
}

try {
  const problem = buildDist();
  if (problem) out.skip(problem);
  else {
    for (const [name, fn] of [
      ['goal a (1,000 × 4 against the independent floor)', goalA],
      ['goal b (small node against node -e 0)', goalB],
    ] as const) {
      try {
        fn();
      } catch (e) {
        out.skip(`${name}: ${(e as Error).message}`);
      }
    }
  }
} finally {
  out.write();
}
