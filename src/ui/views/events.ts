/** The Events view (6): the watchers' live event log; the cursor follows new events from the last row. */
import type { NodeEvent } from '../../app/backend.js';
import { eventRecord, fingerprintText, utcClock } from '../../app/domain.js';
import type { Column, TableRow } from '../components/table-types.js';
import type { Tone } from '../theme.js';
import { defineView } from './view.js';

const EVENT_COLUMNS: readonly Column[] = [
  { id: 'at', title: 'TIME', width: 12 },
  { id: 'severity', title: 'SEV', width: 7 },
  { id: 'kind', title: 'KIND', width: 9 },
  { id: 'subject', title: 'SUBJECT', width: 24, grow: 1, middle: true, hideBelow: 100 },
  // What happened grows first; the subject only to its content after it.
  { id: 'message', title: 'MESSAGE', width: 20, grow: 3 },
];

const SEVERITY_LOOK: Record<NodeEvent['severity'], { text: string; tone: Tone }> = {
  info: { text: '· info', tone: 'dim' },
  warn: { text: '! warn', tone: 'warn' },
  error: { text: '✗ error', tone: 'bad' },
};

export function eventRow(e: NodeEvent): TableRow {
  const sev = SEVERITY_LOOK[e.severity];
  // A session or LUN is keyed target|portal|iface[|lun]: shown as "target @ portal (iface) LUN n".
  const subject = fingerprintText(e.subject);
  return {
    key: String(e.id),
    cells: [utcClock(e.at, undefined, true), sev.text, e.kind, subject, e.message],
    tones: ['dim', sev.tone, undefined, 'dim', undefined],
    fields: { kind: e.kind, severity: e.severity, subject, message: e.message },
    sort: { at: e.id, severity: e.severity, kind: e.kind },
  };
}

export const eventsView = defineView({
  id: 'events',
  columns: EVENT_COLUMNS,
  feed: 'events',
  rows: ({ events }) => events.map(eventRow),
  followTail: true,
  // ⏎ and d open the whole event (time with its zone, full message, its subject now).
  open: (row) => ({ dialog: { kind: 'event-detail', id: Number(row.key) } }),
  json: (row, { events }) =>
    events
      .filter((e) => String(e.id) === row.key)
      .map((e) => ({ path: `event ${e.id}`, value: eventRecord(e) })),
});
