/**
 * The outage banner under the tabs, worded by the engine so it reads as `status`, `doctor` and
 * `watch` say it. Two states, told apart by more than colour:
 *
 * - recovery_tmo expired (NodeProblems.expired): the kernel fails I/O now and pods get EIO. Red,
 *   in inverse video: the decisive words first, then how long it has been down, the sessions and
 *   the pods that get EIO.
 * - a portal down within its recovery time (PortalOutage.summary): yellow; I/O is queued.
 *
 * Each state wraps between its parts rather than cut them (at most MAX_LINES lines): at 80 columns
 * the time of a fresh outage goes on a line of its own, with its zone.
 *
 * Absent when nothing is down; the layout then keeps its usual height.
 */

import { Box } from 'ink';
import {
  downWords,
  downWordsRoom,
  type ExpiredRecovery,
  nodeProblems,
  outageDownWords,
  plural,
} from '../app/domain.js';
import type { PortalOutage, Snapshot } from '../engine/model.js';
import { Text } from './components/safe-text.js';
import { wrapLine } from './dialogs/wrap-lines.js';
import { truncateEnd } from './format.js';
import { SEVERITY_LOOK, type Theme, toneColor } from './theme.js';
import { useNow } from './use-now.js';

interface BannerLine {
  /** The line's place in its state (`expired 1`): a wrapped line's text is no identity. */
  key: string;
  text: string;
  loud: boolean;
}

/** A piece of a banner line, kept whole on a line where it fits; `room` is the widest it grows to. */
interface Part {
  text: string;
  room?: number;
}

/** Lines one state may take; beyond, the last says how many more (each session's detail has them). */
const MAX_LINES = 4;
const INDENT = '  ';

/**
 * `lead` then the parts joined by ` · `, wrapped to `width` between parts (a part longer than a
 * line breaks between its words). A part's room, not its text, decides whether it fits, so the
 * lines (and the layout's height) stay the same while "down 14 min" grows.
 */
function packParts(lead: string, parts: readonly Part[], width: number): string[] {
  const out: string[] = [];
  let line = lead;
  let empty = true;
  for (const p of parts) {
    const need = Math.max(p.text.length, p.room ?? 0);
    if (!empty && line.length + 3 + need <= width) {
      line += ` · ${p.text}`;
      continue;
    }
    if (!empty) {
      out.push(line);
      line = INDENT;
    }
    const pieces = line.length + need <= width ? [line + p.text] : wrapLine(line + p.text, width);
    out.push(...pieces.slice(0, -1));
    line = pieces[pieces.length - 1]!;
    empty = false;
  }
  if (!empty) out.push(line);
  return out;
}

function capLines(lines: string[], width: number): string[] {
  if (lines.length <= MAX_LINES) return lines;
  const more = `${INDENT}… ${plural(lines.length - MAX_LINES + 1, 'more line')}: each session's detail says it in full`;
  return [...lines.slice(0, MAX_LINES - 1), truncateEnd(more, width)];
}

/** `✗ recovery_tmo expired on 10.0.0.12:3260: the kernel fails I/O now`, wrapped under its words. */
function expiredHead(expired: readonly ExpiredRecovery[], width: number): string[] {
  const where = expired.map((e) => e.portal).join(', ');
  return wrapLine(
    `${SEVERITY_LOOK.failed.symbol} recovery_tmo expired on ${where}: the kernel fails I/O now`,
    width,
  );
}

/** `  down 14 min, since 15:28 UTC · 4 sessions · EIO: pods db/postgres-0, shop/redis-0`. */
function expiredTail(expired: readonly ExpiredRecovery[], nowMs: number, width: number): string[] {
  const pods = [...new Set(expired.flatMap((e) => e.pods))];
  const sessions = expired.reduce((n, e) => n + e.sessions.length, 0);
  const since = expired
    .filter((e) => e.since !== undefined)
    .sort((a, b) => a.since!.localeCompare(b.since!))[0];
  // The time first: it is short and bounded; a long list of pods wraps after it.
  const parts: Part[] = [];
  if (since?.since)
    parts.push({
      text: downWords(since.since, nowMs, since.observed),
      room: downWordsRoom(since.observed === true),
    });
  parts.push(
    { text: plural(sessions, 'session') },
    {
      text:
        pods.length > 0
          ? `EIO: ${pods.length === 1 ? 'pod' : 'pods'} ${pods.join(', ')}`
          : 'EIO: no pod on this node uses them',
    },
  );
  return packParts(INDENT, parts, width);
}

/** `↯ OUTAGE portal 10.0.0.12:3260 down: 1 session FAILED · first seen down 3 min ago, at 06:17 UTC`. */
function outageLines(outages: readonly PortalOutage[], nowMs: number, width: number): string[] {
  const parts = outages.flatMap((o): Part[] => [
    { text: o.summary },
    { text: outageDownWords(o, nowMs), room: downWordsRoom(o.downObserved === true) },
  ]);
  return packParts(`${SEVERITY_LOOK.outage.symbol} OUTAGE `, parts, width);
}

/**
 * The banner's lines at `width` (empty when nothing is down): the expired recoveries first, then
 * the other outages. Nothing is cut: a line too long wraps (at most MAX_LINES a state).
 */
export function outageBannerLines(snap: Snapshot | undefined, nowMs: number, width: number): BannerLine[] {
  if (!snap || snap.outages.length + snap.sessions.length === 0) return [];
  const { expired } = nodeProblems(snap);
  const gone = new Set(expired.map((e) => e.portal));
  const rest = snap.outages.filter((o) => !gone.has(o.portal));
  const loud =
    expired.length > 0 ? [...expiredHead(expired, width), ...expiredTail(expired, nowMs, width)] : [];
  const quiet = rest.length > 0 ? outageLines(rest, nowMs, width) : [];
  return [
    ...capLines(loud, width).map((text, i) => ({ key: `expired ${i}`, text, loud: true })),
    ...capLines(quiet, width).map((text, i) => ({ key: `outage ${i}`, text, loud: false })),
  ];
}

/**
 * Lines the banner takes at `width`: the body gives them up. The clock changes the words, never
 * the count (packParts keeps each time's widest room), so any time gives the banner's height.
 */
export function outageBannerHeight(snap: Snapshot | undefined, width: number): number {
  return snap ? outageBannerLines(snap, Date.parse(snap.takenAt), width).length : 0;
}

export function OutageBanner(props: {
  snapshot: Snapshot | undefined;
  theme: Theme;
  width: number;
  clock: () => number;
}) {
  const { theme } = props;
  const down = outageBannerHeight(props.snapshot, props.width) > 0;
  // "down 14 min" moves with time: only this line re-renders for it, and only while shown.
  const now = useNow(props.clock, down, 5000);
  const lines = outageBannerLines(props.snapshot, now, props.width);
  if (lines.length === 0) return null;
  return (
    <Box flexDirection="column">
      {lines.map((l) => (
        <Text
          key={l.key}
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
