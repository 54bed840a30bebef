/**
 * Takes every CHAP user and secret out of what goes into a bundle. Where a secret can be, from the
 * engine's own knowledge (src/engine/actions/chap-keys.ts, src/engine/iscsiadm/record-secrets.ts):
 * - `name = value` lines of node and discovery records and iscsid.conf (open-iscsi keeps secrets
 *   in clear there, idbm_print with show=1), commented-out lines included;
 * - `iscsiadm -m session -P 3`'s CHAP block (`username:`, `password:`, `username_in:`, `password_in:`);
 * - JSON a driver keeps on the node (csi-driver-iscsi's connector with its discovery/session
 *   secrets, Trident's tracking files with IscsiUsername/IscsiInitiatorSecret/IscsiTargetSecret):
 *   every value under a key that names a user, secret, password or CHAP.
 * Each value taken out is remembered, and every other text of the bundle (journal, kernel log,
 * status, command output) is then searched for it too: a secret found anywhere is masked everywhere.
 */
import { CHAP_KEYS } from '../actions/chap-keys.js';

export const MASK = '********';

/** `<key> = <value>` (records, iscsid.conf), optionally commented out. */
const RECORD_LINE = /^(\s*#?\s*)([A-Za-z0-9_.[\]]+)(\s*=\s*)(.*?)(\s*)$/;
/** session -P 3: `\t\tusername: alice` (and `<empty>` when unset). */
const SESSION_CHAP_LINE = /^(\s*)(username|password|username_in|password_in)(:\s*)(.*?)(\s*)$/;
/** JSON keys that hold a credential (any driver's spelling: ...Username, ...Secret, password, chap...). */
const SECRET_KEY = /user|secret|passw|chap|credential|token/i;
/**
 * Values at least this long are also masked wherever else they occur; shorter ones (a username
 * like `user`) only where they are kept, by key: masking them everywhere would cut words and key
 * names apart all over the bundle.
 */
const MIN_GLOBAL = 6;

const CHAP_KEY_SET = new Set(CHAP_KEYS);
/**
 * The placeholders of open-iscsi's shipped iscsid.conf (`#node.session.auth.username = username`,
 * etc/iscsid.conf): masked where they stand, but never searched for elsewhere — every key name
 * of the bundle contains them.
 */
const PLACEHOLDERS = new Set(['username', 'password', 'username_in', 'password_in']);

/** Collects the secrets found while scrubbing, then masks them in every other text. */
export class Scrubber {
  readonly found = new Set<string>();

  private keep(value: string): void {
    const v = value.trim();
    if (v !== '' && v !== '<empty>' && v !== MASK && !PLACEHOLDERS.has(v)) this.found.add(v);
  }

  /** Records and iscsid.conf: CHAP fields masked. Returns the text and how many values were masked. */
  records(text: string): { text: string; masked: number } {
    let masked = 0;
    const out = text.split('\n').map((line) => {
      const m = RECORD_LINE.exec(line);
      if (!m || !CHAP_KEY_SET.has(m[2]!) || m[4] === '' || m[4] === '<empty>') return line;
      this.keep(m[4]!);
      masked++;
      return `${m[1]}${m[2]}${m[3]}${MASK}${m[5]}`;
    });
    return { text: out.join('\n'), masked };
  }

  /** `iscsiadm -m session -P 3`: the CHAP block's values masked (its passwords are masked by iscsiadm already). */
  sessionDetail(text: string): { text: string; masked: number } {
    let masked = 0;
    const out = text.split('\n').map((line) => {
      const m = SESSION_CHAP_LINE.exec(line);
      if (!m || m[4] === '' || m[4] === '<empty>' || m[4] === MASK) return line;
      this.keep(m[4]!);
      masked++;
      return `${m[1]}${m[2]}${m[3]}${MASK}${m[5]}`;
    });
    return { text: out.join('\n'), masked };
  }

  /**
   * A JSON document with every value under a credential key masked (nested objects and arrays
   * under such a key: all their strings). Undefined when the text is not JSON: the caller leaves
   * the file out rather than guess where a secret sits in it.
   */
  json(text: string): { text: string; masked: number } | undefined {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return undefined;
    }
    let masked = 0;
    const all = (v: unknown): unknown => {
      if (typeof v === 'string') {
        if (v === '') return v;
        this.keep(v);
        masked++;
        return MASK;
      }
      if (Array.isArray(v)) return v.map(all);
      if (v && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, all(x)]));
      return v;
    };
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object')
        return Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, SECRET_KEY.test(k) ? all(x) : walk(x)]),
        );
      return v;
    };
    const out = walk(doc);
    return { text: `${JSON.stringify(out, null, 2)}\n`, masked };
  }

  /** Every secret found so far masked wherever it occurs in `text`. */
  everywhere(text: string): { text: string; masked: number } {
    let masked = 0;
    let out = text;
    // Longest first, so a secret that contains another is masked whole.
    // Each secret as it is and as JSON writes it (a quote or backslash in it is escaped there).
    const forms = [...this.found].flatMap((x) => [x, JSON.stringify(x).slice(1, -1)]);
    for (const s of [...new Set(forms)]
      .filter((x) => x.length >= MIN_GLOBAL)
      .sort((a, b) => b.length - a.length)) {
      const parts = out.split(s);
      if (parts.length > 1) {
        masked += parts.length - 1;
        out = parts.join(MASK);
      }
    }
    return { text: out, masked };
  }
}
