/**
 * `y` (k9s's yaml view): the selection as JSON, the very objects the CLI prints for it (the view's
 * `json`: `status --json`, `watch --json`, the journal file), each under its jq path when there are
 * several. Taken when `y` was pressed; long lines wrap, nothing is cut. JSON.stringify escapes every
 * control character, and the lines still go through the safe Text.
 */
import type { Line } from '../components/scroll-text.js';
import { scrollOrClose } from '../context.js';
import type { JsonPart } from '../views/view.js';
import { defineDialog } from './define-dialog.js';
import { wrapLine } from './wrap-lines.js';

interface JsonDialog {
  kind: 'json';
  /** Where it comes from ("status --json"). */
  source: string;
  parts: readonly JsonPart[];
}

declare module './dialog-types.js' {
  interface DialogStates {
    json: JsonDialog;
  }
}

/** The parts as lines wrapped to `width` (0: unwrapped); a path heads each part when there are several. */
function jsonLines(parts: readonly JsonPart[], width: number): Line[] {
  return parts.flatMap((p, i) => [
    ...(i > 0 ? [{ text: '' }] : []),
    ...(parts.length > 1 ? [{ text: `# ${p.path}`, tone: 'dim' as const }] : []),
    ...JSON.stringify(p.value, null, 2)
      .split('\n')
      .flatMap((l) => wrapLine(l, width).map((text) => ({ text }))),
  ]);
}

export const jsonDialog = defineDialog('json', {
  onKey: scrollOrClose(['q', 'y']),
  title: (d) =>
    ` JSON · ${d.source} · ${d.parts.length === 1 ? d.parts[0]!.path : `${d.parts.length} objects`} `,
  footer: () => '↑↓ PgUp/PgDn g/G scroll · esc/y closes',
  lines: (p) => jsonLines(p.d.parts, p.bodyWidth),
});
