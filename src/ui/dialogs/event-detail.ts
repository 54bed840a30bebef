/**
 * ⏎ on an Events row: the whole event — when (UTC, with its zone), how bad, what kind, the subject
 * and the full message, wrapped (the table cuts both at 80 columns) — and what its subject is now
 * on the node (a session, a device, a map, a volume; or gone), from the latest read.
 */
import type { ConsoleBackend, NodeEvent } from '../../app/backend.js';
import { isoTime } from '../../app/domain.js';
import type { Snapshot } from '../../engine/model.js';
import type { Line } from '../components/scroll-text.js';
import { scrollOrClose } from '../context.js';
import { defineDialog } from './define-dialog.js';
import { wrapLines } from './plan-lines.js';

interface EventDetailDialog {
  kind: 'event-detail';
  /** The event's id (the store numbers events, never reusing one). */
  id: number;
}

declare module './dialog-types.js' {
  interface DialogStates {
    'event-detail': EventDetailDialog;
  }
}

/** What the event's subject is now, from the snapshot (subjects are fingerprints or paths). */
function subjectNow(snap: Snapshot | undefined, subject: string): Line[] {
  if (!snap) return [{ text: '  the node has not been read yet', tone: 'dim' }];
  const s = snap.sessions.find((x) => x.key === subject || `session${x.sid}` === subject);
  if (s)
    return [
      {
        text: `  session ${s.sid} ${s.targetIqn} @ ${s.portal}: ${s.state}, ${s.verdict}, ${s.health}`,
        tone: s.state === 'LOGGED_IN' ? 'ok' : 'warn',
      },
    ];
  for (const x of snap.sessions)
    for (const d of x.devices)
      if (d.key === subject || d.name === subject)
        return [
          {
            text: `  ${d.name ?? d.hctl} (${d.hctl}, session ${x.sid}): ${d.state ?? '?'}`,
            tone: d.state === 'running' ? 'ok' : 'warn',
          },
        ];
  const m = snap.multipath.find((x) => x.name === subject || x.alias === subject);
  if (m)
    return [
      {
        text: `  map ${m.name} ${m.alias}: ${m.slaves.length - m.failedSlaves.length}/${m.slaves.length} paths ok`,
        tone: m.failedSlaves.length ? 'warn' : 'ok',
      },
    ];
  const v = snap.kubelet.volumes.find((x) => x.path === subject);
  if (v)
    return [
      {
        text: `  kubelet volume: ${v.mounted ? 'mounted' : 'not mounted'}, sessions ${v.sessions.join(',') || 'none'}`,
      },
    ];
  if (snap.outages.some((o) => o.portal === subject))
    return [{ text: `  portal ${subject}: still down`, tone: 'bad' }];
  return [{ text: '  not on the node any more (or not an object the console reads)', tone: 'dim' }];
}

/** The event's lines, unwrapped; undefined when it left the event log (it keeps the latest events). */
function eventDetailLines(e: NodeEvent, snap: Snapshot | undefined): Line[] {
  const at = isoTime(e.at);
  return [
    {
      text: `${e.severity} · ${e.kind}`,
      bold: true,
      tone: e.severity === 'error' ? 'bad' : e.severity === 'warn' ? 'warn' : undefined,
    },
    { text: `at ${at.slice(0, 10)} ${at.slice(11, 23)} UTC`, tone: 'dim' },
    { text: `subject ${e.subject}` },
    { text: '' },
    { text: e.message },
    { text: '' },
    { text: 'Now', bold: true },
    ...subjectNow(snap, e.subject),
  ];
}

function dialogLines(backend: ConsoleBackend, id: number, width: number): Line[] {
  const node = backend.store.getState();
  const e = node.events.find((x) => x.id === id);
  return e
    ? wrapLines(eventDetailLines(e, node.snapshot), width)
    : [{ text: `event ${id} is no longer in the event log`, tone: 'warn' }];
}

export const eventDetailDialog = defineDialog('event-detail', {
  onKey: scrollOrClose(['q']),
  title: (d) => ` Event ${d.id} `,
  footer: () => '↑↓ PgUp/PgDn g/G scroll · esc closes',
  lines: (p) => dialogLines(p.backend, p.d.id, p.bodyWidth),
});
