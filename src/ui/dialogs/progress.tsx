/** The Progress dialog: the running plan's steps with their live status; ctrl-c/q asks to stop between steps. */
import { useStore } from 'zustand';
import type { Plan, StepProgress } from '../../engine/actions/types.js';
import { Text } from '../components/safe-text.js';
import { toneColor } from '../theme.js';
import { defineDialog } from './define-dialog.js';
import type { DialogViewProps } from './dialog.js';
import { DialogLines } from './frame.js';
import { progressLines } from './plan-lines.js';

interface ProgressDialog {
  kind: 'progress';
  plan: Plan;
  stopRequested: boolean;
  askQuit: boolean;
  /** Leave the console once the action has stopped (SIGTERM while it ran). */
  quitAfter: boolean;
  /** Stops the run between steps (never mid-command). */
  controller: AbortController;
}

declare module './dialog-types.js' {
  interface DialogStates {
    progress: ProgressDialog;
  }
}

const NO_STEPS: readonly StepProgress[] = [];

/** The steps as they run: the one progress stream, the run the app tracks in the store's `actions` for this plan. */
function ProgressSteps(p: DialogViewProps<ProgressDialog>) {
  const steps = useStore(
    p.backend.store,
    (s) => s.actions.findLast((a) => a.plan === p.d.plan)?.steps ?? NO_STEPS,
  );
  return <DialogLines lines={progressLines(p.d.plan, steps, p.bodyWidth)} offset={0} view={p} />;
}

export const progressDialog = defineDialog('progress', {
  onStopAsked: (d) => ({ ...d, askQuit: true }),
  onKey(ctx, d, input, key) {
    if (d.askQuit) {
      if (input === 'y' || input === 'Y') {
        d.controller.abort();
        ctx.ui.setState({ dialog: { ...d, stopRequested: true, askQuit: false } });
      } else if (input === 'n' || input === 'N' || key.escape)
        ctx.ui.setState({ dialog: { ...d, askQuit: false } });
      return;
    }
    if ((key.ctrl && input === 'c') || input === 'q') ctx.ui.setState({ dialog: { ...d, askQuit: true } });
  },
  title: (d) => ` Running: ${d.plan.title} — ${d.plan.subject} `,
  footer: ({ d, theme }) =>
    d.askQuit ? (
      <Text color={toneColor(theme, 'warn')} bold wrap="truncate">
        An action is running. Stop after the current step? [y/N]
      </Text>
    ) : d.stopRequested ? (
      <Text color={toneColor(theme, 'warn')} wrap="truncate">
        Stopping after the current step…
      </Text>
    ) : (
      'running… ctrl-c asks to stop between steps (never mid-command)'
    ),
  Body: ProgressSteps,
});
