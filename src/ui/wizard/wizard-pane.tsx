/**
 * The attach wizard, one step at a time: the step bar, the step's list (targets, LUNs) and fields,
 * the listing's plan while it waits for consent or runs, the focused field's help and the status.
 * The frame around it (title, footer) is the console's dialog frame; the footer text is ours.
 */
import { Box } from 'ink';
import type { DiscoveredTarget } from '../../app/backend.js';
import type { ListedLun } from '../../engine/actions/types.js';
import { Text } from '../components/safe-text.js';
import { ScrollText } from '../components/scroll-text.js';
import { TextInput } from '../components/text-input.js';
import { planLines, progressLines, wrapLines } from '../dialogs/plan-lines.js';
import { formatBytes } from '../format.js';
import { type Theme, toneColor } from '../theme.js';
import { SECRET_MASK, stepIndex, WIZARD_STEPS } from './steps.js';
import {
  awaitingListing,
  awaitingTargets,
  stepItems,
  stepList,
  stepPlan,
  type WizardState,
} from './wizard-model.js';

const LABEL_WIDTH = 17;

/** `1 Portal › 2 Discovery › [3 Target] › …`: the active step bracketed (readable without colour). */
function stepBar(w: WizardState): string {
  const at = stepIndex(w.step);
  return [...WIZARD_STEPS.map((s) => s.title), 'Plan']
    .map((t, i) => (i === at ? `[${i + 1} ${t}]` : `${i + 1} ${t}`))
    .join(' › ');
}

function lunRow(l: ListedLun, width: number): string {
  const kind =
    l.type === undefined || l.type === 0 ? 'disk' : l.type === 12 ? 'controller' : `type ${l.type}`;
  const head = `LUN ${String(l.lun).padEnd(5)} ${kind.padEnd(10)} ${formatBytes(l.sizeBytes).padStart(6)}  ${(l.vendor ?? '-').padEnd(8)} ${(l.model ?? '-').padEnd(16)}`;
  const use = l.inUse ? ` in use: ${l.inUse}` : '';
  return `${head}${use}`.slice(0, Math.max(10, width));
}

function targetRow(t: DiscoveredTarget): string {
  return `${t.iqn}  @ ${t.portal}`;
}

/**
 * The target list's header. A portal may offer thousands of targets: when they do not fit, it says
 * which ones are on screen and how to move through all of them.
 */
function targetsHeader(count: number, start: number, rows: number): string {
  if (count <= rows) return '  Targets offered (⏎ picks one and goes on; or type the IQN below)';
  const first = Math.min(start, count - 1) + 1;
  const last = Math.min(start + rows, count);
  return `  Targets ${first}–${last} of ${count} · PgUp PgDn Home End · ⏎ picks; or type the IQN below`;
}

/** A field's value as the form shows it: a checkbox, a secret masked, else as typed. */
function shownValue(f: { kind: string }, raw: string): string {
  // Unset (Format+mount before the admin answers): neither box, so nothing reads as a default.
  if (f.kind === 'bool') return raw === 'true' ? '[x] yes' : raw === 'false' ? '[ ] no' : '[?] choose: space';
  return f.kind === 'secret' && raw ? SECRET_MASK : raw;
}

export function WizardPane(props: { w: WizardState; width: number; height: number; theme: Theme }) {
  const { w, width, height, theme } = props;
  const dim = toneColor(theme, 'dim');
  const top = (
    <Text key="bar" wrap="truncate" bold>
      {stepBar(w)}
    </Text>
  );
  // The status wraps (up to half the pane): a failure's message and hint are read whole, never cut.
  const statusLines = w.status
    ? wrapLines([{ text: `  ${w.status}` }], width - 1).slice(0, Math.max(3, Math.floor(height / 2)))
    : [{ text: ' ' }];
  const bottom = statusLines.map((l, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the status's wrapped lines, in order, never reordered
    <Text key={`status-${i}`} wrap="truncate" color={toneColor(theme, 'warn')}>
      {l.text}
    </Text>
  ));
  const room = Math.max(1, height - 2 - statusLines.length);
  const shown = stepPlan(w);
  if (shown) {
    const intro =
      w.step === 'luns'
        ? 'The target is asked for its LUNs by a temporary login that the plan undoes itself:'
        : 'Discovery with CHAP goes through a temporary discovery record that the plan deletes again:';
    // The plan dialog's own wrapping (commands break between words, nothing is cut).
    const lines = shown.steps
      ? progressLines(shown.plan, shown.steps, width - 1)
      : [
          ...wrapLines([{ text: intro, bold: true }], width - 1),
          ...planLines(shown.plan, undefined, width - 1),
        ];
    return (
      <Box flexDirection="column" height={height} overflow="hidden">
        {top}
        <ScrollText
          lines={lines}
          height={room + 1}
          width={width}
          offset={shown.steps ? 0 : w.focus}
          theme={theme}
        />
        {bottom}
      </Box>
    );
  }
  const items = stepItems(w);
  const list = stepList(w);
  const note = w.step === 'luns' && w.luns?.note && list.length > 0 ? w.luns.note : undefined;
  const hasHeader = (w.step === 'luns' || w.step === 'target') && list.length > 0;
  const fixed = (hasHeader ? 1 : 0) + (note ? 1 : 0);
  const rows = Math.max(1, room - fixed);
  const start = Math.max(0, Math.min(w.focus - Math.floor(rows / 2), items.length - rows));
  const header = !hasHeader
    ? undefined
    : w.step === 'luns'
      ? `  ${'LUN'.padEnd(9)} ${'TYPE'.padEnd(10)} ${'SIZE'.padStart(6)}  ${'VENDOR'.padEnd(8)} MODEL`
      : targetsHeader(list.length, start, rows);
  const focused = items[w.focus];
  const help = focused?.kind === 'field' ? focused.field.help : undefined;
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      {top}
      {note ? (
        <Text wrap="truncate" color={dim}>
          {`  ${note}`}
        </Text>
      ) : null}
      {header ? (
        <Text wrap="truncate" color={dim}>
          {header}
        </Text>
      ) : null}
      {items.slice(start, start + rows).map((item, j) => {
        const i = start + j;
        if (item.kind === 'pick') {
          const row = list[item.index]!;
          const isLun = !('iqn' in row);
          const text = isLun ? lunRow(row as ListedLun, width - 2) : targetRow(row as DiscoveredTarget);
          const notDisk = isLun && (row as ListedLun).type !== undefined && (row as ListedLun).type !== 0;
          return (
            <Text
              key={`pick-${item.index}`}
              wrap="truncate"
              inverse={i === w.focus}
              color={toneColor(
                theme,
                notDisk ? 'dim' : isLun && (row as ListedLun).inUse ? 'warn' : undefined,
              )}
            >{`${i === w.focus ? '›' : ' '} ${text}`}</Text>
          );
        }
        const f = item.field;
        return (
          <TextInput
            key={f.id}
            label={f.label.padEnd(LABEL_WIDTH)}
            value={shownValue(f, w.fields[f.id] ?? '')}
            focused={i === w.focus}
            width={width}
            theme={theme}
            error={w.errors[f.id]}
            empty={f.default !== undefined ? `(empty: ${f.default})` : undefined}
          />
        );
      })}
      <Text wrap="truncate" color={dim}>
        {help ? `  ${help}` : ' '}
      </Text>
      {bottom}
    </Box>
  );
}

/** The wizard's footer: the keys of the step it is on. */
export function wizardFooter(w: WizardState): string {
  const stop = w.listingStop;
  if (stop?.ask) return 'A listing is running. Stop after the current step? [y/N] (it then undoes itself)';
  if (stop?.requested)
    return stop.runToEnd
      ? 'Stopping once the discovery has deleted its record (its last step)…'
      : 'Stopping after the current step… (then the listing undoes itself)';
  if (stop) return 'listing… ctrl-c/q asks to stop between steps (it undoes itself either way)';
  if (awaitingListing(w)) return 'y list the LUNs · m type the LUN instead · ↑↓ scroll · esc back';
  if (awaitingTargets(w)) return 'y discover with CHAP · ↑↓ scroll · esc keeps the form';
  const common = '↑↓/tab move · space toggles · ctrl-l manifest';
  switch (w.step) {
    case 'portal':
      return `⏎ next · ${common} · esc cancel`;
    case 'discovery':
      return `⏎ discover · ${common} · esc back`;
    case 'target':
      return `⏎ next · ${common} · esc back`;
    case 'luns':
      return `⏎ pick/next · ↑↓ move · r list again · esc back`;
    case 'volume':
      return `⏎ plan · ${common} · esc back`;
  }
}
