/**
 * The one strict parser for the numbers an admin types (LUNs, session ids, ...): decimal digits and
 * nothing else. `Number()` would take ` 1`, `0x10`, `1e3`, `1.0` and `+1` — each a different
 * object than the admin sees on screen, or a typo that must not silently pick one.
 */

/** At most 15 digits: always a safe integer, and more than any bounded range here needs. */
const DIGITS = /^[0-9]{1,15}$/;

/** The value of `text` when it is decimal digits only (no sign, space, point, exponent or hex). */
export function decimalOf(text: string): number | undefined {
  return DIGITS.test(text) ? Number(text) : undefined;
}
