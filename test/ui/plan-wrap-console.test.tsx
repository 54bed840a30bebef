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
import { createLiveBackend, type LiveBackend } from '../../src/ui/live-backend.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { renderConsole } from './helpers/live-console.js';
import { KEY } from './helpers/render-tui.js';
import { flatText, readScrolled } from './helpers/scrolled-dialog.js';

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

describe('console: the cleanup plan of session 4 reads in full', () => {
  for (const [columns, rows] of [
    [80, 24],
    [160, 45],
  ] as const) {
    it(`${columns}×${rows}: scrolling reaches every line; --logout and -o delete are whole`, async () => {
      const t = renderConsole(backend, host.hostname(), { columns, rows });
      try {
        await t.waitFor('old-logs');
        await t.press('/');
        await t.type('sid=4');
        await t.press(KEY.enter);
        await t.waitFor((f) => !f.includes('postgres-data'));
        await t.press('C');
        const first = await t.waitFor('Plan: Clean up');
        const { lines: seen, last } = await readScrolled(first, async () => {
          await t.press(KEY.down);
          return t.lastFrame();
        });
        expect(last).not.toContain('more lines');
        const text = seen.join('\n');
        expect(text).not.toMatch(/…(?! \d+ more)/);
        expect(text).toContain('Undo by hand:');
        expect(text).toContain('--login');
        const flat = flatText(seen);
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
