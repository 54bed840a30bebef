/**
 * The summary line under the tabs: what is wrong on the node in one line, worst first, from the
 * engine's one problems rule (src/engine/snapshot/problems.ts): `✗ 2 failed · 1 degraded · 1 stale ·
 * 1 orphaned · portal 10.0.0.12:3260 down`, then the targets' common IQN prefix, shown once here
 * because tables elide it (iqn-prefix.ts). Marked by a symbol as well as a colour (NO_COLOR).
 */

import { nodeProblems, type Severity, severityRank } from '../app/domain.js';
import type { Snapshot } from '../engine/model.js';
import { Text } from './components/safe-text.js';
import { truncateEnd } from './format.js';
import { nodeIqnPrefix } from './iqn-prefix.js';
import { type Theme, type Tone, toneColor } from './theme.js';

function look(worst: Severity): { symbol: string; tone: Tone } {
  const rank = severityRank(worst);
  if (rank >= severityRank('failed')) return { symbol: '✗', tone: 'bad' };
  if (rank >= severityRank('stale')) return { symbol: '!', tone: 'warn' };
  if (rank > 0) return { symbol: '·', tone: 'dim' };
  return { symbol: '✓', tone: 'ok' };
}

/** The line's text at `width` cells (0: uncut), and its tone. */
export function summaryLine(snap: Snapshot, width = 0): { text: string; tone: Tone } {
  const p = nodeProblems(snap);
  const { symbol, tone } = look(p.worst);
  const prefix = snap.partial ? '' : nodeIqnPrefix(snap);
  const text = `${symbol} ${p.summary}${prefix ? `  ·  targets ${prefix}…` : ''}`;
  return { text: width > 0 ? truncateEnd(text, width) : text, tone };
}

export function SummaryLine(props: { snapshot: Snapshot | undefined; theme: Theme; width: number }) {
  if (!props.snapshot) return <Text> </Text>;
  const { text, tone } = summaryLine(props.snapshot, props.width);
  return (
    <Text wrap="truncate" color={toneColor(props.theme, tone)}>
      {text}
    </Text>
  );
}
