/**
 * A PROBLEMS cell (Volumes, Targets, Devices) from the engine's one rule for what is wrong
 * (src/engine/snapshot/problems.ts), so every view words and colours a problem alike: `✓` when
 * ok, else a symbol (NO_COLOR still tells failed from the rest) and the one-line why.
 */
import { type Problem, problemSortKey } from '../../app/domain.js';
import { problemTone, type Tone } from '../theme.js';

export const OK_PROBLEM: Problem = Object.freeze({ severity: 'ok', reasons: [], reason: '' }) as Problem;

interface ProblemCell {
  text: string;
  tone: Tone;
  /** problemSortKey: ascending is problems first. */
  sort: number;
  /** The `problems` filter field: severity and reason (`/problems=orphaned`), '' when ok. */
  field: string;
}

export function problemCell(p: Problem): ProblemCell {
  if (p.severity === 'ok') return { text: '✓', tone: 'ok', sort: problemSortKey(p), field: '' };
  const symbol = p.severity === 'failed' ? '✗' : '!';
  return {
    // The reason says which kind (`no kubelet volume`, `map mpatha lost path sdc`); the word only
    // when there is none. The symbol and tone carry the severity.
    text: `${symbol} ${p.reason || p.severity}`,
    tone: problemTone(p.severity),
    sort: problemSortKey(p),
    field: `${p.severity} ${p.reason}`.trim(),
  };
}
