/** The `?` help dialog: keys, views, commands and actions, generated from the keymap and registries. */
import { scrollOrClose } from '../context.js';
import { defineDialog } from './define-dialog.js';
import { helpLines } from './help-lines.js';

interface HelpDialog {
  kind: 'help';
}

declare module './dialog-types.js' {
  interface DialogStates {
    help: HelpDialog;
  }
}

export const helpDialog = defineDialog('help', {
  onKey: scrollOrClose(['q', '?']),
  title: () => ' Help ',
  footer: () => '↑↓ PgUp/PgDn g/G scroll · esc closes',
  lines: (p) => helpLines(p.backend.actions, p.write, p.bodyWidth),
});
