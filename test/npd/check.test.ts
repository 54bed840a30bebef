/**
 * `check` keeps node-problem-detector's custom-plugin contract (https://github.com/kubernetes/node-problem-detector/blob/master/docs/custom_plugin_monitor.md): exit 0 condition false, 1 true, 2 unknown; one stdout line of at
 * most 80 characters. Expected lines come from the scenarios' definitions (src/sim/scenarios/).
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { npdLine } from '../../src/engine/npd/conditions.js';
import { captureOutput } from '../helpers/capture-output.js';

async function check(...argv: string[]): Promise<{ code: number; line: string; lines: number }> {
  const c = captureOutput();
  const code = await main(['check', ...argv], c);
  const lines = c.out.split('\n').filter(Boolean);
  return { code, line: lines[0] ?? '', lines: lines.length };
}

describe('check (NPD custom plugin)', () => {
  it('outage: exit 1 naming the portal, its sessions and pods (controller A under four volumes and an unused login)', async () => {
    const r = await check('outage', '--demo', 'outage');
    expect(r).toEqual({ code: 1, line: 'portal 10.0.0.10:3260 down: 5 sessions, 4 pods', lines: 1 });
  });

  it('failed: exit 1 on the outage scenario, 0 on the healthy one', async () => {
    const r = await check('failed', '--demo', 'outage');
    expect(r.code).toBe(1);
    expect(r.line).toMatch(/^5 sessions failed: FAILED iqn\.2026-01\.lab\.example:/);
    const ok = await check('failed', '--demo', 'healthy');
    expect(ok.code).toBe(0);
  });

  it('every condition answers 0 on a healthy node, in one line of at most 80 characters', async () => {
    for (const c of ['outage', 'failed', 'degraded', 'stale', 'iscsid', 'doctor']) {
      const r = await check(c, '--demo', 'healthy');
      expect(r.lines, c).toBe(1);
      expect(r.line.length, c).toBeLessThanOrEqual(80);
      expect(r.code, `${c}: ${r.line}`).toBe(0);
    }
  });

  it('incident: degraded names the map that lost a path; stale names a session', async () => {
    const d = await check('degraded', '--demo', 'incident');
    expect(d).toEqual({ code: 1, line: '1 map degraded: map mpatha lost path sdc', lines: 1 });
    const s = await check('stale', '--demo', 'incident');
    expect(s.code).toBe(1);
    expect(s.line.length).toBeLessThanOrEqual(80);
    expect(s.line).toMatch(/^2 sessions stale or orphaned: /);
  });

  it('an unknown or missing condition is "cannot tell" (2), never "true" (1)', async () => {
    expect((await check('nonsense', '--demo', 'healthy')).code).toBe(2);
    expect((await check('--demo', 'healthy')).code).toBe(2);
  });

  it('cuts a long line to 80 characters and makes control bytes visible', () => {
    const line = npdLine(`portal x down: ${'y'.repeat(200)}\x1b[2J`);
    expect([...line]).toHaveLength(80);
    expect(line.endsWith('…')).toBe(true);
    expect(npdLine('a\x1bb')).toBe('a\\x1bb');
  });
});
