import { spawnSync } from 'node:child_process';

/** Wall and CPU (user+system) ms of one whole process, as bash's `time` reports them (getrusage). */
export interface ProcessTime {
  wall: number;
  cpu: number;
}

// bash's `time` keyword: wall from fork to exit, and the child's user+sys from wait4's rusage, at
// ms resolution; the timed command's own output goes to /dev/null (both sides of a ratio alike).
const SCRIPT = `TIMEFORMAT='@@ %3R %3U %3S'; time { "$@" >/dev/null 2>/dev/null; rc=$?; }; exit $rc`;

/** Runs argv once, untimed, and returns why it failed (exit code and stderr's tail) or undefined. */
export function checkRuns(argv: readonly string[], cwd: string): string | undefined {
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status === 0) return undefined;
  return `${argv.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').slice(-2).join(' | ')}`;
}

/** Times one run of argv as a whole process; throws when it fails. */
export function timeProcess(argv: readonly string[], cwd: string): ProcessTime {
  const r = spawnSync('bash', ['-c', SCRIPT, 'bash', ...argv], { cwd, encoding: 'utf8' });
  const m = /@@ ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (r.status !== 0 || !m) throw new Error(`${argv.join(' ')} exited ${r.status}`);
  return { wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000 };
}

/**
 * Times `a` and `b` alternately (a b, b a, a b, …) `pairs` times: each pair shares the machine's
 * load of its moment. Returns the runs of each, in pair order.
 */
export function alternate(
  a: readonly string[],
  b: readonly string[],
  pairs: number,
  cwd: string,
): { a: ProcessTime[]; b: ProcessTime[] } {
  const out = { a: [] as ProcessTime[], b: [] as ProcessTime[] };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      out.a.push(timeProcess(a, cwd));
      out.b.push(timeProcess(b, cwd));
    } else {
      out.b.push(timeProcess(b, cwd));
      out.a.push(timeProcess(a, cwd));
    }
  }
  return out;
}
