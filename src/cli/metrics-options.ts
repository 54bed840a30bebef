import { UserError } from '../engine/errors.js';
import { DEFAULT_MAX_SESSIONS } from '../engine/metrics/index.js';
import type { OptionSpec, ParsedOptions } from './args.js';

/** `--max-sessions N`: `metrics` and `serve` cap their per-session families alike. */
export const MAX_SESSIONS_OPTION: OptionSpec = {
  name: 'max-sessions',
  type: 'string',
  valueName: 'N',
  description: `Per-session series for at most N sessions, problems first (default ${DEFAULT_MAX_SESSIONS}); the rest is counted in iscsi_sessions and iscsi_console_series_dropped_total`,
};

export function readMaxSessions(o: ParsedOptions): number {
  const raw = o['max-sessions'];
  if (raw === undefined) return DEFAULT_MAX_SESSIONS;
  const n = typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n)) throw new UserError(`--max-sessions takes a whole number (got ${String(raw)})`);
  return n;
}
