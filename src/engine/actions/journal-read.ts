/**
 * Reading the journal back, line by line, as untrusted input: every line is checked against the
 * entry's schema (a bad `at`, an object where an id belongs, `steps` of the wrong shape are that
 * line's problem, never the whole journal's), keys that could reach a prototype (`__proto__`,
 * `constructor`, `prototype`) are dropped while parsing, and the parsed objects are the schema's own
 * plain copies. A large journal is read from its end in chunks (Host.readChunk), up to a number of
 * entries and bytes, so a million-entry journal costs what its tail costs; what is left unread is
 * counted (bytes, and entries estimated from the tail's average line).
 */
import { z } from 'zod';
import type { Host } from '../host/host.js';
import type { JournalEntry, JournalStep } from './journal.js';
import { JOURNAL_FILE } from './state-dir.js';

const MiB = 1024 * 1024;
/** The newest entries the console shows (begin and end lines of ~1,000 actions). */
export const JOURNAL_TAIL_ENTRIES = 2000;
/** The most of the journal read at once (its tail); one line longer than this is not read at all. */
export const JOURNAL_TAIL_BYTES = 16 * MiB;
const CHUNK = 1 * MiB;

const str = z.string();
const strs = z.array(str);
const command = z.object({
  argv: strs.optional(),
  write: z.object({ path: str, data: str }).optional(),
  fs: z.object({ op: str, path: str }).optional(),
  exitCode: z.number().int().nullable().optional(),
  exitName: str.optional(),
  durationMs: z.number().optional(),
  stderr: str.optional(),
});
const step = z.object({
  id: str,
  status: str,
  detail: str.optional(),
  durationMs: z.number().optional(),
  commands: z.array(command),
  guard: strs.optional(),
});
/** What the plan text (format.ts planLines) reads of a plan; other fields are kept as they are. */
const planStep = z.looseObject({
  id: str,
  why: str.optional(),
  argv: strs.optional(),
  write: z.looseObject({ path: str, data: str }).optional(),
  preconditions: z.array(z.looseObject({ text: str })).optional(),
});
const refusal = z.looseObject({ id: str, reason: str, hint: str.optional(), overridable: z.boolean() });
const blast = z.object({
  sessions: strs,
  devices: strs,
  maps: strs,
  mounts: strs,
  kubeletVolumes: strs,
  pods: strs,
  nodeRecords: strs,
});
const plan = z.looseObject({
  action: str,
  title: str,
  subject: str,
  steps: z.array(planStep),
  refusals: z.array(refusal),
  warnings: strs,
  blastRadius: blast,
  risk: str,
  confirm: str,
  confirmToken: str.optional(),
  undo: strs,
  before: strs,
});
const entry = z.object({
  id: str.min(1),
  phase: z.enum(['begin', 'end']),
  at: str.refine((s) => Number.isFinite(Date.parse(s)), 'not a time'),
  who: z.object({ uid: z.number().optional(), user: str.optional(), sudoUser: str.optional() }),
  host: str,
  hostKind: str,
  action: str,
  subject: str,
  plan: plan.optional(),
  steps: z.array(step).optional(),
  ok: z.boolean().optional(),
  error: str.optional(),
  forced: z.boolean().optional(),
  overrides: strs.optional(),
  before: strs.optional(),
  after: strs.optional(),
  notes: strs.optional(),
});

/**
 * Every field the journal writes is read back (zod drops unknown keys): a field added to JournalEntry
 * or JournalStep without its line above fails to compile here.
 */
type Unread<T, S> = Exclude<keyof T, keyof S>;
type EveryFieldRead = [
  Unread<JournalEntry, z.infer<typeof entry>>,
  Unread<JournalStep, z.infer<typeof step>>,
] extends [never, never]
  ? true
  : never;
true satisfies EveryFieldRead;

/** Keys a parsed object must never carry: they could reach (or stand for) a prototype. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** One journal line as an entry, or why it is not one. */
function parseJournalLine(line: string): { entry: JournalEntry } | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line, (k, v) => (UNSAFE_KEYS.has(k) ? undefined : v));
  } catch {
    return { problem: 'not JSON (a torn or foreign line)' };
  }
  const r = entry.safeParse(raw);
  if (r.success) return { entry: r.data as JournalEntry };
  const issue = r.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the line';
  return { problem: `not a journal entry: ${where}: ${issue?.message ?? 'invalid'}` };
}

/** A line that is not an entry: its number (from the file's start when known) and why. */
interface JournalProblem {
  /** 1-based line number, when the whole file was read. */
  line?: number;
  /** 1-based position counted from the journal's end (always known). */
  fromEnd: number;
  reason: string;
}

export interface JournalTail {
  /** Oldest first. */
  entries: JournalEntry[];
  problems: JournalProblem[];
  /** What was not read (older than what is shown): bytes, and about how many entries. */
  older?: { bytes: number; entries: number };
}

const EMPTY: JournalTail = { entries: [], problems: [] };

/** Reads the journal's newest lines, bounded in entries and bytes (see the file comment). */
export function readJournalTail(
  host: Host,
  stateDir: string,
  limits: { entries?: number; bytes?: number } = {},
): JournalTail {
  const path = `${stateDir}/${JOURNAL_FILE}`;
  if (host.entryInfo(path)?.kind !== 'file') return EMPTY;
  const maxEntries = limits.entries ?? JOURNAL_TAIL_ENTRIES;
  const maxBytes = limits.bytes ?? JOURNAL_TAIL_BYTES;
  const lines: string[] = []; // newest first
  let carry = Buffer.alloc(0); // the start of a line whose beginning is in an older chunk
  let pos: number | undefined;
  let read = 0;
  let tooLong = false;
  for (;;) {
    const size = pos ?? host.readChunk?.(path, 0, 0)?.size;
    if (size === undefined) return host.readChunk ? EMPTY : wholeFile(host, path);
    pos ??= size;
    if (pos === 0 || lines.length >= maxEntries || read >= maxBytes) break;
    const start = Math.max(0, pos - CHUNK);
    const got = host.readChunk!(path, start, pos - start);
    if (!got) break;
    read += got.data.length;
    pos = start;
    const buf = Buffer.concat([got.data, carry]);
    let end = buf.length;
    for (let i = buf.length - 1; i >= 0; i--) {
      if (buf[i] !== 0x0a) continue;
      if (i + 1 < end) lines.push(buf.subarray(i + 1, end).toString('utf8'));
      end = i;
    }
    carry = Buffer.from(buf.subarray(0, end));
    if (carry.length > maxBytes) {
      // One line longer than everything the console reads at once: not an entry anyone wrote.
      tooLong = true;
      carry = Buffer.alloc(0);
    }
  }
  if (pos === 0 && carry.length > 0) lines.push(carry.toString('utf8'));
  else if (carry.length > 0) pos += carry.length; // an unfinished oldest line: counted as unread
  return collect(lines, maxEntries, pos ?? 0, read, tooLong);
}

/** The newest-first lines as entries (oldest first), problems and what was left unread. */
function collect(
  newestFirst: readonly string[],
  maxEntries: number,
  unreadBytes: number,
  readBytes: number,
  tooLong: boolean,
): JournalTail {
  const shown = newestFirst.filter((l) => l.trim() !== '');
  const kept = shown.slice(0, maxEntries);
  const droppedBytes = shown.slice(maxEntries).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  const whole = unreadBytes === 0 && droppedBytes === 0;
  const total = newestFirst.length;
  const entries: JournalEntry[] = [];
  const problems: JournalProblem[] = [];
  // Positions from the end count every line (blank ones too), so they match the file.
  let fromEnd = 0;
  for (const l of newestFirst) {
    fromEnd++;
    if (l.trim() === '') continue;
    if (entries.length + problems.length >= maxEntries) break;
    const r = parseJournalLine(l);
    if ('entry' in r) entries.push(r.entry);
    else problems.push({ fromEnd, reason: r.problem, ...(whole ? { line: total - fromEnd + 1 } : {}) });
  }
  if (tooLong)
    problems.push({
      fromEnd: fromEnd + 1,
      reason: `a line longer than ${JOURNAL_TAIL_BYTES} bytes: not read`,
    });
  entries.reverse();
  problems.reverse();
  const older = unreadBytes + droppedBytes;
  if (older === 0) return { entries, problems };
  const avg = Math.max(1, (readBytes - droppedBytes) / Math.max(1, kept.length));
  return {
    entries,
    problems,
    older: { bytes: older, entries: Math.max(1, Math.round(older / avg)) },
  };
}

/** A Host without chunked reads (none in this repository): the whole file, within its read cap. */
function wholeFile(host: Host, path: string): JournalTail {
  const text = host.readText(path);
  if (text === undefined) return EMPTY;
  const lines = text.split('\n').reverse();
  return collect(lines, JOURNAL_TAIL_ENTRIES, 0, Buffer.byteLength(text), false);
}

/**
 * Reads the whole journal back (tests, tools), within the Host's journal read cap; the console
 * reads its tail instead (journal-read.ts readJournalTail). A line that is not an entry (a torn
 * write, or one the schema refuses) is skipped and reported through `onUnparseable` with its
 * 1-based line number. A journal that is a symlink is not read.
 */
export function readJournal(
  host: Host,
  stateDir: string,
  onUnparseable?: (lineNo: number, text: string) => void,
): JournalEntry[] {
  const path = `${stateDir}/${JOURNAL_FILE}`;
  if (host.entryInfo(path)?.kind !== 'file') return [];
  const text = host.readText(path) ?? '';
  const out: JournalEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    const r = parseJournalLine(line);
    if ('entry' in r) out.push(r.entry);
    else onUnparseable?.(i + 1, line);
  }
  return out;
}
