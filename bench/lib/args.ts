/** Options bench/run.mjs passes to every measurement child (BENCH_ARGS, JSON). */
export interface BenchArgs {
  /** Fewer repetitions: a smoke run. */
  quick: boolean;
  /** Fixture sizes (sessions) to measure; default 10, 100, 1,000, 4,000. */
  sizes?: number[];
  /** The child runs under --cpu-prof. */
  profile: boolean;
}

export function benchArgs(): BenchArgs {
  const raw = process.env.BENCH_ARGS;
  const parsed = raw ? (JSON.parse(raw) as Partial<BenchArgs>) : {};
  return { quick: parsed.quick ?? false, profile: parsed.profile ?? false, sizes: parsed.sizes ?? undefined };
}

/** The project dir (bench/run.mjs sets it; by hand: the cwd). */
export function projectDir(): string {
  return process.env.BENCH_PROJECT ?? process.cwd();
}

/** Node binary the children run on (the project's pinned node 22). */
export function nodeBin(): string {
  return process.env.BENCH_NODE ?? process.execPath;
}

/** Runs `gc()` when the child was started with --expose-gc, so each timed run starts clean. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
