/**
 * The journal: append-only JSON lines at `<stateDir>/journal.jsonl` (one write(2) per line, 0600):
 * who, when, which host, the plan (already masked), each step's argv (masked), exit code, duration,
 * and fingerprints before/after. A final mask pass over each line keeps a CHAP value out even if
 * some command echoed it. Every line is fsync'ed before appendJournal returns (Host.appendLine), so
 * a `begin` is on disk before the first step it announces runs, and every line starts on a fresh
 * line: a torn last line (a crash or a full disk mid-write) is closed first, never merged with the
 * next entry, and readJournal reports it as unparseable.
 */
import { randomUUID } from 'node:crypto';
import { type Host, maskSecrets } from '../host/host.js';
import { localUser } from '../host/local-process.js';
import { JOURNAL_FILE } from './state-dir.js';
import type { Plan } from './types.js';

export interface JournalCommand {
  argv?: string[];
  write?: { path: string; data: string };
  fs?: { op: string; path: string };
  exitCode?: number | null;
  exitName?: string;
  durationMs?: number;
  stderr?: string;
}

/**
 * How a journaled command ended, in one short phrase: `exit 0`, `exit 21 ISCSI_ERR_NO_OBJS_FOUND`,
 * `TIMEOUT`, `written` (a sysfs or file write), `done` (unlink, rmdir). Never repeats itself: a
 * plain command's exit name is its `exit N` (iscsiadm.ts), so it is said once.
 */
export function commandOutcome(c: Pick<JournalCommand, 'exitCode' | 'exitName' | 'write' | 'fs'>): string {
  if (typeof c.exitCode === 'number') {
    const plain = `exit ${c.exitCode}`;
    return c.exitName && c.exitName !== plain ? `${plain} ${c.exitName}` : plain;
  }
  if (c.exitName) return c.exitName;
  if (c.write) return 'written';
  if (c.fs) return 'done';
  return 'no exit code';
}

export interface JournalStep {
  id: string;
  status: string;
  detail?: string;
  durationMs?: number;
  commands: JournalCommand[];
  /** The executor's guard verdicts on the step's effects (guard/): `… ok`, or the refusal. */
  guard?: string[];
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
  /** The objects the admin's override named (consent.ts overrideObjects). */
  overrides?: string[];
  before?: string[];
  after?: string[];
  /** What apply found and did about the state dir: a lock taken over, a torn journal line closed. */
  notes?: string[];
}

/** Who runs this apply (host/local-process.ts). */
export function who(): JournalEntry['who'] {
  return localUser();
}

export function newJournalId(): string {
  return randomUUID();
}

/**
 * Appends one entry, on disk when this returns. Returns true when the journal's last line was torn
 * and had to be closed first. Throws HostIoError when the journal cannot be written (apply then
 * refuses to run; openStateDir has already refused a symlinked or foreign journal).
 */
export function appendJournal(
  host: Host,
  stateDir: string,
  entry: JournalEntry,
  secrets: readonly string[] = [],
): boolean {
  return host.appendLine(`${stateDir}/${JOURNAL_FILE}`, maskSecrets(JSON.stringify(entry), secrets), 0o600);
}
