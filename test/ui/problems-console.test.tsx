/**
 * "What is wrong in five seconds", keys in and frames out on `--demo incident` through
 * the real app layer, at 80×24 and 160×45: one problems rule on every table (Sessions' REASON,
 * Volumes/Targets/Devices PROBLEMS), problems first by default and HEALTH by severity, the summary
 * line under the tabs saying nothing the outage banner says, the IQN prefix elided in tables, the
 * tab counter whole at 80 columns, field completion in `/` and `:`, and a frame never taller or
 * wider than the terminal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleBackend } from '../../src/app/console-backend.js';
import { openSimHost } from '../../src/sim/index.js';
import { ConsoleApp } from '../../src/ui/app.js';
import { MONO_THEME } from '../../src/ui/theme.js';
import { createUiStore } from '../../src/ui/view-store.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY, renderTui } from './helpers/render-tui.js';

const SIZES = [
  [80, 24],
  [160, 45],
] as const;

/** The sids of the Sessions table's rows, top to bottom. */
const sidsOf = (frame: string) => frame.split('\n').flatMap((l) => /^.{2}\s*(\d+) …:/.exec(l)?.[1] ?? []);
const rowOf = (frame: string, sid: number) =>
  frame.split('\n').find((l) => new RegExp(`^.{2}\\s*${sid} …:`).test(l)) ?? '';

function fits(frame: string, columns: number, rows: number): void {
  const lines = frame.split('\n');
  expect(lines.length).toBeLessThanOrEqual(rows);
  for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(columns);
}

/** Back to the Sessions view with no filter and the default order. */
async function home(t: DemoConsole): Promise<void> {
  // Set directly: a lone esc followed by a key reads as alt+key to the terminal parser.
  const s = t.ui.getState();
  t.ui.setState({
    mode: 'normal',
    view: 'sessions',
    input: '',
    filter: { ...s.filter, sessions: '', volumes: '' },
    sort: { ...s.sort, sessions: undefined },
    cursor: { ...s.cursor, sessions: { index: 0 } },
  });
  // The default order (the tab bar says ▼SEVERITY), no column sorted.
  await t.waitFor((f) => f.includes('[1 sessions]') && !f.includes('filter: ') && f.includes('▼SEV'));
}

for (const [columns, rows] of SIZES) {
  describe(`${columns}×${rows} on --demo incident`, () => {
    let t: DemoConsole;
    beforeAll(async () => {
      t = await mountDemo({ scenario: 'incident', columns, rows });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('Sessions: problems first (failed, degraded, stale, orphaned, then ok), each with its REASON', async () => {
      await home(t);
      const f = await t.waitFor('REASON');
      fits(f, columns, rows);
      const sids = sidsOf(f);
      expect(sids.slice(0, 2).sort()).toEqual(['3', '7']);
      expect(sids.slice(2)).toEqual(['2', '4', '5', '1', '6']);
      expect(rowOf(f, 3)).toMatch(/✗ failed\s+sdc transp/);
      expect(rowOf(f, 2)).toMatch(/! degraded map mpatha los/);
      expect(rowOf(f, 4)).toMatch(/△ stale\s+✓ ok\s+no kubelet vol/);
      expect(rowOf(f, 7)).toMatch(/✗ failed\s+portal 10\.0\.0\./);
      // Nothing wrong, nothing said.
      expect(rowOf(f, 1)).toMatch(/✓ ok\s*$/);
      // What is wrong beats IFACE and HOST at 80 columns.
      if (columns < 100) expect(f).not.toMatch(/IFACE|HOST/);
      else expect(f).toMatch(/IFACE.*HOST/);
    });

    it('HEALTH sorts by severity; an explicit column sort still works', async () => {
      await home(t);
      // SID is the first column; HEALTH is reached with `<` from the start (the last visible columns).
      await t.press('>');
      let f = await t.waitFor('SID▲');
      expect(sidsOf(f)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
      t.ui.setState({ sort: { ...t.ui.getState().sort, sessions: { column: 'health', desc: false } } });
      f = await t.waitFor('HEALTH▲');
      const sids = sidsOf(f);
      expect(sids.slice(0, 2).sort()).toEqual(['3', '7']);
      expect(sids[2]).toBe('2');
      // Within ok health, problems (stale 4, orphaned 5) before the rest.
      expect(sids.slice(3, 5).sort()).toEqual(['4', '5']);
      expect(sids.slice(5).sort()).toEqual(['1', '6']);
    });

    it('the summary line sits under the banner; the dead portal is said once on screen', async () => {
      await home(t);
      const f = await t.waitFor('OUTAGE');
      const lines = f.split('\n');
      expect(lines[2]).toMatch(/^↯ OUTAGE portal 10\.0\.0\.12:3260 down/);
      // At 80 columns the banner's time wraps onto a line of its own, with its zone.
      const banner = columns < 160 ? 2 : 1;
      if (banner === 2) expect(lines[3]).toMatch(/^ {2}first seen down .* UTC\s*$/);
      const summary = lines[2 + banner]!;
      expect(summary).toMatch(/^✗ 2 failed · 1 degraded · 1 stale · 1 orphaned/);
      expect(
        lines
          .slice(0, 3 + banner)
          .join('\n')
          .match(/10\.0\.0\.12:3260 down/g),
      ).toHaveLength(1);
      // The common IQN prefix is shown once, in the summary line; tables elide it.
      expect(summary).toContain('iqn.2026-01.lab.example:…');
      expect(lines.slice(3 + banner).join('\n')).not.toContain('iqn.2026-01.lab.example:');
      fits(f, columns, rows);
    });

    it('the tab bar keeps the active view and its "n of m" counter whole', async () => {
      await home(t);
      let f = await t.waitFor('1 of 7');
      // The order follows the counter: ▼SEVERITY, in 4 cells when narrow, the tabs keeping their names.
      expect(f.split('\n')[1]).toMatch(/\[1 sessions\] 2 ta.* 1 of 7 (· )?▼SEV(ERITY)?$/);
      await t.press('3');
      f = await t.waitFor('[3 volumes]');
      expect(f.split('\n')[1]).toMatch(/ 1 of 4( (· )?▼SEV(ERITY)?)?$/);
    });

    it('Volumes: a failed or orphaned volume is never ✓; rows are told apart by their dir name', async () => {
      await t.press('3');
      const f = await t.waitFor('GLOBAL DIR');
      fits(f, columns, rows);
      const body = f.split('\n').filter((l) => /-lun-1 /.test(l));
      expect(body).toHaveLength(4);
      // Problems first: metrics-tsdb (failed), kafka-data (degraded), grafana-data (orphaned), postgres-data.
      expect(body[0]).toMatch(/ics-tsdb-lun-1 .*✗ portal 10\.0\.0\.12/);
      expect(body[1]).toMatch(/fka-data-lun-1 .*! sid 2: map mpatha/);
      expect(body[2]).toMatch(/ana-data-lun-1 .*! kubelet dir, no/);
      expect(body[3]).toMatch(/res-data-lun-1 .*✓$/);
      const dirs = body.map((l) => l.slice(2).split(/\s+/)[0]);
      expect(new Set(dirs).size).toBe(4);
      // Cut at the start, on a boundary: the volume's name and LUN stay whole (never `326…ics-tsdb`).
      for (const name of ['metrics-tsdb', 'kafka-data', 'grafana-data', 'postgres-data'])
        expect(dirs.some((d) => d?.endsWith(`${name}-lun-1`))).toBe(true);
    });

    it('Targets agree with Volumes: kafka-data on 10.0.0.11 is in kubelet; problems first', async () => {
      await t.press('2');
      const f = await t.waitFor('[2 targets]');
      fits(f, columns, rows);
      // Each target's portals are the rows under it (├/└).
      const lines = f.split('\n');
      const kafka = lines.findIndex((l) => /…:kafka-data\s+2\/2 portals logged in/.test(l));
      const kafka11 = lines.slice(kafka + 1, kafka + 3).find((l) => /[├└]\s+10\.0\.0\.11:3260/.test(l))!;
      expect(kafka11).toMatch(/✗ sdc transp/);
      expect(kafka11).not.toContain('not in kubelet');
      const first = f.split('\n').find((l) => l.startsWith('› '))!;
      expect(first).toMatch(/…:metrics-tsdb\s+0\/1 portal logged in/);
      const backup = f.split('\n').find((l) => l.includes('…:nightly-backup'))!;
      expect(backup).toMatch(/! not in kubelet/);
    });

    it('Devices: the blocked disk and the degraded map lead, with the why', async () => {
      await t.press('4');
      const f = await t.waitFor('[4 devices]');
      fits(f, columns, rows);
      // A map leads its paths (├/└), so the failed path sdc sits under the degraded map.
      const lines = f.split('\n').filter((l) => /^.{2}([├└] )?(sd|dm-)/.test(l));
      expect(lines[0]).toMatch(/^.{2}sdg .*blocked.*✗ sdg blocked/);
      // sdc is one path of mpatha, whose other path runs: degraded, as its map (problems.ts).
      expect(lines[1]).toMatch(/^.{2}dm-0 mpatha .*! map mpatha/);
      expect(lines[2]).toMatch(/^.{2}├ sdb .*running/);
      expect(lines[3]).toMatch(/^.{2}└ sdc .*transport-offline.*! sdc trans/);
    });

    it('`/` completes field names, lists them, and names an unknown field', async () => {
      await home(t);
      await t.press('/');
      await t.type('hea');
      let f = await t.waitFor('tab completes: health');
      await t.press(KEY.tab);
      f = await t.waitFor('/ health=');
      await t.type('failed|degraded');
      f = await t.waitFor('1 of 3 (7 total)');
      expect(sidsOf(f).slice(0, 2).sort()).toEqual(['3', '7']);
      await t.press(KEY.enter);
      await home(t);
      await t.press('/');
      await t.type('foo=bar');
      f = await t.waitFor('unknown field foo');
      expect(f).toContain('fields: sid, target');
      await t.press(KEY.enter);
    });

    it('`:` completes a filter field after a view name', async () => {
      await home(t);
      await t.press(':');
      await t.type('volumes pro');
      // The chosen completion is bracketed without colours.
      await t.waitFor(/:volumes pro\s+\[?problems/);
      await t.press(KEY.tab);
      await t.waitFor(':volumes problems=');
      await t.type('orph');
      await t.press(KEY.enter);
      const f = await t.waitFor('1 of 1 (4 total)');
      expect(f).toContain('ana-data-lun-1');
    });
  });
}

describe('the first frame (first look, before the full read)', () => {
  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: pending sessions show … and no problem; the summary says it is reading`, async () => {
      const { host, close } = await openSimHost({ scenario: 'incident', clock: 'manual' });
      const backend = createConsoleBackend({
        host,
        kubeletRoot: '/var/lib/kubelet',
        stateDir: '/var/log/iscsi-console',
        refreshMs: 60_000,
        exec: 'direct',
      });
      const ui = createUiStore({ write: false, dryRun: false });
      const t = renderTui(
        <ConsoleApp backend={backend} ui={ui} theme={MONO_THEME} hostname="sim-node-1" clock={() => 0} />,
        { columns, rows },
      );
      try {
        expect(backend.store.getState().snapshot?.partial).toBeDefined();
        const f = await t.waitFor('REASON');
        fits(f, columns, rows);
        expect(f.split('\n')[2]).toMatch(/^✓ reading 7 sessions…/);
        expect(f).not.toMatch(/✗|! degraded|no kubelet/);
        expect(f).toMatch(/… reading/);
        // Still the session order (nothing is judged yet).
        expect(sidsOf(f)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
      } finally {
        t.unmount();
        await backend.stop();
        await close();
      }
    });
  }
});

describe('CSI volumes on --demo csi', () => {
  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: each CSI row leads with its PV, so no two rows read alike`, async () => {
      const t = await mountDemo({ scenario: 'csi', columns, rows });
      try {
        await t.press('3');
        const f = await t.waitFor('GLOBAL DIR');
        fits(f, columns, rows);
        const cells = f
          .split('\n')
          .filter((l) => /^.{2}pvc?-/.test(l))
          .map((l) =>
            l
              .slice(2)
              .split(/\s(?=yes|no\s)/)[0]!
              .trim(),
          );
        expect(cells.length).toBeGreaterThan(2);
        expect(new Set(cells).size).toBe(cells.length);
        expect(f).toMatch(/^.{2}pv-csi-web /m);
      } finally {
        await t.close();
      }
    }, 60_000);
  }
});
