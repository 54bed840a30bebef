/** The engine's journal lines (begin/end pairs per action id) as the console's one entry per action. */
import { commandOutcome, type JournalEntry as EngineJournalEntry } from '../engine/actions/journal.js';
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
