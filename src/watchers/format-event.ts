import { safeText } from '../engine/text/safe-text.js';
import { isoTime, utcClock } from '../engine/text/time.js';
import type { NodeEvent } from './types.js';

/** One human line: `12:04:05 UTC warn  session  session 7 LOGGED_IN→FAILED (...)` (the one time format). */
export function formatEventLine(e: NodeEvent): string {
  const time = utcClock(e.at, undefined, true);
  return `${time} ${e.severity.padEnd(5)} ${e.kind.padEnd(9)} ${safeText(e.message)}`;
}

/** The record `watch --json` prints for an event (also the console's `y` on an event row). */
export function eventRecord(e: NodeEvent): {
  id: number;
  at: string;
  kind: string;
  severity: string;
  subject: string;
  message: string;
} {
  return {
    id: e.id,
    at: isoTime(e.at),
    kind: e.kind,
    severity: e.severity,
    subject: e.subject,
    message: e.message,
  };
}

/** One NDJSON record: `{"id","at" (ISO),"kind","severity","subject","message"}`. */
export function formatEventJson(e: NodeEvent): string {
  return JSON.stringify(eventRecord(e));
}
