/**
 * Keys in, frames out: the incident's cleanup plan for session 4 in the console at 80×24 and
 * 160×45, through the real engine on the simulator. Every piece of the wrapped plan is reachable by
 * scrolling, and both iscsiadm steps (`--logout`, `-o delete`) read in full; nothing is cut with `…`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSimHost, type SimHost } from '../../src/sim/index.js';
import { ConsoleApp } from '../../src/ui/app.js';
import { createLiveBackend, type LiveBackend } from '../../src/ui/live-backend.js';
import { MONO_THEME } from '../../src/ui/theme.js';
import { createUiStore } from '../../src/ui/view-store.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { KEY, renderTui } from './helpers/render-tui.js';

const IQN = 'iqn.2026-01.lab.example:old-logs';
const dir = mkdtempSync(join(tmpdir(), 'ic-plan-wrap-'));
let host: SimHost;
let close: () => Promise<void>;
let backend: LiveBackend;

beforeAll(async () => {
  ({ host, close } = await openSimHost({ scenario: 'incident', clock: 'manual', dir }));
  backend = createLiveBackend({
    host,
    kubeletRoot: '/var/lib/kubelet',
    stateDir: '/var/log/iscsi-console',
    refreshMs: 60_000,
    exec: 'direct',
  });
  backend.start();
  await waitFor(backend.store, (s) => s.snapshot !== undefined && !s.snapshot.partial, 20_000);
}, 60_000);

afterAll(async () => {
  await backend?.stop();
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

/** The dialog's body lines of a frame: between the border's `│ ` and ` │`. */
const bodyLines = (frame: string): string[] =>
  frame
    .split('\n')
    .map((l) => /^│ (.*) │$/.exec(l)?.[1]?.trimEnd())
    .filter((l): l is string => l !== undefined);

describe('console: the cleanup plan of session 4 reads in full', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}×${rows}: scrolling reaches every line; --logout and -o delete are whole`, async () => {
      const ui = createUiStore({ write: false, dryRun: false });
      const t = renderTui(
        <ConsoleApp
          backend={backend}
          ui={ui}
          theme={MONO_THEME}
          hostname={host.hostname()}
          clock={() => Date.now()}
        />,
        { columns, rows },
      );
      try {
        await t.waitFor('old-logs');
        await t.press('/');
        await t.type('sid=4');
        await t.press(KEY.enter);
        await t.waitFor((f) => !f.includes('postgres-data'));
        await t.press('C');
        let frame = await t.waitFor('Plan: Clean up');
        // Scroll to the end, keeping every body line seen (the "… N more lines" marker aside).
        const seen: string[] = [];
        const take = (f: string) => {
          for (const l of bodyLines(f)) if (!/^… \d+ more lines/.test(l) && !seen.includes(l)) seen.push(l);
        };
        take(frame);
        for (let i = 0; i < 60 && frame.includes('more lines'); i++) {
          await t.press(KEY.down);
          frame = t.lastFrame();
          take(frame);
        }
        expect(frame).not.toContain('more lines');
        const text = seen.join('\n');
        expect(text).not.toMatch(/…(?! \d+ more)/);
        expect(text).toContain('Undo by hand:');
        expect(text).toContain('--login');
        const flat = seen.map((l) => l.trim().replace(/ \\$/, '')).join(' ');
        expect(flat).toContain(`$ iscsiadm -m node -p 10.0.0.10:3260 -T ${IQN} --logout -I default`);
        expect(flat).toContain(`$ iscsiadm -m node -p 10.0.0.10:3260 -T ${IQN} -o delete -I default`);
        if (columns >= 160) {
          // Wide enough: each command on one line, as the CLI prints it.
          expect(seen.some((l) => l.endsWith(`-T ${IQN} --logout -I default`))).toBe(true);
          expect(seen.some((l) => l.endsWith(`-T ${IQN} -o delete -I default`))).toBe(true);
        }
      } finally {
        t.unmount();
      }
    }, 30_000);
  }
});
