/**
 * User-facing texts say each thing once and cite nothing the admin does not have: the journal's
 * outcome of a command (`exit 0`, `written`; never `exit 0 exit 0` or `exit none`), a wait that does
 * not wait, a LUN without a block device, help that does not repeat the scope, and no section
 * sign or repository page reference in plans or command help.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { journalEntries } from '../../src/app/journal-entries.js';
import { loadAllCommands } from '../../src/cli/commands/index.js';
import { formatPlan, stepAction } from '../../src/engine/actions/format.js';
import { commandOutcome, type JournalEntry } from '../../src/engine/actions/journal.js';
import { ACTIONS } from '../../src/engine/actions/registry.js';
import { computeVerdicts } from '../../src/engine/snapshot/verdicts.js';
import { actionScopeText, helpLines } from '../../src/ui/dialogs/help-lines.js';
import { simEnv } from '../actions/helpers.js';
import { device, session } from '../watchers/build-snapshot.js';
import { fakeBackend } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';

/** A section sign (an escape here, so this file cites nothing itself), a docs/ path, a markdown page name. */
const INTERNAL_REF = /\u00a7|docs\/|[.]md\b/;

let t: Mounted | undefined;
afterEach(() => t?.unmount());

const engineLine = (steps: JournalEntry['steps']): JournalEntry => ({
  id: 'j1',
  phase: 'end',
  at: '2026-11-30T04:01:00.000Z',
  who: {},
  host: 'sim-node-1',
  hostKind: 'sim',
  action: 'cleanup',
  subject: 'session 4',
  ok: true,
  steps,
});

describe('journal outcomes', () => {
  it('commandOutcome says the exit once, names writes and file steps', () => {
    expect(commandOutcome({ exitCode: 0, exitName: 'exit 0' })).toBe('exit 0');
    expect(commandOutcome({ exitCode: 0, exitName: 'ISCSI_SUCCESS' })).toBe('exit 0 ISCSI_SUCCESS');
    expect(commandOutcome({ exitCode: 21, exitName: 'ISCSI_ERR_NO_OBJS_FOUND' })).toBe(
      'exit 21 ISCSI_ERR_NO_OBJS_FOUND',
    );
    expect(commandOutcome({ exitCode: null, exitName: 'TIMEOUT' })).toBe('TIMEOUT');
    expect(commandOutcome({ write: { path: '/sys/block/sdd/device/delete', data: '1' } })).toBe('written');
    expect(commandOutcome({ fs: { op: 'rmdir', path: '/x' } })).toBe('done');
    expect(commandOutcome({})).toBe('no exit code');
  });

  it('the journal view reads `→ exit 0` and `→ written`, and a write as the plan showed it', async () => {
    const backend = fakeBackend();
    backend.readJournal = () =>
      journalEntries([
        engineLine([
          {
            id: 'flush',
            status: 'done',
            commands: [{ argv: ['blockdev', '--flushbufs', '/dev/sdd'], exitCode: 0, exitName: 'exit 0' }],
          },
          {
            id: 'delete',
            status: 'done',
            commands: [{ write: { path: '/sys/block/sdd/device/delete', data: '1\n' } }],
          },
        ]),
      ]);
    t = await mountConsole({ backend, columns: 120, rows: 30 });
    await t.press('7');
    const f = await t.waitFor('blockdev --flushbufs /dev/sdd');
    expect(f).toContain('$ blockdev --flushbufs /dev/sdd  → exit 0');
    expect(f).not.toContain('exit 0 exit 0');
    expect(f).toContain('$ echo 1 > /sys/block/sdd/device/delete  → written');
    expect(f).not.toContain('exit none');
  });
});

describe('plan and reason texts', () => {
  it('a wait of 0 checks once instead of promising "≤0s"', () => {
    const wait = (timeoutMs: number) =>
      stepAction({
        id: 'w',
        why: '',
        effect: { kind: 'none' as const },
        preconditions: [],
        wait: { what: 'multipath map over the paths', timeoutMs },
      });
    expect(wait(0)).toBe('check for multipath map over the paths');
    expect(wait(10_000)).toBe('wait ≤10s for multipath map over the paths');
    expect(wait(1_500)).toBe('wait ≤1.5s for multipath map over the paths');
  });

  it('a LUN without a block device is named by its H:C:T:L once', () => {
    const s = session(1, 'FAILED', [device(1, 0, undefined, 'blocked'), device(1, 1, 'sdb', 'blocked')]);
    const [v] = computeVerdicts({
      sessions: [s],
      uses: new Map(),
      unresolvedKubeletLoops: [],
      multipath: [],
      volumes: [],
      podVolumes: [],
      fsListing: new Map(),
      blockListing: new Map(),
    }).sessions;
    expect(v!.reasons).toContain('1:0:0:0 is blocked');
    expect(v!.reasons).toContain('sdb (1:0:0:1) is blocked');
    expect(v!.reasons.join('\n')).not.toContain('1:0:0:0 (1:0:0:0)');
  });

  it('help names an action scope only where its title does not', () => {
    expect(actionScopeText({ title: 'Rescan session', scopes: ['session'] })).toBe('');
    expect(actionScopeText({ title: 'Clean up', scopes: ['session', 'volume'] })).toBe(' on session/volume');
    const text = helpLines(ACTIONS, true)
      .map((l) => l.text)
      .join('\n');
    expect(text).not.toMatch(/\b(\w+) on \1\b/);
    expect(text).toContain('health=degraded|failed');
    expect(text).toMatch(/sessions: sid, target, /);
    for (const l of helpLines(ACTIONS, false, 76)) expect([...l.text].length).toBeLessThanOrEqual(76);
  });

  it('plans and command help cite nothing the admin lacks (no section sign, no repository page)', async () => {
    const env = await simEnv('incident');
    try {
      const plans = [env.plan('cleanup', ['4']), env.plan('cleanup', ['5']), env.plan('cleanup', ['3'])];
      for (const p of plans) {
        const text = formatPlan(p);
        expect(text).not.toMatch(INTERNAL_REF);
      }
    } finally {
      await env.close();
    }
    for (const c of await loadAllCommands()) {
      const help = [c.summary, c.description ?? '', ...(c.examples ?? [])].join('\n');
      expect(help, c.name).not.toMatch(INTERNAL_REF);
    }
  });
});
