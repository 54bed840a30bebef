/**
 * The top line: who and where (hostname, initiator), whether the machinery is up, the mode
 * (READ-ONLY/WRITE, DRY-RUN) in inverse video, and how fresh the data is.
 */

import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { ConsoleBackend } from '../app/backend.js';
import { Text } from './components/safe-text.js';
import { formatAge, truncateMiddle } from './format.js';
import { type Theme, toneColor } from './theme.js';
import type { UiStore } from './view-store.js';

type DaemonState = 'up' | 'down' | 'socket' | '?';

/** iscsid up/down: the backend's check, else a watcher source named iscsid, else unknown (never guessed). */
function iscsidState(backend: ConsoleBackend, sources: { name: string; active: boolean }[]): DaemonState {
  const fromBackend = backend.iscsidState?.();
  if (fromBackend) return fromBackend;
  const src = sources.find((x) => x.name === 'iscsid');
  return src ? (src.active ? 'up' : 'down') : '?';
}

const ISCSID_LOOK: Record<DaemonState, { text: string; tone: 'ok' | 'bad' | 'warn' | 'dim' }> = {
  up: { text: 'iscsid ● up', tone: 'ok' },
  down: { text: 'iscsid ✗ down', tone: 'bad' },
  socket: { text: 'iscsid ○ socket-activated', tone: 'warn' },
  '?': { text: 'iscsid ?', tone: 'dim' },
};

export function StatusBar(props: {
  backend: ConsoleBackend;
  ui: UiStore;
  theme: Theme;
  width: number;
  clock: () => number;
}) {
  const { theme, width } = props;
  const node = useStore(
    props.backend.store,
    useShallow((s) => ({
      hostname: s.snapshot?.node.hostname,
      initiator: s.snapshot?.node.initiatorName,
      kind: s.snapshot?.node.kind,
      sessions: s.snapshot?.sessions.length ?? 0,
      last: s.health.lastRefreshAt,
      busy: s.busy > 0,
      sources: s.health.sources,
      errors: s.health.errors.length,
      // The first look (src/watchers/first-look.ts) is on screen while the full read runs.
      partialOf: s.snapshot?.partial?.sessionsTotal,
    })),
  );
  const ui = useStore(
    props.ui,
    useShallow((s) => ({
      write: s.write,
      dryRun: s.dryRun,
      filter: s.filter[s.view],
      marks: s.marks.length,
    })),
  );
  // Only this line re-renders every second (the age), not the tables.
  const [now, setNow] = useState(props.clock());
  useEffect(() => {
    const t = setInterval(() => setNow(props.clock()), 1000);
    return () => clearInterval(t);
  }, [props.clock]);
  const iscsid = ISCSID_LOOK[iscsidState(props.backend, node.sources)];
  // max(0): the tick that last set `now` can predate the refresh by up to a second.
  // The watchers poll cheaply every refreshMs and re-read fully only when something moved, so this
  // is the age of the last change seen, not of the last look.
  const age =
    node.partialOf !== undefined
      ? `reading… (first look, ${node.sessions}/${node.partialOf} sessions)`
      : node.last
        ? `read ${formatAge(Math.max(0, now - node.last))} ago`
        : 'not read yet';
  const every = props.backend.refreshMs ? ` · poll ${formatAge(props.backend.refreshMs)}` : '';
  const initiator = truncateMiddle(
    node.initiator ?? 'no initiator name',
    Math.max(12, Math.floor(width / 4)),
  );
  const badge = (text: string, bg: string | undefined) => (
    <Text
      inverse={!theme.color}
      backgroundColor={bg}
      color={theme.color ? 'white' : undefined}
      bold
    >{` ${text} `}</Text>
  );
  return (
    <Text wrap="truncate">
      <Text bold color={toneColor(theme, 'accent')}>
        {node.hostname ?? '…'}
      </Text>
      {node.kind === 'sim' ? <Text color={toneColor(theme, 'warn')}> [demo]</Text> : null}
      <Text color={toneColor(theme, 'dim')}>{` ${initiator} `}</Text>
      <Text color={toneColor(theme, iscsid.tone)}>{`${iscsid.text} `}</Text>
      {ui.write ? badge('WRITE', theme.writeBg) : badge('READ-ONLY', theme.readOnlyBg)}
      {ui.dryRun ? <Text> {badge('DRY-RUN', theme.warn)}</Text> : null}
      <Text color={toneColor(theme, 'dim')}>{` ⟳ ${age}${every}${node.busy ? ' ◐' : ''}`}</Text>
      {node.errors ? (
        <Text color={toneColor(theme, 'warn')}>{` ⚠ ${node.errors} watcher errors`}</Text>
      ) : null}
      {ui.filter ? <Text color={toneColor(theme, 'warn')}>{` filter: ${ui.filter}`}</Text> : null}
      {ui.marks ? <Text color={toneColor(theme, 'accent')}>{` ${ui.marks} marked`}</Text> : null}
    </Text>
  );
}
