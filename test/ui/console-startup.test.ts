/**
 * The console's start-up path (bench/README.md): the live backend shows a first look before anything
 * else is read, refuses to plan on it, and lets the full read replace it once started; first-look
 * rows say "…" where the full read has not answered yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createConsoleBackend, STILL_READING } from '../../src/app/console-backend.js';
import { UserError } from '../../src/engine/errors.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { sessionRow } from '../../src/ui/views/sessions.js';
import { waitFor } from '../../src/watchers/wait-for.js';
import { generateFixtureRoot } from '../helpers/generate-fixture-root.js';

const root = mkdtempSync(join(tmpdir(), 'ic-console-startup-'));
const stateDir = mkdtempSync(join(tmpdir(), 'ic-console-startup-state-'));
generateFixtureRoot(root, { sessions: 6, luns: 1 });
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

describe('console start-up', () => {
  it('first look, no plans on it, then the full read replaces it without a flood of events', async () => {
    const backend = createConsoleBackend({
      host: new FsHost({ root, runner: { mode: 'direct' } }),
      kubeletRoot: '/var/lib/kubelet',
      stateDir,
      refreshMs: 60_000,
      exec: 'direct',
      firstLookLimit: 4,
    });
    try {
      // Nothing but the first look until start(): no watcher, four of six sessions, all pending.
      expect(backend.watcher).toBeUndefined();
      const look = backend.store.getState().snapshot;
      expect(look?.partial).toEqual({ sessionsTotal: 6 });
      expect(look?.sessions.map((s) => s.sid)).toEqual([1, 2, 3, 4]);
      const sel = [{ scope: 'session' as const, key: look!.sessions[0]!.key, label: 'session 1' }];
      expect(() => backend.plan('logout', sel, false)).toThrow(UserError);
      expect(() => backend.plan('logout', sel, false)).toThrow(STILL_READING);

      const watcher = backend.start();
      expect(backend.start()).toBe(watcher);
      const st = await waitFor(backend.store, (s) => s.snapshot !== undefined && !s.snapshot.partial, 20_000);
      expect(st.snapshot?.sessions).toHaveLength(6);
      expect(st.snapshot?.sessions.some((s) => s.pending)).toBe(false);
      await watcher.ready;
      watcher.store.flush();
      // The full read is the first read: no per-session diff (nothing "appeared"); besides the
      // watcher's summary, only what was already wrong at start (events.ts problemsAtStart), said as such.
      const events = backend.store.getState().events;
      const atStart = (e: { kind: string; transition?: string }) =>
        e.transition?.startsWith('at start') === true || (e.kind === 'portal' && e.transition === 'down');
      expect(events.filter((e) => e.kind !== 'watcher' && !atStart(e))).toEqual([]);
      expect(events.some((e) => e.transition === 'appeared')).toBe(false);
      expect(backend.plan('logout', sel, false).action).toBe('logout');
    } finally {
      await backend.stop();
    }
  });

  it('shows what the first look has not read as …, and filters never match it', () => {
    const backend = createConsoleBackend({
      host: new FsHost({ root, runner: { mode: 'direct' } }),
      kubeletRoot: '/var/lib/kubelet',
      stateDir,
      refreshMs: 60_000,
      exec: 'direct',
    });
    const s = backend.store.getState().snapshot!.sessions[0]!;
    const row = sessionRow(s);
    expect(row.cells.slice(0, 5)).toEqual([String(s.sid), s.targetIqn, s.portal, s.iface, s.state]);
    expect(row.cells.slice(6)).toEqual(['…', '… reading', '…', '']);
    expect(row.fields.verdict).toBe('');
    expect(row.key).toBe(s.key);
  });
});
