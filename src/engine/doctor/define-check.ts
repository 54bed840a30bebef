import type { DoctorCheck, DoctorCheckFn, DoctorContext } from './types.js';

/** Who a check is: its stable id, what it checks, and where its rule comes from. */
export type CheckIdentity = Pick<DoctorCheck, 'id' | 'title' | 'source'>;

/**
 * What a check found: its status, evidence and hint. A check whose finding depends on what it saw
 * may word its own title (sessions.portals: expired or not); id and source are the identity's.
 */
export type CheckVerdict = Omit<DoctorCheck, 'id' | 'title' | 'source'> & { title?: string };

/** A check that judges synchronously stays synchronous (the status bar's iscsid probe calls one). */
type CheckOf<V> = (
  ctx: DoctorContext,
) => V extends Promise<CheckVerdict> ? Promise<DoctorCheck> : DoctorCheck;

/**
 * A doctor check from its identity, declared once, and the function that judges the node. The
 * result carries the identity's fields first, in the order `--json` has always printed them.
 */
export function defineCheck<V extends CheckVerdict | Promise<CheckVerdict>>(
  identity: CheckIdentity,
  judge: (ctx: DoctorContext) => V,
): CheckOf<V> {
  const check: DoctorCheckFn = (ctx) => {
    const verdict = judge(ctx);
    return verdict instanceof Promise
      ? verdict.then((v) => ({ ...identity, ...v }))
      : { ...identity, ...verdict };
  };
  // runDoctor reports a check that throws under its function's name: the check's id.
  Object.defineProperty(check, 'name', { value: identity.id });
  // The check's result is a promise exactly when its judge's is (CheckOf).
  return check as CheckOf<V>;
}
