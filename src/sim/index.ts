import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../engine/errors.js';
import { claimTree, DEMO_TREE_PREFIX, sweepStaleTrees } from './demo-trees.js';
import { DEFAULT_SCENARIO, SCENARIO_CATALOGUE } from './scenarios/catalogue.js';
import { SCENARIO_DEFS } from './scenarios/index.js';
import { SimHost as SimNodeHost } from './sim-host.js';
import { Simulator } from './simulator.js';
import { removeTree } from './tree.js';

export type { SimChange } from './kernel/kernel.js';
export type { KubeletAttachOptions, KubeletVolumeState } from './kubelet.js';
/**
 * The Host over a whole Simulator: its `sim` is the simulator itself, so tests and the demo drive it
 * (portals down, faults, kubelet). sim-host.ts types it by the narrower SimNode it needs.
 */
export type SimHost = SimNodeHost<Simulator>;
export const SimHost = SimNodeHost;

/** The `--demo` scenarios: name and one-line description (the default, `incident`, first). */
export { DEFAULT_SCENARIO, SCENARIO_CATALOGUE as SCENARIOS } from './scenarios/catalogue.js';
export { Simulator } from './simulator.js';
export type { ChapSecret, LunSpec, TargetSpec } from './types.js';

export interface OpenSimHostOptions {
  scenario: string;
  /** `real` (default): recovery timers run on the wall clock; `manual`: only `sim.advance(ms)`. */
  clock?: 'real' | 'manual';
  /** Parent directory of the temporary tree (default: {@link defaultSimParent}). */
  dir?: string;
  /** Seed of everything that varies (filesystem UUIDs). */
  seed?: number;
}

/** tmpfs room a simulated tree may take (the scale scenario's lean tree takes ~240 MB of tmpfs). */
const TMPFS_NEEDED = 1024 * 1024 * 1024;

/**
 * Where the simulated tree goes when the caller does not say: `$TMPDIR` when the user set one, else
 * /dev/shm when it is a writable tmpfs with room to spare, else the OS temp dir. A node's sysfs lives
 * in memory, and so should its simulation: the scale scenario writes ~140,000 entries, which take
 * ~1.5 s of system time on tmpfs and ~30 s on a disk-backed /tmp (measured on the project machine).
 */
export function defaultSimParent(): string {
  if (process.env.TMPDIR) return tmpdir();
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    const st = fs.statfsSync('/dev/shm');
    if (st.bavail * st.bsize >= TMPFS_NEEDED) return '/dev/shm';
  } catch {
    // no /dev/shm (or not writable): the OS temp dir
  }
  return tmpdir();
}

/**
 * Opens the simulated node on a scenario: a temporary directory with the node's tree, a SimHost over
 * it, and `close()` which stops the clock and removes the directory.
 */
export async function openSimHost(
  options: OpenSimHostOptions,
): Promise<{ host: SimHost; close: () => Promise<void>; note?: string }> {
  const name = options.scenario === '' || options.scenario === 'true' ? DEFAULT_SCENARIO : options.scenario;
  const def = SCENARIO_DEFS.find((s) => s.name === name);
  if (!def) {
    throw new UserError(
      `unknown demo scenario '${options.scenario}'`,
      `choose one of: ${SCENARIO_CATALOGUE.map((s) => s.name).join(', ')}`,
    );
  }
  const parent = options.dir ?? defaultSimParent();
  // Trees left by demos that were killed (SIGKILL leaves no chance to clean up) go first.
  sweepStaleTrees(parent);
  const dir = fs.mkdtempSync(join(parent, DEMO_TREE_PREFIX));
  claimTree(dir);
  const sim = new Simulator({
    dir,
    clock: options.clock ?? 'real',
    seed: options.seed ?? 1,
    profile: def.profile ?? 'full',
  });
  const close = async () => {
    sim.clock.dispose();
    // Synchronous on purpose: ~140,000 unlinks through the libuv pool (fs.promises.rm) take
    // several times longer than a plain loop of sync calls (bench/README.md measures the same for reads).
    removeTree(dir);
  };
  try {
    await def.build(sim);
  } catch (e) {
    await close();
    throw e;
  }
  return { host: new SimNodeHost(sim), close, ...(def.note ? { note: def.note } : {}) };
}
