/** Mounts the whole console over a fake backend at a chosen terminal size. */
import { ConsoleApp } from '../../../src/ui/app.js';
import { COLOR_THEME, MONO_THEME } from '../../../src/ui/theme.js';
import { createUiStore, type UiStore, type ViewId } from '../../../src/ui/view-store.js';
import { type FakeBackend, fakeBackend } from './fixtures.js';
import { renderTui, type Tui } from './render-tui.js';

export interface Mounted extends Tui {
  backend: FakeBackend;
  ui: UiStore;
}

export async function mountConsole(
  o: {
    backend?: FakeBackend;
    columns?: number;
    rows?: number;
    write?: boolean;
    dryRun?: boolean;
    view?: ViewId;
    noColor?: boolean;
    /** The Sessions view's sort (default: problems first); `'sid'` for tests that walk rows by sid. */
    sessionsBy?: 'sid';
  } = {},
): Promise<Mounted> {
  const backend = o.backend ?? fakeBackend();
  const ui = createUiStore({
    write: o.write ?? false,
    dryRun: o.dryRun ?? false,
    ...(o.view ? { view: o.view } : {}),
  });
  if (o.sessionsBy)
    ui.setState({ sort: { ...ui.getState().sort, sessions: { column: o.sessionsBy, desc: false } } });
  const tui = renderTui(
    <ConsoleApp
      backend={backend}
      ui={ui}
      theme={o.noColor ? MONO_THEME : COLOR_THEME}
      hostname="node-17"
      clock={() => Date.now()}
    />,
    { columns: o.columns ?? 120, rows: o.rows ?? 30 },
  );
  await tui.waitFor((f) => f.length > 0);
  return { ...tui, backend, ui };
}
