#!/usr/bin/env node
// bench/run.mjs — `npm run bench`: bench/README.md's measurements, against their targets.
//
// Why this shape: the measurements are TypeScript that imports the production modules (the same code
// paths as the console), so they are bundled with esbuild (as scripts/build.mjs does for dist/) into
// .cache/bench/ and each runs in its own node process: one measurement's garbage, JIT state and RSS
// never leak into the next one, and a measurement whose module is not there yet fails alone.
// Results are printed with their target and a pass/miss mark. A full run (no flags) writes
// bench/results.json and README.md's bench table (between its markers); any flag makes it a partial
// run, which writes only .cache/bench/results.partial.json. Nothing here asserts: results are data.
//
// Usage: npm run bench [-- --only snapshot,process,idle,latency,serve,console] [--sizes 100,1000]
//                      [--quick] [--profile] [--clean-fixtures] [--report-only]
//   --only            run these measurements only (partial: .cache/bench/results.partial.json)
//   --sizes           snapshot fixture sizes in sessions (partial; default 100,1000 + 1,000 with CSI)
//   --quick           fewer repetitions (partial: a smoke run, not numbers to publish)
//   --profile         also run each measurement under --cpu-prof and print its top frames (partial)
//   --clean-fixtures  delete the cached fixture roots under /dev/shm and exit
//   --report-only     re-render README.md's bench table from bench/results.json
// Env: BENCH_FIXTURES (default /dev/shm/iscsi-console-bench, tmpfs: the floor is about syscalls,
//      not the disk).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, OUT_DIR, PROJECT } from './lib/bundle.mjs';
import { printTable, writeReport } from './lib/report.mjs';

const FIXTURES = process.env.BENCH_FIXTURES ?? '/dev/shm/iscsi-console-bench';
const NODE22 = join(PROJECT, 'node_modules', '.bin', 'node');

// The project pins node 22 (the machine's own node may be older): re-exec under it if needed.
if (Number(process.versions.node.split('.')[0]) < 22 && existsSync(NODE22)) {
  const r = spawnSync(NODE22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

/** Each measurement: its entry file, and how long it may run before it is killed (ms). */
const MEASUREMENTS = [
  { name: 'snapshot', entry: 'bench/measure-snapshot.ts', timeoutMs: 15 * 60_000 },
  // The two performance goals: whole processes against the independent floor and against `node -e 0`.
  { name: 'process', entry: 'bench/measure-process.ts', timeoutMs: 10 * 60_000 },
  { name: 'idle', entry: 'bench/measure-idle.ts', timeoutMs: 3 * 60_000 },
  // 2 scenarios × 5 changes × 6 repetitions, each waiting for its event and its undo: under load a
  // refresh of the 1,000-session simulator takes seconds, so the limit is generous.
  { name: 'latency', entry: 'bench/measure-latency.ts', timeoutMs: 20 * 60_000 },
  // `serve` (bench/measure-serve.ts): scrape latency, steady RSS, idle CPU, one-shot metrics.
  { name: 'serve', entry: 'bench/measure-serve.ts', timeoutMs: 25 * 60_000 },
  // FORCE_COLOR: the child's stdout is a pipe, so chalk would switch colours off and the in-process
  // frames would be cheaper than what a real terminal gets (colour runs cost Ink extra parsing).
  {
    name: 'console',
    entry: 'bench/measure-console.ts',
    timeoutMs: 10 * 60_000,
    env: { FORCE_COLOR: '3' },
  },
];
/** Helper entries the measurements spawn (a separate process keeps their work out of the timings). */
const HELPERS = [
  { name: 'make-fixture', entry: 'bench/make-fixture.ts' },
  { name: 'syscalls', entry: 'bench/syscalls-child.ts' },
  { name: 'profile-child', entry: 'bench/profile-child.ts' },
  { name: 'floor-process', entry: 'bench/floor-process.ts' },
  // Loaded into the serve processes measure-serve.ts starts (node --import): event-loop delay, memory.
  { name: 'serve-hook', entry: 'bench/serve-hook.ts' },
];

const args = parseArgs(process.argv.slice(2));
if (args.reportOnly) {
  const all = JSON.parse(readFileSync(join(PROJECT, 'bench', 'results.json'), 'utf8'));
  await writeReport(PROJECT, all);
  printTable(
    all.results.flatMap((r) => r.figures),
    all.results,
  );
  console.log("\nre-rendered README.md's bench table from bench/results.json");
  process.exit(0);
}
if (args.cleanFixtures) {
  rmSync(FIXTURES, { recursive: true, force: true });
  console.log(`removed ${FIXTURES}`);
  process.exit(0);
}

const started = Date.now();
const loadAtStart = loadavg().map((l) => Math.round(l * 100) / 100);
mkdirSync(OUT_DIR, { recursive: true });

// Helpers first: the fixture key is the hash of the generator bundle, so a changed generator
// regenerates the cached roots and an unchanged one reuses them (the 4,000-session root is slow).
const env = {
  ...process.env,
  BENCH_FIXTURES: FIXTURES,
  BENCH_PROJECT: PROJECT,
  BENCH_NODE: process.execPath,
};
for (const h of HELPERS) {
  const out = join(OUT_DIR, `${h.name}.mjs`);
  const err = await bundle(h.entry, out);
  const key = h.name.replaceAll('-', '_').toUpperCase();
  if (err) env[`BENCH_HELPER_ERR_${key}`] = err;
  else env[`BENCH_HELPER_${key}`] = out;
}
if (env.BENCH_HELPER_MAKE_FIXTURE) {
  env.BENCH_FIXTURE_KEY = createHash('sha256')
    .update(readFileSync(env.BENCH_HELPER_MAKE_FIXTURE))
    .digest('hex')
    .slice(0, 12);
}
env.BENCH_ARGS = JSON.stringify({ quick: args.quick, sizes: args.sizes, profile: args.profile });

const results = [];
for (const m of MEASUREMENTS) {
  if (args.only && !args.only.includes(m.name)) continue;
  console.error(`\n== ${m.name}`);
  const t0 = Date.now();
  const outfile = join(OUT_DIR, `measure-${m.name}.mjs`);
  const err = await bundle(m.entry, outfile);
  if (err) {
    results.push({ measurement: m.name, figures: [], notMeasured: [`cannot build ${m.entry}: ${err}`] });
    console.error(`  not measured: cannot build ${m.entry}: ${err}`);
    continue;
  }
  const resultFile = join(OUT_DIR, `${m.name}.result.json`);
  rmSync(resultFile, { force: true });
  const nodeArgs = ['--expose-gc', '--enable-source-maps'];
  if (args.profile) {
    const profDir = join(OUT_DIR, 'prof', m.name);
    rmSync(profDir, { recursive: true, force: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profDir}`);
  }
  const rc = await runChild(
    process.execPath,
    [...nodeArgs, outfile],
    { ...env, ...m.env, BENCH_OUT: resultFile },
    m.timeoutMs,
  );
  let res;
  try {
    res = JSON.parse(readFileSync(resultFile, 'utf8'));
  } catch {
    res = { measurement: m.name, figures: [], notMeasured: [] };
  }
  if (rc !== 0)
    res.notMeasured.push(
      `measure-${m.name} exited ${rc} before it finished (killed at its time limit, or failed: output above)`,
    );
  res.measuredAt = new Date().toISOString();
  res.loadavgAfter = loadavg().map((l) => Math.round(l * 100) / 100);
  res.seconds = Math.round((Date.now() - t0) / 100) / 10;
  if (args.profile) {
    const summary = spawnSync(
      process.execPath,
      [join(PROJECT, 'bench', 'profile-summary.mjs'), join(OUT_DIR, 'prof', m.name)],
      { encoding: 'utf8' },
    );
    res.profile = summary.stdout;
    console.error(summary.stdout);
  }
  results.push(res);
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  node: process.version,
  kernel: release(),
  // The machine is shared: the load says how much to trust absolute times (ratios are interleaved).
  loadavg: { start: loadAtStart, end: loadavg().map((l) => Math.round(l * 100) / 100) },
  date: new Date().toISOString(),
};
const all = {
  machine,
  command: `npm run bench${args.raw.length ? ` -- ${args.raw.join(' ')}` : ''}`,
  results,
};
const figures = results.flatMap((r) => r.figures);
printTable(figures, results);
if (args.partial) {
  // A partial run must not change the published numbers: its own file only.
  const partial = join(OUT_DIR, 'results.partial.json');
  writeFileSync(partial, `${JSON.stringify(all, null, 2)}\n`);
  console.log(`\n(partial run: wrote ${partial}; bench/results.json and README.md unchanged)`);
} else {
  // A full run replaces every section it runs; the peers section comes from \`npm run bench:vm\`
  // (a QEMU guest) and is kept from the last results.json with its own date.
  const file = join(PROJECT, 'bench', 'results.json');
  const previous = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  const peers = (previous?.results ?? []).filter((r) => r.measurement === 'peers');
  await writeReport(PROJECT, { ...all, results: [...results, ...peers] });
  console.log("\nwrote bench/results.json and README.md's bench table");
}
console.log(`whole run: ${Math.round((Date.now() - started) / 1000)} s`);

// ---------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const a = {
    raw: argv,
    quick: false,
    profile: false,
    cleanFixtures: false,
    only: undefined,
    sizes: undefined,
    partial: argv.length > 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    const [k, inline] = v.includes('=') ? v.split(/=(.*)/) : [v, undefined];
    const next = () => inline ?? argv[++i];
    if (k === '--quick') a.quick = true;
    else if (k === '--profile') a.profile = true;
    else if (k === '--clean-fixtures') a.cleanFixtures = true;
    else if (k === '--report-only') a.reportOnly = true;
    else if (k === '--only') a.only = next().split(',');
    else if (k === '--sizes') a.sizes = next().split(',').map(Number);
    else if (k === '-h' || k === '--help') {
      console.log(
        readFileSync(fileURLToPath(import.meta.url), 'utf8')
          .split('\n')
          .slice(10, 20)
          .join('\n'),
      );
      process.exit(0);
    } else {
      console.error(`unknown argument ${v} (see --help)`);
      process.exit(2);
    }
  }
  return a;
}

function runChild(cmd, argv, childEnv, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { env: childEnv, stdio: ['ignore', 'inherit', 'inherit'], cwd: PROJECT });
    const timer = setTimeout(() => {
      console.error(`  killed after ${timeoutMs / 1000} s`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}
