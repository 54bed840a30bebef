/**
 * The outage banner under the tabs: one line naming every portal the node has lost, worded by the
 * engine (PortalOutage.summary), so it reads exactly as `status`, `doctor` and `watch` say it.
 * Absent when no portal is down; the layout then keeps its usual height.
 */

import type { PortalOutage, Snapshot } from '../engine/model.js';
import { Text } from './components/safe-text.js';
import { formatClock, truncateEnd } from './format.js';
import { type Theme, toneColor, VERDICT_LOOK } from './theme.js';

/** The banner's text, or undefined when nothing is down. */
export function outageBannerText(outages: readonly PortalOutage[]): string | undefined {
  if (outages.length === 0) return undefined;
  const parts = outages
    .map((o) => `${o.summary} (since ${formatClock(Date.parse(o.firstSeenAt))})`)
    .join('  ·  ');
  return `${VERDICT_LOOK.outage.symbol} OUTAGE ${parts}`;
}

/** Lines the banner takes (0 or 1): the body gives them up. */
export function outageBannerHeight(snap: Snapshot | undefined): number {
  return snap && snap.outages.length > 0 ? 1 : 0;
}

export function OutageBanner(props: { snapshot: Snapshot | undefined; theme: Theme; width: number }) {
  const text = props.snapshot ? outageBannerText(props.snapshot.outages) : undefined;
  if (text === undefined) return null;
  return (
    <Text wrap="truncate" bold color={toneColor(props.theme, 'bad')} inverse={!props.theme.color}>
      {truncateEnd(text, props.width)}
    </Text>
  );
}
