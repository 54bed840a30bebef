/** The consent policy itself (engine/actions/consent.ts): what holds, what the override act asks. */
import { describe, expect, it } from 'vitest';
import { combinePlans } from '../../src/engine/actions/combine.js';
import {
  answerConsents,
  blockingRefusals,
  consentFor,
  READ_ONLY_REFUSAL,
} from '../../src/engine/actions/consent.js';
import { EMPTY_BLAST } from '../../src/engine/actions/plan-kit.js';
import type { Plan, Refusal } from '../../src/engine/actions/types.js';

/** No multipath maps: the combined plans here are checked for step order, not for map paths. */
const NO_MAPS = { multipath: [], sessions: [] };

const R = (id: string, overridable: boolean): Refusal => ({ id, reason: `${id}!`, overridable });
const plan = (o: Partial<Plan> = {}): Plan => ({
  action: 'cleanup',
  title: 'Clean up',
  subject: 'session 23',
  steps: [{ id: 's', why: 'w', argv: ['true'], effect: { kind: 'none' }, preconditions: [] }],
  refusals: [],
  warnings: [],
  blastRadius: structuredClone(EMPTY_BLAST),
  risk: 'high',
  confirm: 'typed',
  confirmToken: '23',
  undo: [],
  before: [],
  ...o,
});
const TTY = { write: true, hostname: 'node-17', interactive: true };

describe('consentFor', () => {
  it('ordinary consent: the plan typed token, y/N or nothing', () => {
    expect(consentFor(plan(), TTY)).toMatchObject({ ask: { kind: 'typed', token: '23' }, force: false });
    expect(consentFor(plan({ confirm: 'yn', confirmToken: undefined }), TTY).ask).toEqual({ kind: 'yn' });
    expect(consentFor(plan({ confirm: 'none' }), TTY).ask).toEqual({ kind: 'none' });
    expect(consentFor(plan(), TTY).blocked).toBeUndefined();
  });

  it('overridable refusals: blocked until the override act is asked for; its token is never the plain one', () => {
    const p = plan({ refusals: [R('outage', true), R('foreign', true)] });
    const c = consentFor(p, TTY);
    expect(c.blocked?.kind).toBe('needs-override');
    expect(c.blocked?.reason).toContain('outage, foreign');
    expect(c.blocking.map((r) => r.id)).toEqual(['outage', 'foreign']);
    expect(c.ask).toMatchObject({ kind: 'override', token: 'override node-17' });
    expect(answerConsents(c.ask, '23')).toBe(false);
    const o = consentFor(p, { ...TTY, override: true });
    expect(o.blocked).toBeUndefined();
    expect(o.blocking).toEqual([]);
    expect(o.force).toBe(true);
    expect(o.ask).toMatchObject({ kind: 'override', refusals: p.refusals });
    expect(answerConsents(o.ask, 'override node-17')).toBe(true);
    expect(answerConsents(o.ask, 'node-17')).toBe(false);
  });

  it('multi-object plans type the hostname; overriding them still needs a different token', () => {
    const a = plan({ refusals: [R('pod-mounts', true)] });
    const c = combinePlans([a, plan({ subject: 'session 24', confirmToken: '24' })], 'node-17', NO_MAPS);
    const k = consentFor(c, { ...TTY, override: true });
    expect(k.plainToken).toBe('node-17');
    expect(k.overrideToken).not.toBe(k.plainToken);
    expect(answerConsents(k.ask, 'node-17')).toBe(false);
  });

  it('a held refusal is not overridden by anything; overridable ones beside it stay listed', () => {
    const c = consentFor(plan({ refusals: [R('outage', true), R('in-use', false)] }), {
      ...TTY,
      override: true,
    });
    expect(c.blocked?.kind).toBe('refused');
    expect(c.holds.map((r) => r.id)).toEqual(['in-use']);
    expect(c.overridable.map((r) => r.id)).toEqual(['outage']);
    expect(c.blocking.map((r) => r.id)).toEqual(['in-use']);
  });

  it('one read-only refusal, whether the planner added it or not', () => {
    const built = consentFor(plan({ refusals: [{ ...READ_ONLY_REFUSAL }] }), { ...TTY, write: false });
    const bare = consentFor(plan(), { ...TTY, write: false });
    expect(built.holds).toEqual([READ_ONLY_REFUSAL]);
    expect(bare.holds).toEqual([READ_ONLY_REFUSAL]);
    expect(bare.blocked).toMatchObject({ kind: 'read-only', hint: READ_ONLY_REFUSAL.hint });
    expect(blockingRefusals(plan(), false, true)).toEqual([READ_ONLY_REFUSAL]);
  });

  it('dry-run, nothing to do, and a headless run without --yes are blocked; --yes answers the ask', () => {
    expect(consentFor(plan(), { ...TTY, dryRun: true }).blocked?.kind).toBe('dry-run');
    expect(consentFor(plan({ steps: [] }), TTY).blocked?.kind).toBe('empty');
    expect(consentFor(plan(), { ...TTY, interactive: false }).blocked?.kind).toBe('needs-yes');
    const y = consentFor(plan(), { ...TTY, interactive: false, yes: true });
    expect(y.blocked).toBeUndefined();
    expect(y.answered).toBe(true);
  });
});
