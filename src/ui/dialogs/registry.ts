/**
 * The dialog registry: one entry per dialog file, keyed by kind. The mapped type makes a dialog
 * state without a module (or the reverse) a compile error; the dispatcher, the body and the paste
 * rule look dialogs up here and nowhere else.
 */
import type { Key } from 'ink';
import type { DispatchContext } from '../context.js';
import type { DialogModule } from './dialog.js';
import type { Dialog, DialogKind } from './dialog-types.js';
import { eventDetailDialog } from './event-detail.js';
import { helpDialog } from './help.js';
import { journalEntryDialog } from './journal-entry.js';
import { jsonDialog } from './json.js';
import { outcomeDialog } from './outcome.js';
import { planDialog } from './plan.js';
import { progressDialog } from './progress.js';
import { wizardDialog } from './wizard.js';
import { writeDialog } from './write.js';

export const DIALOGS: { readonly [K in DialogKind]: DialogModule<K> } = {
  help: helpDialog,
  plan: planDialog,
  progress: progressDialog,
  outcome: outcomeDialog,
  write: writeDialog,
  wizard: wizardDialog,
  json: jsonDialog,
  'journal-entry': journalEntryDialog,
  'event-detail': eventDetailDialog,
};

/** The module of a dialog state. */
export function dialogFor(d: Dialog): DialogModule {
  return DIALOGS[d.kind];
}

export function dialogKey(ctx: DispatchContext, d: Dialog, input: string, key: Key): void {
  dialogFor(d).onKey(ctx, d, input, key);
}
