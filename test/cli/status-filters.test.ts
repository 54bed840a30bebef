/**
 * `status` as a runbook tool, through main() on `--demo incident` (src/sim/scenarios/incident.ts,
 * attached in this order): 1 postgres-data (A, in use, ok), 2 kafka-data @A (degraded: its map lost
 * the other path), 3 kafka-data @B (failed: sdc transport-offline), 4 old-logs (stale), 5
 * grafana-data (orphaned), 6 nightly-backup (foreign, /mnt/backup), 7 metrics-tsdb (failed: portal
 * 10.0.0.12 down). Kubelet volumes with a problem: kafka-data, grafana-data, metrics-tsdb.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Snapshot } from '../../src/engine/model.js';
import { captureOutput } from '../helpers/capture-output.js';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = captureOutput();
  const code = await main([...argv, '--demo', 'incident'], o);
  return { code, out: o.out, err: o.err };
}

async function json(...argv: string[]): Promise<Snapshot & { selection?: unknown }> {
  const r = await run('status', '--json', ...argv);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

const sids = (d: Snapshot) => d.sessions.map((s) => s.sid);

describe('status filters (text and --json)', () => {
  it('--problems keeps the sessions the summary counts, and --json says what was selected', async () => {
    const d = await json('--problems');
    expect(sids(d)).toEqual([2, 3, 4, 5, 7]);
    expect(d.selection).toEqual({ filters: ['--problems'], sessions: 5, of: 7 });
    const t = await run('status', '--problems');
    expect(t.out).toContain('showing 5 of 7 sessions (--problems)');
    // The summary stays the whole node's, and the closing list counts the same sessions.
    expect(t.out).toContain('2 failed · 1 degraded · 1 stale · 1 orphaned · portal 10.0.0.12:3260 down');
    expect(t.out).toContain('PROBLEMS (5 sessions, 3 volumes)');
  }, 60_000);

  it('--sid, --target, --verdict narrow the sessions and what belongs to them', async () => {
    const bySid = await json('--sid', '3,7');
    expect(sids(bySid)).toEqual([3, 7]);
    // Session 3's sdc is a path of kafka-data's map; its volume and metrics-tsdb's stay, postgres' goes.
    expect(bySid.multipath.map((m) => m.alias)).toEqual(['mpatha']);
    expect(bySid.kubelet.volumes.map((v) => v.path.split(':').pop())).toEqual([
      'kafka-data-lun-1',
      'metrics-tsdb-lun-1',
    ]);
    expect(sids(await json('--target', 'kafka'))).toEqual([2, 3]);
    expect(sids(await json('--target', 'iqn.2026-01.lab.example:old-logs'))).toEqual([4]);
    expect(sids(await json('--verdict', 'stale,orphaned'))).toEqual([4, 5]);
    expect(sids(await json('--verdict', 'in-use', '--target', 'kafka', '--sid', '3'))).toEqual([3]);
  }, 60_000);

  it("--filter takes the console's / language on the Sessions view's fields", async () => {
    expect(sids(await json('--filter', 'health=failed'))).toEqual([3, 7]);
    expect(sids(await json('--filter', '!verdict=in-use'))).toEqual([4, 5, 6]);
    expect(sids(await json('--filter', 'portal=10.0.0.11 health!=ok'))).toEqual([3]);
    expect(sids(await json('--filter', 'sid=1'))).toEqual([1]);
  }, 60_000);

  it('bad values are exit 2 with what is accepted, and print no status', async () => {
    const verdict = await run('status', '--verdict', 'stal');
    expect(verdict.code).toBe(2);
    expect(verdict.err).toContain('did you mean --verdict stale?');
    expect(verdict.out).toBe('');
    const field = await run('status', '--filter', 'foo=1');
    expect(field.code).toBe(2);
    expect(field.err).toMatch(/unknown field foo; fields: sid, target, iqn, portal/);
    const sid = await run('status', '--sid', '3x');
    expect(sid.code).toBe(2);
    expect(sid.err).toContain('--sid takes session ids (got "3x")');
  }, 60_000);
});

describe('status columns are the --json field names', () => {
  it('the default headers are Session fields, so a header is a jq path', async () => {
    const t = await run('status');
    expect(t.out).toMatch(
      /\nsid\s+targetIqn\s+portal\s+iface\s+state\s+hostNumber\s+devices\s+verdict\s+health\n/,
    );
  }, 60_000);

  it('--columns picks fields for the table and for --json', async () => {
    const t = await run('status', '--columns', 'sid,targetIqn,verdict', '--sid', '4');
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/\nsid\s+targetIqn\s+verdict\n4\s+iqn\.2026-01\.lab\.example:old-logs\s+stale\n/);
    const d = await json('--columns', 'sid,health', '--sid', '3');
    expect(d.sessions).toEqual([{ sid: 3, health: 'failed' }]);
  }, 60_000);

  it('an unknown column is exit 2 with the field it most likely means (.target is .targetIqn)', async () => {
    const r = await run('status', '--columns', 'sid,target');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--columns: target is not a field of a session in status --json');
    expect(r.err).toContain('did you mean targetIqn?');
    expect(r.out).toBe('');
    expect((await run('status', '--columns', 'VERDICT')).err).toContain('did you mean verdict?');
  }, 60_000);
});
