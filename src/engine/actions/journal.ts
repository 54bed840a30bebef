/**
 * The journal: append-only JSON lines at `<stateDir>/journal.jsonl` (one write(2) per line, 0600):
 * who, when, which host, the plan (already masked), each step's argv (masked), exit code, duration,
 * and fingerprints before/after. A final mask pass over each line keeps a CHAP value out even if
 * some command echoed it.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { type Host, maskSecrets } from '../host/host.js';
import type { Plan } from './types.js';

export const JOURNAL_FILE = 'journal.jsonl';

export interface JournalCommand {
  argv?: string[];
  write?: { path: string; data: string };
  fs?: { op: string; path: string };
  exitCode?: number | null;
  exitName?: string;
  durationMs?: number;
  stderr?: string;
}

export interface JournalStep {
  id: string;
  status: string;
  detail?: string;
  durationMs?: number;
  commands: JournalCommand[];
}

export interface JournalEntry {
  id: string;
  phase: 'begin' | 'end';
  at: string;
  who: { uid?: number; user?: string; sudoUser?: string };
  host: string;
  hostKind: string;
  action: string;
  subject: string;
  plan?: Plan;
  steps?: JournalStep[];
  ok?: boolean;
  error?: string;
  forced?: boolean;
  before?: string[];
  after?: string[];
}

export function who(): JournalEntry['who'] {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER;
  }
  return {
    ...(process.getuid ? { uid: process.getuid() } : {}),
    ...(user ? { user } : {}),
    ...(process.env.SUDO_USER ? { sudoUser: process.env.SUDO_USER } : {}),
  };
}

export function newJournalId(): string {
  return randomUUID();
}

/** Appends one entry. Throws HostIoError when the journal cannot be written (apply then refuses to run). */
export function appendJournal(
  host: Host,
  stateDir: string,
  entry: JournalEntry,
  secrets: readonly string[] = [],
): void {
  host.mkdir(stateDir, 0o700);
  host.appendText(`${stateDir}/${JOURNAL_FILE}`, `${maskSecrets(JSON.stringify(entry), secrets)}\n`, 0o600);
}

/** Reads the journal back (tests, `journal` views); unparsable lines are skipped. */
export function readJournal(host: Host, stateDir: string): JournalEntry[] {
  const text = host.readText(`${stateDir}/${JOURNAL_FILE}`) ?? '';
  const out: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as JournalEntry);
    } catch {
      // a torn line from a crash: skip
    }
  }
  return out;
}
