/**
 * The console's first look (src/watchers/first-look.ts): the session list and states from sysfs,
 * with the same keys the full read gives, and a store that takes the full read after it as the
 * first read (no diff, no events).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { firstLook } from '../../src/watchers/first-look.js';
import { createNodeStore } from '../../src/watchers/store.js';
import { generateFixtureRoot } from '../helpers/generate-fixture-root.js';
import { KROOT } from '../snapshot/fixture-root.js';

const root = mkdtempSync(join(tmpdir(), 'ic-first-look-'));
generateFixtureRoot(root, { sessions: 12, luns: 2 });
const host = new FsHost({ root, runner: { mode: 'direct' } });
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('first look', () => {
  it('lists every session with the identity and state the full read gives, marked partial', () => {
    const look = firstLook(host, { kubeletRoot: KROOT });
    const full = takeSnapshot(host, { kubeletRoot: KROOT });
    expect(look.partial).toEqual({ sessionsTotal: 12 });
    expect(full.partial).toBeUndefined();
    const pick = (s: (typeof full.sessions)[number]) => ({
      sid: s.sid,
      key: s.key,
      targetIqn: s.targetIqn,
      portal: s.portal,
      iface: s.iface,
      state: s.state,
      hostNumber: s.hostNumber,
    });
    expect(look.sessions.map(pick)).toEqual(full.sessions.map(pick));
    expect(look.sessions.every((s) => s.pending === true && s.devices.length === 0)).toBe(true);
    expect(full.sessions.some((s) => s.pending)).toBe(false);
    expect(look.node).toMatchObject({ hostname: full.node.hostname, initiatorName: full.node.initiatorName });
  });

  it('reads only the first sessions by sid when limited, and counts them all', () => {
    const look = firstLook(host, { kubeletRoot: KROOT, limit: 5 });
    expect(look.sessions.map((s) => s.sid)).toEqual([1, 2, 3, 4, 5]);
    expect(look.partial?.sessionsTotal).toBe(12);
  });

  it('is no predecessor in the store: the full read after it makes no diff and no events', () => {
    const store = createNodeStore();
    store.applySnapshot(firstLook(host, { kubeletRoot: KROOT }));
    store.flush();
    expect(store.getState().snapshot?.partial).toBeDefined();
    const events = store.applySnapshot(takeSnapshot(host, { kubeletRoot: KROOT }));
    store.flush();
    expect(events).toEqual([]);
    expect(store.getState().diff).toBeUndefined();
    expect(store.getState().snapshot?.partial).toBeUndefined();
  });
});
