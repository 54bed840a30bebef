/**
 * The journal feed: what a view with `feed: 'journal'` lists, read through the app layer. Apart from
 * the Journal view's module so the root frame (app.tsx) and the dispatcher read the feed without
 * naming a view.
 */
import type { ConsoleBackend, JournalEntry } from '../app/backend.js';

const EMPTY_JOURNAL: JournalEntry[] = [];

/** The journal as the console shows it; an unreadable state dir shows as empty, never as a crash. */
export function safeJournal(backend: ConsoleBackend): JournalEntry[] {
  try {
    return backend.readJournal();
  } catch {
    return EMPTY_JOURNAL;
  }
}
