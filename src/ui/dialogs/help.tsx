/** The `?` help dialog: keys, views, commands and actions, generated from the keymap and registries. */

import { Text } from '../components/safe-text.js';
import { closeDialog, scroll } from '../context.js';
import { toneColor } from '../theme.js';
import type { DialogModule } from './dialog.js';
import { LinesDialog } from './frame.js';
import { helpLines } from './help-lines.js';

export interface HelpDialog {
  kind: 'help';
}

declare module './dialog-types.js' {
  interface DialogStates {
    help: HelpDialog;
  }
}

export const helpDialog: DialogModule<'help'> = {
  kind: 'help',
  typing: false,
  onKey(ctx, _d, input, key) {
    if (key.escape || key.return || input === 'q' || input === '?') closeDialog(ctx);
    else scroll(ctx, key);
  },
  render: (p) => (
    <LinesDialog
      title=" Help "
      tone="accent"
      view={p}
      footer={<Text color={toneColor(p.theme, 'dim')}>↑↓ scroll · esc closes</Text>}
      lines={helpLines(p.backend.actions, p.write, p.bodyWidth)}
      offset={p.scroll}
    />
  ),
  lineCount: (p) => helpLines(p.backend.actions, p.write, p.bodyWidth).length,
};
