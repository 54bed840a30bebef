/**
 * computeVerdicts changes none of its inputs (docs/architecture.md, verdicts): every input of the
 * production read on the `csi` demo (its sessions, uses, volumes, listings, pod names, and the CSI
 * state behind the claim index) is deep-frozen before the verdicts run, so a write into any of them
 * throws. The CSI volumes' sessions are then derived afterwards and must still name the right sids.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CsiState, CsiVolume } from '../../src/engine/model.js';
import type { VerdictInput } from '../../src/engine/snapshot/verdicts.js';
import { type SimEnv, simEnv } from '../actions/helpers.js';

/** Frozen through and through; a Map or Set also refuses set/add/delete/clear (freeze alone does not). */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Map || value instanceof Set) {
    for (const [k, v] of value instanceof Map ? value : [...value].map((x) => [x, x])) {
      deepFreeze(k, seen);
      deepFreeze(v, seen);
    }
    const refuse = () => {
      throw new TypeError('frozen collection');
    };
    for (const m of ['set', 'add', 'delete', 'clear']) Object.defineProperty(value, m, { value: refuse });
  } else {
    for (const k of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[k], seen);
  }
  return Object.freeze(value);
}

const frozen: { input?: VerdictInput; csi?: CsiState } = {};

vi.mock('../../src/engine/snapshot/csi/claims.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/engine/snapshot/csi/claims.js')>();
  return {
    ...m,
    buildClaimIndex: (...[host, csi, byPath]: Parameters<typeof m.buildClaimIndex>) => {
      frozen.csi = deepFreeze(csi);
      return m.buildClaimIndex(host, csi, deepFreeze(byPath));
    },
  };
});

vi.mock('../../src/engine/snapshot/verdicts.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/engine/snapshot/verdicts.js')>();
  return {
    ...m,
    computeVerdicts: (input: VerdictInput) => {
      frozen.input = deepFreeze(input);
      return m.computeVerdicts(input);
    },
  };
});

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('computeVerdicts is pure', () => {
  it('the freeze catches a write into a CSI volume (positive control)', () => {
    const v = deepFreeze<CsiVolume>({
      driver: 'iscsi.csi.k8s.io',
      mode: 'filesystem',
      stagingMounted: false,
      publish: [],
      sessions: [],
      problems: [],
    });
    // What the claim index used to do while the verdicts ran.
    expect(() => {
      v.sessions = [...v.sessions, 1];
    }).toThrow(TypeError);
    expect(() => v.problems.push('x')).toThrow(TypeError);
    expect(() => deepFreeze(new Map([['a', v]])).set('b', v)).toThrow(TypeError);
  });

  it('runs on frozen inputs on the csi demo, and the CSI volumes still name their sessions', async () => {
    env = await simEnv('csi');
    const snap = env.snap();
    // The production read went through both wrappers: its inputs really were frozen.
    expect(frozen.input && Object.isFrozen(frozen.input.sessions[0])).toBe(true);
    expect(frozen.csi && frozen.csi.volumes.length > 0 && Object.isFrozen(frozen.csi.volumes[0])).toBe(true);
    // The read's own volumes were left with no sessions; the snapshot's copies have them.
    expect(frozen.csi!.volumes.every((v) => v.sessions.length === 0)).toBe(true);

    const sid = (suffix: string) => snap.sessions.find((s) => s.targetIqn.includes(suffix))!.sid;
    const holding = (n: number) => snap.csi!.volumes.filter((v) => v.sessions.includes(n));
    // csi-driver-iscsi's web volume is mounted from its session; the leftover's volume is gone.
    expect(holding(sid('csi-web')).length).toBeGreaterThan(0);
    expect(holding(sid('csi-queue')).length).toBeGreaterThan(0);
    expect(holding(sid('csi-leftover'))).toEqual([]);
  });
});
