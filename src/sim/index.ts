import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../engine/errors.js';
import { SCENARIO_DEFS } from './scenarios/index.js';
import { SimHost } from './sim-host.js';
import { Simulator } from './simulator.js';

export type { SimChange } from './kernel/kernel.js';
export type { KubeletAttachOptions, KubeletVolumeState } from './kubelet.js';
export { SimHost } from './sim-host.js';
export { Simulator } from './simulator.js';
export type { ChapSecret, LunSpec, TargetSpec } from './types.js';

/** The `--demo` scenarios: name and one-line description (the default, `incident`, first). */
export const SCENARIOS: readonly { name: string; description: string }[] = SCENARIO_DEFS.map(
  ({ name, description }) => ({
    name,
    description,
  }),
);

export const DEFAULT_SCENARIO = 'incident';

export interface OpenSimHostOptions {
  scenario: string;
  /** `real` (default): recovery timers run on the wall clock; `manual`: only `sim.advance(ms)`. */
  clock?: 'real' | 'manual';
  /** Parent directory of the temporary tree (default: the OS temp dir). */
  dir?: string;
  /** Seed of everything that varies (filesystem UUIDs). */
  seed?: number;
}

/**
 * Opens the simulated node on a scenario: a temporary directory with the node's tree, a SimHost over
 * it, and `close()` which stops the clock and removes the directory.
 */
export async function openSimHost(
  options: OpenSimHostOptions,
): Promise<{ host: SimHost; close: () => Promise<void> }> {
  const name = options.scenario === '' || options.scenario === 'true' ? DEFAULT_SCENARIO : options.scenario;
  const def = SCENARIO_DEFS.find((s) => s.name === name);
  if (!def) {
    throw new UserError(
      `unknown demo scenario '${options.scenario}'`,
      `choose one of: ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  }
  const dir = fs.mkdtempSync(join(options.dir ?? tmpdir(), 'iscsi-console-sim-'));
  const sim = new Simulator({
    dir,
    clock: options.clock ?? 'real',
    seed: options.seed ?? 1,
    profile: def.profile ?? 'full',
  });
  const close = async () => {
    sim.clock.dispose();
    await fs.promises.rm(dir, { recursive: true, force: true });
  };
  try {
    await def.build(sim);
  } catch (e) {
    await close();
    throw e;
  }
  return { host: new SimHost(sim), close };
}
