/**
 * The summary line (frames out, at 80 and 160 columns) on the simulator's incident and healthy
 * nodes: what is wrong worst first, the dead portal, the common IQN prefix once, never wider than
 * the terminal, and a symbol that says it without colours.
 */
import { describe, expect, it } from 'vitest';
import { SummaryLine, summaryLine } from '../../src/ui/summary-line.js';
import { MONO_THEME } from '../../src/ui/theme.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';
import { renderTui } from './helpers/render-tui.js';

describe('summary line', () => {
  const incident = simSnapshot('incident');
  const healthy = simSnapshot('healthy');

  it('incident: counts worst first, the dead portal, then the prefix shown once', () => {
    expect(summaryLine(incident())).toEqual({
      text: '✗ 2 failed · 1 degraded · 1 stale · 1 orphaned · portal 10.0.0.12:3260 down  ·  targets iqn.2026-01.lab.example:…',
      tone: 'bad',
    });
  });

  it('healthy: all ok', () => {
    const { text, tone } = summaryLine(healthy());
    expect(text).toMatch(/^✓ all \d+ sessions ok/);
    expect(tone).toBe('ok');
  });

  for (const columns of [80, 160]) {
    it(`${columns} columns: one line that fits`, async () => {
      const t = renderTui(<SummaryLine snapshot={incident()} theme={MONO_THEME} width={columns} />, {
        columns,
        rows: 5,
      });
      try {
        const f = await t.waitFor('2 failed');
        const lines = f.split('\n').filter((l) => l.trim());
        expect(lines).toHaveLength(1);
        expect([...lines[0]!].length).toBeLessThanOrEqual(columns);
        expect(lines[0]).toMatch(
          /^✗ 2 failed · 1 degraded · 1 stale · 1 orphaned · portal 10\.0\.0\.12:3260 down/,
        );
        if (columns >= 160) expect(lines[0]).toContain('targets iqn.2026-01.lab.example:…');
      } finally {
        t.unmount();
      }
    });
  }
});
