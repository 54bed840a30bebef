/**
 * ⏎ on a Journal row: the whole entry as the journal file holds it — who ran what, when and where,
 * how it ended, the plan as it was shown (the engine's plan text), and each step with its exact
 * commands, exit codes and stderr. Everything in the journal is masked by the engine before it is
 * written (engine/actions/journal.ts), so nothing here can show a CHAP value. Lines wrap to the
 * dialog's width (commands between their words), nothing is cut.
 */
import type { EngineJournalLine, JournalEntry } from '../../app/backend.js';
import { commandOutcome, commandText, planLines } from '../../app/domain.js';
import type { Line } from '../components/scroll-text.js';
import { scrollOrClose } from '../context.js';
import { safeJournal } from '../journal-feed.js';
import type { Tone } from '../theme.js';
import { commandLine } from '../views/journal.js';
import { defineDialog } from './define-dialog.js';
import { wrapLines } from './plan-lines.js';

interface JournalEntryDialog {
  kind: 'journal-entry';
  /** The journal id (one action: its begin and end lines). */
  id: string;
}

declare module './dialog-types.js' {
  interface DialogStates {
    'journal-entry': JournalEntryDialog;
  }
}

const STEP_LOOK: Record<string, { symbol: string; tone: Tone }> = {
  done: { symbol: '✓', tone: 'ok' },
  failed: { symbol: '✗', tone: 'bad' },
  skipped: { symbol: '↷', tone: 'dim' },
};

function whoText(w: EngineJournalLine['who']): string {
  const user = w.user ?? (w.uid !== undefined ? `uid ${w.uid}` : 'unknown user');
  return w.sudoUser ? `${user} (sudo from ${w.sudoUser})` : user;
}

/** The entry as the dialog's lines, unwrapped. */
function journalEntryLines(entry: JournalEntry): Line[] {
  const begin = entry.lines?.find((l) => l.phase === 'begin');
  const end = entry.lines?.find((l) => l.phase === 'end');
  const lines: Line[] = [
    ...headerLines(entry, begin, end),
    ...planSection(begin?.plan ?? end?.plan),
    ...stepsSection(end?.steps ?? begin?.steps ?? []),
    ...objectsSection(begin, end),
  ];
  // Entries written before the journal kept its lines (or a fake backend): the commands alone.
  if (!entry.lines?.length) {
    for (const c of entry.commands) lines.push({ text: commandLine(c) });
  }
  return lines;
}

type EntryLine = NonNullable<JournalEntry['lines']>[number];

/** Title, when, by whom and where, how it ended, the override, the lock notes. */
function headerLines(entry: JournalEntry, begin: EntryLine | undefined, end: EntryLine | undefined): Line[] {
  const first = begin ?? end;
  const lines: Line[] = [{ text: `${entry.action}: ${entry.subject}`, bold: true }];
  if (first) {
    lines.push({
      text: `${first.at} · by ${whoText(first.who)} · on ${first.host} (${first.hostKind}) · id ${entry.id}`,
      tone: 'dim',
    });
  }
  if (!end)
    lines.push({ text: '… no end recorded: still running, or the console was killed mid-run', tone: 'warn' });
  else if (end.ok) lines.push({ text: '✓ succeeded', tone: 'ok', bold: true });
  else lines.push({ text: `✗ failed${end.error ? `: ${end.error}` : ''}`, tone: 'bad', bold: true });
  if (end?.forced || begin?.forced)
    lines.push({ text: '! run with the override act (refusals lifted)', tone: 'warn' });
  for (const n of [...(begin?.notes ?? []), ...(end?.notes ?? [])])
    lines.push({ text: `note: ${n}`, tone: 'dim' });
  return lines;
}

/** The plan as it was shown before it ran. */
function planSection(plan: EntryLine['plan']): Line[] {
  if (!plan) return [];
  const lines: Line[] = [{ text: '' }, { text: 'Plan, as shown before it ran:', bold: true }];
  let text: ReturnType<typeof planLines> = [];
  try {
    text = planLines(plan);
  } catch {
    // A journal line passed the schema with a plan the text cannot be made of: say so, do not crash.
    text = [{ text: '(the plan in this journal line cannot be shown)', tone: 'warn' }];
  }
  for (const l of text)
    lines.push({
      text: `  ${l.text}`,
      ...(l.tone ? { tone: l.tone } : {}),
      ...(l.command ? { command: true } : {}),
    });
  return lines;
}

type EntryStep = NonNullable<EntryLine['steps']>[number];

/** Each step run: its outcome, its detail unless the command says it, its commands and stderr. */
function stepsSection(steps: readonly EntryStep[]): Line[] {
  const lines: Line[] = [{ text: '' }, { text: `Steps run (${steps.length}):`, bold: true }];
  if (steps.length === 0) lines.push({ text: '  none (it stopped before the first step)', tone: 'dim' });
  for (const st of steps) {
    const look = STEP_LOOK[st.status] ?? { symbol: '·', tone: 'dim' as const };
    const dur = st.durationMs !== undefined ? ` (${st.durationMs} ms)` : '';
    lines.push({ text: `  ${look.symbol} ${st.id} ${st.status}${dur}`, tone: look.tone });
    // A step's detail that only repeats its command's exit is said once, on the command.
    const repeats = st.detail && st.commands.some((c) => commandOutcome(c).startsWith(st.detail!));
    if (st.detail && !repeats)
      lines.push({ text: `      ${st.detail}`, tone: look.tone === 'bad' ? 'bad' : 'dim' });
    for (const c of st.commands) {
      lines.push({ text: `    ${commandText(c)}`, ...(c.argv || c.write ? { command: true } : {}) });
      const took = c.durationMs !== undefined ? ` in ${c.durationMs} ms` : '';
      const ok = c.exitCode === 0 || (c.exitCode === undefined && !c.exitName);
      lines.push({ text: `      → ${commandOutcome(c)}${took}`, tone: ok ? 'ok' : 'warn' });
      for (const e of (c.stderr ?? '').split('\n').filter((x) => x.trim()))
        lines.push({ text: `      stderr: ${e}`, tone: 'dim' });
    }
  }
  return lines;
}

/** The plan's objects by fingerprint when it began, and which of them were still there at its end. */
function objectsSection(begin: EntryLine | undefined, end: EntryLine | undefined): Line[] {
  const before = begin?.before ?? [];
  if (!before.length && !end?.after?.length) return [];
  const lines: Line[] = [{ text: '' }, { text: 'Objects (by fingerprint):', bold: true }];
  lines.push({ text: `  before: ${before.join(', ') || 'none'}`, tone: 'dim' });
  if (end) lines.push({ text: `  after:  ${end.after?.join(', ') || 'none left'}`, tone: 'dim' });
  return lines;
}

/** The entry's lines wrapped to the dialog, or why there is none (the journal was rotated meanwhile). */
function dialogLines(backend: Parameters<typeof safeJournal>[0], id: string, width: number): Line[] {
  const e = safeJournal(backend).find((j) => j.id === id);
  return e
    ? wrapLines(journalEntryLines(e), width)
    : [{ text: `journal entry ${id} is no longer in the journal`, tone: 'warn' }];
}

export const journalEntryDialog = defineDialog('journal-entry', {
  onKey: scrollOrClose(['q']),
  title: (d) => ` Journal entry ${d.id.slice(0, 8)} `,
  footer: () => '↑↓ PgUp/PgDn g/G scroll · esc closes',
  lines: (p) => dialogLines(p.backend, p.d.id, p.bodyWidth),
});
