/** Node-sourced text a hostile or broken node could hand out, and what must never reach a terminal raw. */

/** A target name with a valid prefix, then OSC (retitle), SGR, a one-byte CSI, CR, LF, TAB and bidi controls. */
export const HOSTILE_NAME =
  'iqn.2024-01.lab.example:x\x1b]0;PWNED\x07\x1b[5mBLINK\x9b2J\rFORGED\nLINE\t\u202Eevil\u2066';

/** Any character that must never reach a terminal raw (a formatter's own line breaks aside). */
export const RAW_CONTROL =
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/;
