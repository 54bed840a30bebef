/** The engine's journal lines (begin/end pairs per action id) as the console's one entry per action. */
import { commandOutcome, type JournalEntry as EngineJournalEntry } from '../engine/actions/journal.js';
import type { JournalTail } from '../engine/actions/journal-read.js';
import type { JournalEntry } from './backend.js';

export function journalEntries(lines: readonly EngineJournalEntry[]): JournalEntry[] {
  const byId = new Map<string, JournalEntry>();
  for (const l of lines) {
    const prev = byId.get(l.id);
    const commands = (l.steps ?? []).flatMap((st) =>
      st.commands.map((c) => ({
        argv:
          c.argv ??
          // A write reads as the plan showed it (format.ts stepAction): `echo <data> > <path>`.
          (c.write
            ? ['echo', c.write.data.trim(), '>', c.write.path]
            : c.fs
              ? [c.fs.op, c.fs.path]
              : [st.id]),
        exitCode: c.exitCode ?? null,
        // The exit name, or for a write or file step what happened (commandOutcome: `written`, `done`).
        ...(c.exitName || typeof c.exitCode !== 'number' ? { detail: c.exitName ?? commandOutcome(c) } : {}),
      })),
    );
    byId.set(l.id, {
      id: l.id,
      at: prev?.at ?? Date.parse(l.at),
      action: l.action,
      subject: l.subject,
      ok: l.phase === 'end' ? l.ok === true : (prev?.ok ?? false),
      commands: commands.length ? commands : (prev?.commands ?? []),
      ...(l.error ? { error: l.error } : prev?.error ? { error: prev.error } : {}),
      lines: [...(prev?.lines ?? []), l],
    });
  }
  return [...byId.values()].sort((a, b) => a.at - b.at);
}

/** What the console shows of the journal: its entries, and notes on what it could not show. */
interface JournalView {
  entries: JournalEntry[];
  /** One line each: a malformed line (number and why), the older entries not read. */
  notes: string[];
}

/** The notes the Journal view shows for what the read skipped (engine JournalTail → words). */
function journalNotes(tail: Pick<JournalTail, 'problems' | 'older'>): string[] {
  const notes = tail.problems.map(
    (p) => `journal line ${p.line ?? `${p.fromEnd} from the end`}: ${p.reason} — skipped`,
  );
  if (tail.older) {
    const mb = (tail.older.bytes / (1024 * 1024)).toFixed(1);
    notes.unshift(
      `older entries not shown: about ${tail.older.entries.toLocaleString('en-US')} (${mb} MiB at the journal's start); the newest are`,
    );
  }
  return notes;
}

/**
 * The console's journal reader: the file's tail read and grouped once per node state. The journal
 * view's body, its entry dialog (drawn, and measured for its scroll bound) and `y` all ask on every
 * frame or key, and each ask used to read and parse the whole file. An action's lines land by its
 * end, and the node is re-read then (a new snapshot) and the store's `actions` change: either one
 * reads it again.
 */
export function journalReader(
  store: { getState(): { snapshot?: unknown; actions: unknown } },
  read: () => JournalTail,
): () => JournalView {
  let last: { snapshot: unknown; actions: unknown; view: JournalView } | undefined;
  return () => {
    const { snapshot, actions } = store.getState();
    if (last && last.snapshot === snapshot && last.actions === actions) return last.view;
    const tail = read();
    const view = { entries: journalEntries(tail.entries), notes: journalNotes(tail) };
    last = { snapshot, actions, view };
    return view;
  };
}
