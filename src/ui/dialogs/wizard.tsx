/** The attach wizard as a dialog: its state, keys and pane live in src/ui/wizard/; this file registers them. */

import { Text } from '../components/safe-text.js';
import { closeDialog } from '../context.js';
import { toneColor } from '../theme.js';
import { WizardPane, wizardFooter } from '../wizard/wizard-pane.js';
import { type WizardState, wizardKey } from '../wizard/wizard-state.js';
import type { DialogModule } from './dialog.js';
import { DialogFrame } from './frame.js';

declare module './dialog-types.js' {
  interface DialogStates {
    wizard: WizardState;
  }
}

export const wizardDialog: DialogModule<'wizard'> = {
  kind: 'wizard',
  typing: true,
  onKey(ctx, d, input, key) {
    if (key.ctrl && input === 'c') {
      closeDialog(ctx);
      return;
    }
    wizardKey(ctx, d, input, key);
  },
  render: (p) => (
    <DialogFrame
      title=" Attach: log in to an iSCSI target "
      tone="accent"
      view={p}
      footer={
        <Text color={toneColor(p.theme, 'dim')} wrap="truncate">
          {wizardFooter(p.d)}
        </Text>
      }
    >
      <WizardPane w={p.d} width={p.bodyWidth} height={p.bodyHeight} theme={p.theme} />
    </DialogFrame>
  ),
};
