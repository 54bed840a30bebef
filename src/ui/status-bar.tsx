/**
 * The top line: who and where (hostname, initiator), whether the machinery is up, the mode
 * (READ-ONLY/WRITE, DRY-RUN) in inverse video, and how fresh the data is.
 */

import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { ConsoleBackend } from '../app/backend.js';
import { plural } from '../app/domain.js';
import type { IscsidState } from '../engine/model.js';
import { Text } from './components/safe-text.js';
import { formatAge, truncateMiddle } from './format.js';
import { type Theme, toneColor } from './theme.js';
import type { UiStore } from './view-store.js';

type DaemonState = 'up' | 'down' | 'socket' | '?';

/**
 * iscsid as the node's last read says it (`Snapshot.iscsid`, src/engine/snapshot/iscsid.ts: the
 * fact the problems rule, the planners and the guard use); '?' when that read could not tell or
 * none landed yet, never guessed. The watcher re-reads when iscsid's pid comes or goes, so the
 * word follows iscsid within a poll.
 */
function iscsidLook(state: IscsidState | undefined): DaemonState {
  if (state === 'running') return 'up';
  if (state === 'socket-activated') return 'socket';
  return state ?? '?';
}

const ISCSID_LOOK: Record<DaemonState, { text: string; tone: 'ok' | 'bad' | 'warn' | 'dim' }> = {
  up: { text: 'iscsid ● up', tone: 'ok' },
  down: { text: 'iscsid ✗ down', tone: 'bad' },
  socket: { text: 'iscsid ○ socket-activated', tone: 'warn' },
  '?': { text: 'iscsid ?', tone: 'dim' },
};

/** From this width the stamps are spelled out and the poll cadence shown; below, they are compact. */
const WIDE = 120;

/**
 * Both stamps, because they differ: the watchers probe the node every poll (cheap sysfs reads) and
 * read it in full only at start, on a non-poll source, or every full-read interval; a read in
 * between covers only what moved (WatcherHealth, src/watchers/types.ts). So "polled 1s ago" says
 * the view is live and "full read 2m ago" how old the slowest facts may be.
 */
export function freshness(
  now: number,
  polled: number | undefined,
  fullRead: number | undefined,
  wide: boolean,
): string {
  // max(0): the tick that last set `now` can predate the poll by up to a second. Each age takes the
  // widest it reaches ("2m10s", "1h05m"), so the line does not jitter as "9s" becomes "10s".
  const age = (at: number) => formatAge(Math.max(0, now - at)).padStart(5);
  if (polled === undefined && fullRead === undefined) return 'not read yet';
  const p = polled === undefined ? 'not polled yet' : `polled ${age(polled)}${wide ? ' ago' : ''}`;
  const f = fullRead === undefined ? 'no full read yet' : `full ${wide ? 'read ' : ''}${age(fullRead)} ago`;
  return `${p} · ${f}`;
}

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
      // A fake or older store may carry only lastRefreshAt: each stamp falls back to it.
      polled: s.health.lastPollAt ?? s.health.lastRefreshAt,
      fullRead: s.health.lastFullReadAt ?? s.health.lastRefreshAt,
      busy: s.busy > 0,
      sources: s.health.sources,
      errors: s.health.errors.length,
      // The first look (src/watchers/first-look.ts) is on screen while the full read runs.
      partialOf: s.snapshot?.partial?.sessionsTotal,
      iscsid: s.snapshot?.iscsid,
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
  const iscsid = ISCSID_LOOK[iscsidLook(node.iscsid)];
  const age =
    node.partialOf !== undefined
      ? `reading… (first look, ${node.sessions}/${node.partialOf} sessions)`
      : freshness(now, node.polled, node.fullRead, width >= WIDE);
  const every = width >= WIDE ? ` · poll every ${formatAge(props.backend.refreshMs)}` : '';
  const stamp = ` ⟳ ${age}${every}${node.busy ? ' ◐' : ''}`;
  const host = truncateMiddle(node.hostname ?? '…', Math.max(16, Math.floor(width / 4)));
  const demo = node.kind === 'sim' ? ' [demo]' : '';
  const modes = ui.write ? ' WRITE ' : ' READ-ONLY ';
  const dry = ui.dryRun ? '  DRY-RUN ' : '';
  // The stamps and the mode matter more mid-incident than the initiator name: it gets the room
  // left on the line (at most a quarter of it), and is left out below 12 cells.
  const cells = (x: string) => [...x].length;
  const errors = node.errors ? ` ⚠ ${plural(node.errors, 'watcher error')}` : '';
  const filter = ui.filter ? ` filter: ${ui.filter}` : '';
  const marked = ui.marks ? ` ${ui.marks} marked` : '';
  const room =
    width - cells(`${host}${demo} ${iscsid.text} ${modes}${dry}${stamp}${errors}${filter}${marked}`) - 1;
  const initiator =
    room >= 12
      ? `${truncateMiddle(node.initiator ?? 'no initiator name', Math.min(room, Math.max(12, Math.floor(width / 4))))} `
      : '';
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
        {host}
      </Text>
      {demo ? <Text color={toneColor(theme, 'warn')}>{demo}</Text> : null}
      <Text color={toneColor(theme, 'dim')}>{` ${initiator}`}</Text>
      <Text color={toneColor(theme, iscsid.tone)}>{`${iscsid.text} `}</Text>
      {ui.write ? badge('WRITE', theme.writeBg) : badge('READ-ONLY', theme.readOnlyBg)}
      {ui.dryRun ? <Text> {badge('DRY-RUN', theme.warn)}</Text> : null}
      <Text color={toneColor(theme, 'dim')}>{stamp}</Text>
      {errors ? <Text color={toneColor(theme, 'warn')}>{errors}</Text> : null}
      {filter ? <Text color={toneColor(theme, 'warn')}>{filter}</Text> : null}
      {marked ? <Text color={toneColor(theme, 'accent')}>{marked}</Text> : null}
    </Text>
  );
}
