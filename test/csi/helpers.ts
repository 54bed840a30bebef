/**
 * Nodes for the CSI tests: --root fixture trees and simulator envs, closed after each test, and
 * action plans on a --root tree through the registry (the CLI's path).
 */
import { afterEach } from 'vitest';
import { findAction } from '../../src/engine/actions/registry.js';
import type { ActionContext, Plan } from '../../src/engine/actions/types.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { type SimEnv, simEnv } from '../actions/helpers.js';
import { FixtureRoot, KROOT } from '../snapshot/fixture-root.js';

export interface TestNodes {
  /** The single-session capture as a --root tree. */
  root(): FixtureRoot;
  /** A simulator scenario with writes on. */
  sim(scenario: string): Promise<SimEnv>;
}

/** Registers an afterEach that removes the trees and closes the envs the test made. */
export function testNodes(): TestNodes {
  const fixtures: FixtureRoot[] = [];
  const envs: SimEnv[] = [];
  afterEach(async () => {
    for (const f of fixtures.splice(0)) f.cleanup();
    for (const e of envs.splice(0)) await e.close();
  });
  return {
    root() {
      const f = new FixtureRoot('single-sysfs.json');
      fixtures.push(f);
      return f;
    },
    async sim(scenario) {
      const e = await simEnv(scenario);
      envs.push(e);
      return e;
    },
  };
}

/** A write-enabled action context on a --root tree. */
export function rootContext(f: FixtureRoot): ActionContext {
  const host = f.host();
  return {
    host,
    kubeletRoot: KROOT,
    stateDir: '/var/log/iscsi-console',
    write: true,
    takeSnapshot: () => takeSnapshot(host, { kubeletRoot: KROOT }),
  };
}

/** `cleanup <ref>` planned on a --root tree as the CLI plans it. */
export function rootCleanupPlan(f: FixtureRoot, ref: string, options: Record<string, unknown> = {}): Plan {
  const ctx = rootContext(f);
  const s = ctx.takeSnapshot();
  const def = findAction('cleanup');
  return def.plan(def.inputFromCli([ref], options, s), s, ctx);
}
