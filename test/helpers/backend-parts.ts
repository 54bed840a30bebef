/**
 * The ConsoleBackend members a hand-filled backend (layout and dialog tests, the console bench) does
 * not exercise: the node reads and plans refuse with a message that says where the real ones are
 * (test/ui/helpers/demo.tsx `mountDemo`: the real app layer on the simulator), and the status bar's
 * parts answer "unknown". A test that needs one sets it on the backend it built.
 */
import type { ConsoleBackend } from '../../src/app/backend.js';

type Parts = Pick<
  ConsoleBackend,
  | 'planAttach'
  | 'journalNotes'
  | 'discover'
  | 'listLuns'
  | 'planListTargets'
  | 'loadManifest'
  | 'refreshMs'
  | 'now'
  | 'runDoctor'
  | 'probePortals'
>;

const absent = (what: string) => () => {
  throw new Error(`a hand-filled backend has no ${what}: mount the demo (test/ui/helpers/demo.tsx) for it`);
};

export function handFilledParts(): Parts {
  return {
    planAttach: absent('planAttach'),
    journalNotes: () => [],
    discover: () => Promise.reject(new Error('a hand-filled backend has no discovery')),
    listLuns: absent('listLuns'),
    planListTargets: absent('planListTargets'),
    loadManifest: absent('loadManifest'),
    refreshMs: 2000,
    now: () => Date.now(),
    runDoctor: () => Promise.reject(new Error('a hand-filled backend has no doctor')),
    probePortals: () => Promise.reject(new Error('a hand-filled backend has no probe')),
  };
}
