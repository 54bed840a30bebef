/**
 * Runs the shown view's commands (ViewModule.run: the doctor's checks) when it opens and on every
 * ctrl-r, into the UI store, where its rows, detail and `y` read the result. Not on a poll: the
 * commands are the node's, and a refresh must not re-run them.
 */
import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { ConsoleBackend } from '../app/backend.js';
import type { UiStore } from './view-store.js';
import type { DoctorFeed, ViewModule } from './views/view.js';

export function useViewRun(backend: ConsoleBackend, ui: UiStore, view: ViewModule): DoctorFeed {
  const token = useStore(ui, (x) => x.refreshToken);
  // biome-ignore lint/correctness/useExhaustiveDependencies: token is the re-run trigger
  useEffect(() => {
    if (!view.run) return;
    let live = true;
    ui.setState({ doctor: undefined });
    view.run(backend).then((doctor) => live && ui.setState({ doctor }));
    return () => {
      live = false;
    };
  }, [backend, ui, view, token]);
  return useStore(ui, (x) => (view.run ? x.doctor : undefined));
}
