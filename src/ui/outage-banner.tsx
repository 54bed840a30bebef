/**
 * The outage banner under the tabs, worded by the engine so it reads as `status`, `doctor` and
 * `watch` say it. Two states, told apart by more than colour:
 *
 * - recovery_tmo expired (NodeProblems.expired): the kernel fails I/O now and pods get EIO. Red,
 *   in inverse video, two lines: the decisive words first (they fit 80 columns), then the pods and
 *   how long it has been down.
 * - a portal down within its recovery time (PortalOutage.summary): one yellow line; I/O is queued.
 *
 * Absent when nothing is down; the layout then keeps its usual height.
 */

import { Box } from 'ink';
import { downWords, type ExpiredRecovery, nodeProblems, outageDownWords, plural } from '../app/domain.js';
import type { Snapshot } from '../engine/model.js';
import { Text } from './components/safe-text.js';
import { truncateEnd } from './format.js';
import { SEVERITY_LOOK, type Theme, toneColor } from './theme.js';
import { useNow } from './use-now.js';

interface BannerLine {
  text: string;
  loud: boolean;
}

/** `✗ recovery_tmo expired on 10.0.0.12:3260: the kernel fails I/O now`. */
function expiredHead(expired: readonly ExpiredRecovery[]): string {
  const where = expired.map((e) => e.portal).join(', ');
  return `${SEVERITY_LOOK.failed.symbol} recovery_tmo expired on ${where}: the kernel fails I/O now`;
}

/** `  EIO: pods db/postgres-0, shop/redis-0 · 4 sessions · down 14 min, since 15:28 UTC`. */
function expiredTail(expired: readonly ExpiredRecovery[], nowMs: number): string {
  const pods = [...new Set(expired.flatMap((e) => e.pods))];
  const sessions = expired.reduce((n, e) => n + e.sessions.length, 0);
  const since = expired
    .filter((e) => e.since !== undefined)
    .sort((a, b) => a.since!.localeCompare(b.since!))[0];
  const parts = [
    pods.length > 0
      ? `EIO: ${pods.length === 1 ? 'pod' : 'pods'} ${pods.join(', ')}`
      : 'EIO: no pod on this node uses them',
    plural(sessions, 'session'),
  ];
  if (since?.since) parts.push(downWords(since.since, nowMs, since.observed));
  return `  ${parts.join(' · ')}`;
}

/** The banner's lines (empty when nothing is down): the expired recoveries first, then the other outages. */
export function outageBannerLines(snap: Snapshot | undefined, nowMs: number): BannerLine[] {
  if (!snap || snap.outages.length + snap.sessions.length === 0) return [];
  const { expired } = nodeProblems(snap);
  const lines: BannerLine[] = [];
  if (expired.length > 0)
    lines.push({ text: expiredHead(expired), loud: true }, { text: expiredTail(expired, nowMs), loud: true });
  const gone = new Set(expired.map((e) => e.portal));
  const rest = snap.outages.filter((o) => !gone.has(o.portal));
  if (rest.length > 0)
    lines.push({
      text: `${SEVERITY_LOOK.outage.symbol} OUTAGE ${rest.map((o) => `${o.summary} · ${outageDownWords(o, nowMs)}`).join('  ·  ')}`,
      loud: false,
    });
  return lines;
}

/** Lines the banner takes (0 to 3): the body gives them up. */
export function outageBannerHeight(snap: Snapshot | undefined): number {
  if (!snap) return 0;
  const expired = snap.outages.length + snap.sessions.length > 0 ? nodeProblems(snap).expired : [];
  const gone = new Set(expired.map((e) => e.portal));
  return (expired.length > 0 ? 2 : 0) + (snap.outages.some((o) => !gone.has(o.portal)) ? 1 : 0);
}

export function OutageBanner(props: {
  snapshot: Snapshot | undefined;
  theme: Theme;
  width: number;
  clock: () => number;
}) {
  const { theme } = props;
  const down = props.snapshot !== undefined && outageBannerHeight(props.snapshot) > 0;
  // "down 14 min" moves with time: only this line re-renders for it, and only while shown.
  const now = useNow(props.clock, down, 5000);
  const lines = outageBannerLines(props.snapshot, now);
  if (lines.length === 0) return null;
  return (
    <Box flexDirection="column">
      {lines.map((l) => (
        <Text
          key={l.text.slice(0, 24)}
          wrap="truncate"
          bold
          color={l.loud ? (theme.color ? 'white' : undefined) : toneColor(theme, SEVERITY_LOOK.outage.tone)}
          backgroundColor={l.loud ? theme.bad : undefined}
          inverse={l.loud && !theme.color}
        >
          {truncateEnd(l.text.padEnd(l.loud ? props.width : 0), props.width)}
        </Text>
      ))}
    </Box>
  );
}
