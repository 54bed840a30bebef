/** `:write`: switching to WRITE mode, confirmed by typing the node's hostname. */
import { Box } from 'ink';
import { Text } from '../components/safe-text.js';
import { editText, TextInput } from '../components/text-input.js';
import { closeDialog, flash } from '../context.js';
import { toneColor } from '../theme.js';
import { defineDialog } from './define-dialog.js';

interface WriteDialog {
  kind: 'write';
  typed: string;
}

declare module './dialog-types.js' {
  interface DialogStates {
    write: WriteDialog;
  }
}

export const writeDialog = defineDialog('write', {
  typing: true,
  onKey(ctx, d, input, key) {
    if (key.escape) closeDialog(ctx);
    else if (key.return) {
      if (d.typed === ctx.hostname) {
        closeDialog(ctx, { write: true });
        flash(ctx, `WRITE mode on ${ctx.hostname}: destructive actions are enabled`, 'warn');
      } else
        ctx.ui.setState({
          dialog: { ...d, typed: '' },
          flash: { text: `type ${ctx.hostname} exactly`, tone: 'bad' },
        });
    } else {
      const next = editText(d.typed, input, key);
      if (next !== undefined) ctx.ui.setState({ dialog: { ...d, typed: next } });
    }
  },
  title: () => ' Enable WRITE mode ',
  tone: () => 'warn',
  footer: (p) => (
    <TextInput
      label={`Type the hostname ${p.hostname} to confirm:`}
      value={p.d.typed}
      focused
      width={p.bodyWidth}
      theme={p.theme}
    />
  ),
  Body: (p) => (
    <Box flexDirection="column">
      <Text wrap="truncate">{`Destructive actions (logout, delete device, flush, cleanup...) will be allowed on ${p.hostname}.`}</Text>
      <Text wrap="truncate" color={toneColor(p.theme, 'dim')}>
        Each one still shows its plan and asks again. :readonly switches back.
      </Text>
    </Box>
  ),
});
