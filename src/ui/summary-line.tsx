/**
 * The summary line under the tabs: what is wrong on the node in one line, worst first, from the
 * engine's one problems rule (src/engine/snapshot/problems.ts): `✗ 2 failed · 1 degraded · 1 stale ·
 * 1 orphaned · portal 10.0.0.12:3260 down`, then the targets' common IQN prefix, shown once here
 * because tables elide it (iqn-prefix.ts). Marked by a symbol as well as a colour (NO_COLOR).
 */

import { nodeProblems } from '../app/domain.js';
import type { Snapshot } from '../engine/model.js';
import { Text } from './components/safe-text.js';
import { truncateEnd } from './format.js';
import { nodeIqnPrefix } from './iqn-prefix.js';
import { SEVERITY_LOOK, type Theme, type Tone, toneColor } from './theme.js';

/**
 * The line's text at `width` cells (0: uncut), and its tone. With `banner` the outage banner is on
 * screen right above, so the portals it names are left out here (no fact said twice on screen).
 * The prefix (tables elide it) is read here, `targets ` dropped first when short of room; what is
 * wrong wins over it.
 */
export function summaryLine(snap: Snapshot, width = 0, banner = false): { text: string; tone: Tone } {
  const p = nodeProblems(snap);
  // A worst of the node that fails I/O somewhere is red; the symbol is the worst severity's own.
  const { symbol, tone } = SEVERITY_LOOK[p.worst];
  const prefix = snap.partial ? '' : nodeIqnPrefix(snap);
  // A part about a portal is the banner's fact (outage-banner.tsx): said there when shown.
  const parts = p.summaryParts.filter((x) => !(banner && x.portal !== undefined)).map((x) => x.text);
  const head = `${symbol} ${parts.length ? parts.join(' · ') : 'see the outage above'}`;
  const long = prefix ? `  ·  targets ${prefix}…` : '';
  if (width <= 0 || head.length + long.length <= width) return { text: head + long, tone };
  const tail = prefix ? `  ·  ${prefix}…` : '';
  if (head.length + tail.length <= width) return { text: head + tail, tone };
  // What is wrong wins over the prefix: the counts are cut last.
  return { text: truncateEnd(head + tail, width), tone };
}

/** Lines the summary takes under the tabs (always one: the layout keeps its height). */
export const SUMMARY_LINE_HEIGHT = 1;

export function SummaryLine(props: {
  snapshot: Snapshot | undefined;
  theme: Theme;
  width: number;
  /** The outage banner is shown: leave its portals out. */
  banner?: boolean;
}) {
  if (!props.snapshot) return <Text> </Text>;
  const { text, tone } = summaryLine(props.snapshot, props.width, props.banner === true);
  return (
    <Text wrap="truncate" color={toneColor(props.theme, tone)}>
      {text}
    </Text>
  );
}
