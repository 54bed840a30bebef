/** The attach wizard as a dialog: its state, keys and pane live in src/ui/wizard/; this file registers them. */

import { WizardPane, wizardFooter } from '../wizard/wizard-pane.js';
import { type WizardState, wizardKey, wizardShown } from '../wizard/wizard-state.js';
import { defineDialog } from './define-dialog.js';

declare module './dialog-types.js' {
  interface DialogStates {
    wizard: WizardState;
  }
}

export const wizardDialog = defineDialog('wizard', {
  typing: true,
  onKey: wizardKey,
  onShown: wizardShown,
  // The wizard's listing is an action too: the same question, in the wizard.
  onStopAsked: (d) => (d.listingStop ? { ...d, listingStop: { ...d.listingStop, ask: true } } : undefined),
  title: () => ' Attach: log in to an iSCSI target ',
  footer: (p) => wizardFooter(p.d),
  Body: (p) => <WizardPane w={p.d} width={p.bodyWidth} height={p.bodyHeight} theme={p.theme} />,
});
