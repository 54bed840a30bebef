/** Renders the console over any backend (a live one on the simulator, say) without colours. */
import { ConsoleApp } from '../../../src/ui/app.js';
import type { ConsoleBackend } from '../../../src/ui/backend.js';
import { MONO_THEME } from '../../../src/ui/theme.js';
import { createUiStore } from '../../../src/ui/view-store.js';
import { renderTui, type Tui } from './render-tui.js';

export function renderConsole(
  backend: ConsoleBackend,
  hostname: string,
  size: { columns: number; rows: number },
  write = false,
): Tui {
  const ui = createUiStore({ write, dryRun: false });
  return renderTui(
    <ConsoleApp backend={backend} ui={ui} theme={MONO_THEME} hostname={hostname} clock={() => Date.now()} />,
    size,
  );
}
