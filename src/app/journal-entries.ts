/** The engine's journal lines (begin/end pairs per action id) as the console's one entry per action. */
import type { JournalEntry as EngineJournalEntry } from '../engine/actions/journal.js';
import type { JournalEntry } from './backend.js';

export function journalEntries(lines: readonly EngineJournalEntry[]): JournalEntry[] {
  const byId = new Map<string, JournalEntry>();
  for (const l of lines) {
    const prev = byId.get(l.id);
    const commands = (l.steps ?? []).flatMap((st) =>
      st.commands.map((c) => ({
        argv:
          c.argv ??
          (c.write ? ['write', c.write.path, c.write.data.trim()] : c.fs ? [c.fs.op, c.fs.path] : [st.id]),
        exitCode: c.exitCode ?? null,
        ...(c.exitName ? { detail: c.exitName } : {}),
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
