/** The attach wizard's form: one line per field, inline errors, the discovered-targets picker. */
import { Box } from 'ink';
import { Text } from '../components/safe-text.js';
import { TextInput } from '../components/text-input.js';
import { type Theme, toneColor } from '../theme.js';
import { WIZARD_FIELDS, type WizardState } from './wizard-state.js';

export function WizardPane(props: { w: WizardState; width: number; height: number; theme: Theme }) {
  const { w, width, height, theme } = props;
  if (w.discovered) {
    return (
      <Box flexDirection="column" height={height} overflow="hidden">
        <Text bold wrap="truncate">{`Targets offered by ${w.fields.targetPortal} (⏎ picks, esc back)`}</Text>
        {w.discovered.slice(0, Math.max(1, height - 1)).map((t, i) => (
          <Text
            key={`${t.portal}|${t.iqn}`}
            inverse={i === w.pick}
            wrap="truncate"
          >{`${i === w.pick ? '›' : ' '} ${t.iqn}  @ ${t.portal}`}</Text>
        ))}
      </Box>
    );
  }
  // Keep the focused field visible when the form is taller than the pane.
  const room = Math.max(1, height - 2);
  const start = Math.max(0, Math.min(w.focus - Math.floor(room / 2), WIZARD_FIELDS.length - room));
  const labelWidth = 17;
  const focused = WIZARD_FIELDS[w.focus];
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      {WIZARD_FIELDS.slice(start, start + room).map((f) => {
        const i = WIZARD_FIELDS.indexOf(f);
        const value =
          f.kind === 'bool' ? (w.fields[f.id] === 'true' ? '[x] yes' : '[ ] no') : (w.fields[f.id] ?? '');
        return (
          <TextInput
            key={f.id}
            label={f.label.padEnd(labelWidth)}
            value={value}
            focused={i === w.focus}
            mask={f.kind === 'secret'}
            width={width}
            theme={theme}
            error={w.errors[f.id]}
          />
        );
      })}
      <Text wrap="truncate" color={toneColor(theme, 'dim')}>
        {focused ? `  ${focused.help}` : ' '}
      </Text>
      <Text wrap="truncate" color={toneColor(theme, 'warn')}>
        {w.status ? `  ${w.status}` : ' '}
      </Text>
    </Box>
  );
}
