/**
 * The families of real snapshots (the simulator's scenarios through the engine's read): what each
 * scenario's definition says must show (src/sim/scenarios/*.ts), the cap, and what must never show.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILIES, metricsText, nodeMetrics } from '../../src/engine/metrics/index.js';
import { simSnapshot } from '../helpers/sim-snapshot.js';

const series = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('#'));

describe('csi scenario', () => {
  const snap = simSnapshot('csi');
  it('exports a volume per PV, device and pod, with the CSI driver and the PV name', () => {
    const text = metricsText(snap(), { version: 't' });
    const vols = series(text).filter((l) => l.startsWith('iscsi_volume_info{'));
    expect(vols.length).toBeGreaterThan(0);
    expect(
      vols.some((l) => l.includes('plugin="kubernetes.io/csi"') && /persistentvolume="[^"]+"/.test(l)),
    ).toBe(true);
  });

  it('never writes the hostname, a CHAP setting or a command line', () => {
    const s = snap();
    const text = metricsText(s, { version: 't' });
    expect(text).not.toContain(s.node.hostname);
    expect(text).not.toMatch(/chap|password|username|iscsiadm/i);
  });
});

describe('incident scenario', () => {
  const snap = simSnapshot('incident');
  it('every known state of each state set is present, with exactly one 1 per session', () => {
    const s = snap();
    const lines = series(metricsText(s, { version: 't' }));
    for (const [family, n] of [
      ['iscsi_session_state', 3],
      ['iscsi_session_verdict', 6],
      ['iscsi_session_health', 3],
    ] as const) {
      const rows = lines.filter((l) => l.startsWith(`${family}{`));
      expect(rows).toHaveLength(s.sessions.length * n);
      expect(rows.filter((l) => l.endsWith(' 1'))).toHaveLength(s.sessions.length);
    }
    expect(lines).toContain('iscsi_portal_down{portal="10.0.0.12:3260"} 1');
  });

  it('--max-sessions caps the per-session series, problems first, and counts what it dropped', () => {
    const s = snap();
    const all = nodeMetrics(s, { version: 't' });
    const capped = nodeMetrics(s, { version: 't', maxSessions: 1 });
    expect(all.dropped).toBe(0);
    expect(capped.dropped).toBeGreaterThan(0);
    const info = capped.families.find((f) => f.name === 'iscsi_session_info')!;
    expect(info.samples).toHaveLength(1);
    const kept = s.sessions.find((x) => x.sid === Number(info.samples[0]!.labels.sid))!;
    expect(kept.health).toBe('failed');
    const dropped = capped.families.find((f) => f.name === 'iscsi_console_series_dropped_total')!;
    expect(dropped.samples[0]!.value).toBe(capped.dropped);
    const count = (m: typeof all) => m.families.reduce((n, f) => n + f.samples.length, 0);
    // What was left out is exactly what the cap dropped (portals stay: fewer than the cap's sessions).
    const portals = new Set(s.sessions.map((x) => x.portal)).size;
    expect(count(all) - count(capped)).toBe(capped.dropped + 3 * (portals - 1));
    const sessions = capped.families.find((f) => f.name === 'iscsi_sessions')!;
    expect(sessions.samples.reduce((n, x) => n + x.value, 0)).toBe(s.sessions.length);
  });
});

describe('the metrics reference page', () => {
  it('documents every family', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs/metrics.md'), 'utf8');
    for (const name of Object.keys(FAMILIES)) expect(doc, name).toContain(`| \`${name}\` |`);
  });
});

describe('the exporter’s own read duration', () => {
  const snap = simSnapshot('healthy');
  it('is seconds to the microsecond: a fractional millisecond count carries no binary noise', () => {
    // 331.79 ms / 1000 is 0.33179000000000003 in binary floating point.
    const s = { ...snap(), readMs: 331.79 };
    const line = series(metricsText(s, { version: 't' })).find((l) =>
      l.startsWith('iscsi_console_read_duration_seconds '),
    );
    expect(line).toBe('iscsi_console_read_duration_seconds 0.33179');
  });
});
