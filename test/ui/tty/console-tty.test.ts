/**
 * The console in a real terminal (tmux) on the built CLI and the simulated incident node: open,
 * filter, open a detail, clean up the stale session through its typed confirmation, see it gone.
 * Set ISCSI_CONSOLE_SCREENS=docs/screens to also save text captures of the main views for the README.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ttyCli } from './cli.js';
import { TmuxTerminal, tmuxAvailable } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = await ttyCli();
const NODE = join(ROOT, 'node_modules/.bin/node');
const COLS = 120;
const ROWS = 40;
const screensDir = process.env.ISCSI_CONSOLE_SCREENS
  ? resolve(ROOT, process.env.ISCSI_CONSOLE_SCREENS)
  : undefined;

const reason = tmuxAvailable() ? undefined : 'tmux is not installed';
const term = new TmuxTerminal(COLS, ROWS);

afterAll(() => {
  term.stop();
});

function save(name: string, screen: string): void {
  if (!screensDir) return;
  mkdirSync(screensDir, { recursive: true });
  writeFileSync(join(screensDir, `${name}.txt`), `${screen.replace(/[ \t]+$/gm, '').trimEnd()}\n`);
}

function assertFits(screen: string): void {
  const lines = screen.split('\n');
  expect(lines.length).toBeLessThanOrEqual(ROWS + 1);
  for (const l of lines) expect(l.length).toBeLessThanOrEqual(COLS);
}

describe('console in a real terminal (tmux, --demo incident)', () => {
  it.skipIf(reason !== undefined)(
    `cleans up the stale session through its confirmation${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      term.start(`'${NODE}' '${CLI}' --demo incident --write`, ROOT, {
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
      });
      // The incident's 10.0.0.12:3260 is down: its banner sits between the tabs and the table,
      // then the summary line.
      let s = await term.waitFor(
        /1 sessions.*\n.*OUTAGE portal 10\.0\.0\.12:3260 down.*\n.*2 failed.*\n.*SID TARGET[\s\S]*△ stale/,
      );
      expect(s).toContain(' WRITE ');
      expect(s).toMatch(/iscsid ● up/);
      assertFits(s);
      save('sessions', s);

      // Filter to the stale verdict.
      term.keys('/');
      term.text('verdict=stale');
      s = await term.waitFor(/filter: verdict=stale[\s\S]*1 of 1 \(\d+ total\)/);
      const sid = /›\s+(\d+) (?:iqn|…:)/.exec(s)?.[1];
      expect(sid).toBeDefined();
      const total = Number(/1 of 1 \((\d+) total\)/.exec(s)?.[1]);
      term.keys('Enter');
      await term.waitFor((x) => !x.includes('type to filter'));

      // Detail of the stale session.
      term.keys('Enter');
      s = await term.waitFor(`Session ${sid} `);
      expect(s).toContain('Verdict  △ stale');
      expect(s).toContain('kubelet logs this session out');
      save('session-detail', s);

      // Cleanup: the plan, then the typed confirmation.
      term.keys('c');
      s = await term.waitFor(`Type ${sid} to apply on`);
      expect(s).toMatch(/iscsiadm -m node -p \S+ -T \S+ --logout/);
      expect(s).toContain('Blast radius');
      save('plan-cleanup', s);
      term.text(String(Number(sid) + 1));
      term.keys('Enter');
      await term.waitFor(`does not match: type ${sid} exactly`);
      term.text(sid!);
      term.keys('Enter');
      // Not the summary line's `2 failed`: the outcome's title.
      s = await term.waitFor(/Clean up[^\n│]*(succeeded|failed)/, 30_000);
      expect(s).toContain('succeeded');
      expect(s).toContain(`session ${sid} is logged out`);
      save('outcome', s);

      // Back on the list: the session is gone.
      term.keys('Enter');
      await term.waitFor('nothing matches the filter');
      term.keys('Escape');
      s = await term.waitFor(`1 of ${total - 1}`);
      expect(s).not.toMatch(new RegExp(`^›?\\s+${sid} (iqn|…:)`, 'm'));
      assertFits(s);

      // The journal has the exact commands with their exit codes.
      term.keys('7');
      s = await term.waitFor(/cleanup[\s\S]*→ exit 0/);
      save('journal', s);

      if (screensDir) {
        for (const [key, name, marker] of [
          ['2', 'targets', 'PROBLEMS'],
          ['3', 'volumes', 'GLOBAL DIR'],
          ['4', 'devices', 'HOLDERS/PATHS'],
          ['5', 'records', 'STARTUP'],
          ['6', 'events', 'MESSAGE'],
          ['8', 'doctor', 'Doctor'],
        ] as const) {
          term.keys(key);
          save(name, await term.waitFor(marker));
        }
        term.keys('?');
        save('help', await term.waitFor(' Help '));
        term.keys('Escape');
        // Esc and q in one read are Alt-q: wait for the help to close before quitting.
        await term.waitFor((screen) => !screen.includes(' Help '));
      }

      expect(term.alternateOn()).toBe(true);
      term.keys('q');
      await term.waitFor('EXITED 0');
      // Back on the primary screen: the console's frames are gone, the shell prompt area is clean.
      expect(term.alternateOn()).toBe(false);
      expect(term.screen()).not.toContain('1 sessions');
    },
    180_000,
  );

  it.skipIf(reason !== undefined)(
    `NO_COLOR: symbols and words, no colour escapes${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const mono = new TmuxTerminal(100, 30, 'mono');
      try {
        mono.start(`'${NODE}' '${CLI}' --demo incident`, ROOT, {
          TERM: 'xterm-256color',
          LANG: 'C.UTF-8',
          NO_COLOR: '1',
        });
        await mono.waitFor(/READ-ONLY[\s\S]*△ stale/);
        const raw = mono.screenWithEscapes();
        // SGR foreground/background colour parameters (30-37, 38;..., 40-47, 48;..., 90-97, 100-107).
        const colours = [...raw.matchAll(/\x1b\[([0-9;]*)m/g)]
          .flatMap((m) => (m[1] ?? '').split(';'))
          .filter((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p));
        expect(colours).toEqual([]);
        // chalk drops every style at FORCE_COLOR=0; the cursor and mode stay visible as text.
        // Problems first: the cursor starts on the worst session.
        expect(raw).toMatch(/^›\s+\d+ (iqn|…:)/m);
        expect(raw).toContain(' READ-ONLY ');
        mono.keys('q');
        await mono.waitFor('EXITED 0');
      } finally {
        mono.stop();
      }
    },
    120_000,
  );
});

describe('console without a terminal', () => {
  it('refuses with exit 2 and a hint to the subcommands', () => {
    const r = spawnSync(NODE, [CLI, '--demo', 'incident'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('the console needs a terminal');
    expect(r.stderr).toContain('hint: use the subcommands instead: iscsi-console status');
    expect(r.stdout).toBe('');
  });
});

describe('console under a Node without WebAssembly (--jitless, as the DaemonSet runs serve)', () => {
  it.skipIf(reason !== undefined)(
    `refuses with exit 2 and says how to start it${reason ? ` (skipped: ${reason})` : ''}`,
    async () => {
      const t = new TmuxTerminal(100, 20, 'jitless');
      try {
        t.start(`'${NODE}' '${CLI}' --demo incident`, ROOT, {
          TERM: 'xterm-256color',
          LANG: 'C.UTF-8',
          NODE_OPTIONS: '--jitless',
        });
        const s = await t.waitFor(/EXITED \d+/);
        expect(s).toContain('the console needs WebAssembly');
        expect(s).toContain('hint: start it with NODE_OPTIONS= iscsi-console');
        expect(s).not.toContain('internal error');
        expect(s).toMatch(/EXITED 2/);
      } finally {
        t.stop();
      }
    },
    60_000,
  );
});
