/** A simulator scenario's snapshot for the enclosing describe block: opened before it, closed after. */
import { afterAll, beforeAll } from 'vitest';
import type { Snapshot } from '../../src/engine/model.js';
import { type SimEnv, simEnv } from '../actions/helpers.js';

export function simSnapshot(scenario: string): () => Snapshot {
  let env: SimEnv | undefined;
  let snap: Snapshot | undefined;
  beforeAll(async () => {
    env = await simEnv(scenario, false);
    snap = env.snap();
  });
  afterAll(() => env?.close());
  return () => snap!;
}
