import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeBin } from './args.js';

/** Marker paths the traced child `access()`es around the one traced region. */
export const MARK_START = '/.iscsi-console-bench-syscalls-start';
export const MARK_END = '/.iscsi-console-bench-syscalls-end';

export interface SyscallCount {
  total: number;
  /** The most frequent syscalls, name → count. */
  top: Record<string, number>;
}

/**
 * Counts the syscalls of one snapshot and of one floor loop over the same fixture root, each in a
 * fresh process under `strace -f` (all threads: GC and libuv count too), between two marker
 * syscalls so start-up and the warm-up are excluded.
 */
export function countSyscalls(
  root: string,
  tag: number,
): { snapshot: SyscallCount; floor: SyscallCount } | { error: string } {
  const child = process.env.BENCH_HELPER_SYSCALLS;
  if (!child) return { error: process.env.BENCH_HELPER_ERR_SYSCALLS ?? 'syscalls helper not built' };
  const probe = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  if (probe.status !== 0) return { error: 'strace is not installed' };
  const result: Record<string, SyscallCount> = {};
  for (const mode of ['snapshot', 'floor']) {
    const log = join(tmpdir(), `iscsi-console-bench-strace-${process.pid}-${tag}-${mode}.txt`);
    const r = spawnSync('strace', ['-f', '-qq', '-o', log, nodeBin(), child, root, mode], {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      env: process.env,
    });
    if (r.status !== 0) {
      rmSync(log, { force: true });
      return {
        error: `strace ${mode} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      };
    }
    result[mode] = parseStrace(readFileSync(log, 'utf8'));
    rmSync(log, { force: true });
  }
  return { snapshot: result.snapshot!, floor: result.floor! };
}

/**
 * Syscall totals of one snapshot and one floor loop, counted by the kernel (perf's
 * raw_syscalls:sys_enter tracepoint, all threads, no ptrace slow-down): each count is a process that
 * warms up and then runs it once, minus a process that only warms up. Start-up noise (a few dozen
 * futex/mmap calls) stays in the figure; it is small next to tens of thousands of reads.
 */
export function countSyscallsPerf(root: string): { snapshot: number; floor: number } | { error: string } {
  const child = process.env.BENCH_HELPER_SYSCALLS;
  if (!child) return { error: process.env.BENCH_HELPER_ERR_SYSCALLS ?? 'syscalls helper not built' };
  const counts: Record<string, number> = {};
  for (const mode of ['warm', 'snapshot', 'floor']) {
    const r = spawnSync(
      'perf',
      ['stat', '-x', ',', '-e', 'raw_syscalls:sys_enter', '--', nodeBin(), child, root, mode],
      { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env: process.env },
    );
    const line = r.stderr?.split('\n').find((l) => l.includes('raw_syscalls:sys_enter'));
    const n = Number(line?.split(',')[0]);
    if (r.status !== 0 || !Number.isFinite(n)) {
      return {
        error: `perf stat (${mode}) failed: ${(r.error?.message ?? r.stderr ?? '').trim().split('\n').slice(-2).join(' | ')}`,
      };
    }
    counts[mode] = n;
  }
  return { snapshot: counts.snapshot! - counts.warm!, floor: counts.floor! - counts.warm! };
}

/** Counts syscalls between the markers; a call split by `<unfinished ...>`/`resumed>` counts once. */
export function parseStrace(text: string): SyscallCount {
  const counts = new Map<string, number>();
  let inside = false;
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.includes(MARK_START)) {
      inside = true;
      continue;
    }
    if (line.includes(MARK_END)) break;
    if (!inside || line.includes(' resumed>') || line.includes('+++') || line.includes('---')) continue;
    const m = /^\d+\s+([a-z0-9_]+)\(/.exec(line);
    if (!m) continue;
    total++;
    counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  }
  const top = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).slice(0, 8));
  return { total, top };
}
