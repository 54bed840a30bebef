/**
 * The Journal view (7): every action run from here or the CLI, newest last; the selected entry's
 * exact commands and exit codes show under the table, and ⏎ opens the whole entry (journal-entry.tsx).
 */
import { Box } from 'ink';
import type { ConsoleBackend, JournalEntry } from '../../app/backend.js';
import { commandOutcome, utcStamp } from '../../app/domain.js';
import { ScrollText } from '../components/scroll-text.js';
import type { Column, TableRow } from '../components/table-types.js';
import { safeJournal } from '../journal-feed.js';
import { TableBody } from './table-body.js';
import { defineView, type ViewBodyProps } from './view.js';

const JOURNAL_COLUMNS: readonly Column[] = [
  { id: 'at', title: 'TIME', width: 23 },
  { id: 'action', title: 'ACTION', width: 13 },
  { id: 'result', title: 'RESULT', width: 8 },
  { id: 'cmds', title: 'CMDS', width: 4, align: 'right' },
  { id: 'subject', title: 'SUBJECT', width: 20, grow: 3, middle: true },
];

export function journalRow(j: JournalEntry): TableRow {
  return {
    key: j.id,
    cells: [utcStamp(j.at), j.action, j.ok ? '✓ ok' : '✗ failed', String(j.commands.length), j.subject],
    tones: ['dim', undefined, j.ok ? 'ok' : 'bad'],
    fields: { action: j.action, subject: j.subject, result: j.ok ? 'ok' : 'failed' },
    sort: { at: j.at, action: j.action },
  };
}

/** What the journal read could not show (malformed lines, older entries); never a crash. */
function safeNotes(backend: ConsoleBackend): string[] {
  try {
    return backend.journalNotes();
  } catch {
    return [];
  }
}

/** A journaled command as one line: what ran and how it ended (the engine's commandOutcome words). */
export function commandLine(c: JournalEntry['commands'][number]): string {
  return `  $ ${c.argv.join(' ')}  → ${commandOutcome({ exitCode: c.exitCode, ...(c.detail ? { exitName: c.detail } : {}) })}`;
}

function JournalBody(props: ViewBodyProps) {
  const { height, width, theme } = props;
  const entry = props.rows[props.idx];
  const j = entry ? safeJournal(props.backend).find((x) => x.id === entry.key) : undefined;
  const tableHeight = Math.max(3, Math.floor(height / 2));
  // Each line the read skipped, and the older entries it did not read, first: a problem per line.
  const notes = safeNotes(props.backend).map((text) => ({ text: `! ${text}`, tone: 'warn' as const }));
  const detail = j
    ? [
        { text: `${j.action}: ${j.subject}`, bold: true },
        ...j.commands.map((c) => ({
          text: commandLine(c),
          tone: c.exitCode === 0 ? ('ok' as const) : ('warn' as const),
        })),
        ...(j.error ? [{ text: `  ✗ ${j.error}`, tone: 'bad' as const }] : []),
      ]
    : notes.length > 0
      ? []
      : [
          {
            text: 'No actions journaled yet: every action run from here or the CLI lands in the journal.',
            tone: 'dim' as const,
          },
        ];
  const lines = [...notes, ...detail];
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <TableBody
        {...props}
        height={tableHeight}
        viewId="journal"
        empty={
          notes.length > 0 ? 'no readable entries: the journal lines below were skipped' : 'journal is empty'
        }
      />
      <ScrollText lines={lines} height={height - tableHeight} width={width} offset={0} theme={theme} />
    </Box>
  );
}

export const journalView = defineView({
  id: 'journal',
  columns: JOURNAL_COLUMNS,
  feed: 'journal',
  rows: ({ journal }) => journal.map(journalRow),
  // ⏎ and d open the whole entry (plan, steps, commands, outcome); y shows its journal lines.
  open: (row) => ({ dialog: { kind: 'journal-entry', id: row.key } }),
  json: (row, { journal }) =>
    (journal.find((j) => j.id === row.key)?.lines ?? []).map((l) => ({
      path: `journal.jsonl (${l.phase})`,
      value: l,
    })),
  Body: JournalBody,
});
