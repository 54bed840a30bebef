/**
 * Layout by content, at 80×24 and 160×45: columns as wide as their content with REASON growing
 * first and no blank columns; every cut text reachable in full (a session's detail wraps, Doctor
 * rows open into their evidence, fix and source); kubelet dir names cut on a boundary that keeps
 * the volume's name; two different targets never cut to the same text. Expected texts are written
 * from what the `--demo incident` scenario and the fixtures below hold.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DoctorCheck, DoctorReport } from '../../src/engine/doctor/types.js';
import { Table } from '../../src/ui/components/table.js';
import { MONO_THEME } from '../../src/ui/theme.js';
import { SESSION_COLUMNS, sessionRows } from '../../src/ui/views/sessions.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { fakeBackend, session } from './helpers/fixtures.js';
import { type Mounted, mountConsole } from './helpers/mount.js';
import { KEY, renderTui } from './helpers/render-tui.js';

const SIZES = [
  [80, 24],
  [160, 45],
] as const;

const lines = (frame: string) => frame.split('\n').map((l) => l.trimEnd());

/** The table's body rows: the lines after the header that hold a row (gutter, then a cell). */
function bodyRows(frame: string, header: string): string[] {
  const all = lines(frame);
  const h = all.findIndex((l) => l.includes(header));
  const out: string[] = [];
  for (const l of all.slice(h + 1)) {
    // The strip under the table (the cursor row's cut cells: `› PROBLEMS …`) is not a row.
    if (l.trim() === '' || !/^[ ›][ *]/.test(l) || /^› [A-Z][A-Z/ ]* /.test(l)) break;
    out.push(l);
  }
  return out;
}

/**
 * The blank cells every row of a column carries (the fewest over its rows, at the end of a left
 * cell or the start of a right one): a column sized by its content carries at most the one cell
 * kept for the sort arrow.
 */
function columnWaste(frame: string, titles: readonly string[]): Record<string, number> {
  const header = lines(frame).find((l) => titles.every((t) => l.includes(t)))!;
  const starts: number[] = [];
  for (const t of titles) starts.push(header.indexOf(t, starts.length ? starts.at(-1)! + 1 : 0));
  const rows = bodyRows(frame, header);
  const waste: Record<string, number> = {};
  titles.slice(0, -1).forEach((t, i) => {
    // A right-aligned title ends where the column ends: its cells start at the previous column's end.
    const from = i === 0 ? starts[0]! : Math.min(starts[i]!, starts[i - 1]! + 1);
    waste[t] = Math.min(
      ...rows.map((r) => {
        const cell = r.slice(from, starts[i + 1]! - 1).padEnd(starts[i + 1]! - 1 - from);
        return Math.min(cell.length - cell.trimEnd().length, cell.length - cell.trimStart().length);
      }),
    );
  });
  return waste;
}

describe('layout on --demo incident', () => {
  let t: DemoConsole | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: REASON grows first and keeps its text; no column carries blank cells`, async () => {
      t = await mountDemo({ scenario: 'incident', columns, rows });
      const f = await t.waitFor('REASON');
      const body = bodyRows(f, 'REASON');
      // The reasons of the demo's degraded, offline and stale sessions, whole.
      for (const reason of ['map mpatha lost path sdc', 'sdc transport-offline', 'no kubelet volume'])
        expect(body.some((l) => l.endsWith(` ${reason}`))).toBe(true);
      const reasonAt = lines(f)
        .find((l) => l.includes('REASON'))!
        .indexOf('REASON');
      // Today's 14 cells at 80 columns: now what the floors of the other columns leave.
      expect(columns - reasonAt).toBeGreaterThanOrEqual(columns === 80 ? 25 : 55);
      if (columns === 160) {
        expect(body.some((l) => l.endsWith(' portal 10.0.0.12:3260 down; session FAILED; sdg blocked'))).toBe(
          true,
        );
        const w = columnWaste(f, [
          'SID',
          'TARGET',
          'PORTAL',
          'IFACE',
          'STATE',
          'HOST',
          'LUN/DEV',
          'VERDICT',
          'HEALTH',
          'REASON',
        ]);
        for (const [title, n] of Object.entries(w)) expect(n, title).toBeLessThanOrEqual(1);
      }
    }, 60_000);

    it(`${columns}×${rows}: Targets, Records and Volumes carry no blank columns`, async () => {
      t = await mountDemo({ scenario: 'incident', columns, rows });
      await t.press('2');
      let f = await t.waitFor('[2 targets]');
      const targetTitles =
        columns === 160
          ? ['TARGET', 'PORTAL', 'HOST', 'SID', 'STATE', 'PATHS', 'PROBLEMS']
          : ['TARGET', 'PORTAL', 'HOST', 'SID', 'STATE', 'PROBLEMS'];
      for (const [title, n] of Object.entries(columnWaste(f, targetTitles)))
        expect(n, title).toBeLessThanOrEqual(1);
      await t.press('5');
      f = await t.waitFor('[5 records]');
      for (const [title, n] of Object.entries(
        columnWaste(f, ['KIND', 'TARGET / IFACE', 'PORTAL', 'STARTUP']),
      ))
        expect(n, title).toBeLessThanOrEqual(1);
      // The longest target name of the demo, whole (the node's common prefix is elided).
      expect(f).toMatch(/node {2}…:nightly-backup 10\.0\.0\.11:3260 /);
      await t.press('3');
      f = await t.waitFor('[3 volumes]');
      const vol =
        columns === 160
          ? ['GLOBAL DIR', 'MODE', 'LUN', 'MOUNTED', 'METADATA', 'SIDS', 'PODS', 'PROBLEMS']
          : ['GLOBAL DIR', 'MOUNTED', 'SIDS', 'PODS', 'PROBLEMS'];
      for (const [title, n] of Object.entries(columnWaste(f, vol))) expect(n, title).toBeLessThanOrEqual(1);
    }, 60_000);

    it(`${columns}×${rows}: kubelet dir names keep the volume's name and LUN`, async () => {
      t = await mountDemo({ scenario: 'incident', columns, rows });
      await t.press('3');
      const f = await t.waitFor('GLOBAL DIR');
      const dirs = bodyRows(f, 'GLOBAL DIR').map((l) => l.slice(2).split(' ')[0]);
      const want =
        columns === 160
          ? [
              '10.0.0.12:3260-…:metrics-tsdb-lun-1',
              '10.0.0.10:3260-…:kafka-data-lun-1',
              '10.0.0.11:3260-…:grafana-data-lun-1',
              '10.0.0.10:3260-…:postgres-data-lun-1',
            ]
          : ['…:metrics-tsdb-lun-1', '…:kafka-data-lun-1', '…:grafana-data-lun-1', '…postgres-data-lun-1'];
      expect(dirs).toEqual(want);
      expect(f).not.toMatch(/:326…/);
    }, 60_000);

    it(`${columns}×${rows}: a session's detail wraps its mount path instead of cutting it`, async () => {
      t = await mountDemo({ scenario: 'incident', columns, rows });
      await t.press('/');
      await t.type('sid=2');
      await t.press(KEY.enter);
      await t.waitFor('1 of 1');
      await t.press(KEY.enter);
      let f = await t.waitFor('Session 2');
      const seen: string[] = [];
      for (let i = 0; i < 8; i++) {
        seen.push(...lines(f));
        if (!f.includes('more lines')) break;
        await t.press(KEY.pageDown);
        f = await t.waitFor((x) => x !== f);
      }
      for (const l of seen) expect(l.length).toBeLessThanOrEqual(columns);
      // The pieces, joined (a cut word ends in ↩, continuation lines are indented), read the path.
      const joined = seen
        .map((l) => l.trim())
        .join('\n')
        .replace(/↩\n/g, '');
      expect(joined).toContain(
        '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.10:3260-iqn.2026-01.lab.example:kafka-data-lun-1',
      );
    }, 60_000);
  }
});

const LONG_CHECK: DoctorCheck = {
  id: 'iscsid.replacement-timeout',
  title: 'replacement_timeout fits multipath',
  status: 'fail',
  evidence: `3 sessions under multipath have replacement_timeout 120 s: sid 2 (iqn.2026-01.lab.example:kafka-data @ 10.0.0.10:3260), sid 3 (iqn.2026-01.lab.example:kafka-data @ 10.0.0.11:3260), sid 9 (iqn.2026-01.lab.example:end-of-evidence)`,
  hint: 'set node.session.timeo.replacement_timeout = 15 in /etc/iscsi/iscsid.conf and in the records (iscsiadm -m node -T <iqn> -p <portal> -o update -n node.session.timeo.replacement_timeout -v 15); end-of-fix',
  source: 'https://github.com/open-iscsi/open-iscsi/blob/master/etc/iscsid.conf',
};

const REPORT: DoctorReport = {
  schemaVersion: 1,
  checks: [
    { id: 'iscsid.running', title: 'iscsid running', status: 'pass', evidence: 'pid 417; /run/iscsid.pid' },
    LONG_CHECK,
  ],
  summary: { pass: 1, warn: 0, fail: 1, skip: 0, ok: false },
};

/**
 * The open detail's lines from `title` to its end, each once and in order, scrolled with ↓: under
 * the fixture's two-line red banner (session 2's recovery expired) a check may not fit 24 rows, and
 * every part of it must still be reachable. The "… N more lines" marker sits on the pane's last row.
 */
async function readDetail(t: Mounted, first: string, title: string): Promise<string[]> {
  const all = lines(first);
  const top = all.findIndex((l) => l.includes(title));
  const end = all.findIndex((l) => /… \d+ more lines/.test(l));
  if (end < 0) return all.slice(top);
  const more = Number(/… (\d+) more lines/.exec(all[end]!)![1]);
  let f = first;
  for (let i = 0; i < 40 && f.includes('more lines'); i++) {
    const prev = f;
    await t.press(KEY.down);
    f = await t.waitFor((x) => x !== prev);
  }
  // At the end the pane's rows show its last lines: the `more` lines the marker stood for.
  return [...all.slice(top, end), ...lines(f).slice(end - more + 1, end + 1)];
}

describe('Doctor rows open', () => {
  let t: Mounted | undefined;
  afterEach(() => t?.unmount());

  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: ⏎ and d open a check with its evidence, fix and source, wrapped`, async () => {
      const backend = fakeBackend();
      backend.runDoctor = async () => REPORT;
      t = await mountConsole({ backend, columns, rows });
      await t.press('8');
      let f = await t.waitFor('EVIDENCE / FIX');
      expect(f).toContain('Doctor  1 ok · 0 warnings · 1 failed · 0 skipped');
      const body = bodyRows(f, 'EVIDENCE / FIX');
      expect(body[0]).toMatch(/^› ✓ iscsid running\s+pid 417; \/run\/iscsid\.pid$/);
      // The check's title (the finding) whole at both widths; the evidence takes what is left.
      expect(body[1]).toMatch(/^ {2}✗ replacement_timeout fits multipath\s+3 sessions under multipath/);
      expect(body[2]).toMatch(/^ {2} {2}↳ fix\s+set node\.session\.timeo\.replacement_timeo/);
      await t.press(KEY.down);
      await t.press('d');
      f = await t.waitFor('✗ replacement_timeout fits multipath: failed');
      const seen = await readDetail(t, f, '✗ replacement_timeout fits multipath: failed');
      for (const l of seen) expect(l.length).toBeLessThanOrEqual(columns);
      const text = seen.map((l) => l.trim()).join(' ');
      for (const part of ['Evidence', 'Fix', 'Source', LONG_CHECK.source!]) expect(text).toContain(part);
      // Evidence and fix in full: their last words are on screen, the words whole.
      expect(text).toContain('end-of-evidence)');
      expect(text).toContain('-v 15); end-of-fix');
      await t.press(KEY.escape);
      f = await t.waitFor('EVIDENCE / FIX');
      // The fix row opens the same check, with ⏎.
      await t.press(KEY.down);
      await t.press(KEY.enter);
      await t.waitFor('✗ replacement_timeout fits multipath: failed');
    });
  }
});

describe('target names', () => {
  // Two CSI-like IQNs equal in their first and last 60 characters: only the middle differs.
  const head = 'iqn.1992-08.com.netapp:sn.4a1f3c8e9d2b11eeb5c2d039ea1c7f00:vs.';
  const tail = ':trident-pvc-1111-2222-3333-4444-555566667777-from-the-csi-drv';
  const A = `${head}7-alpha-01${tail}`;
  const B = `${head}7-bravo-02${tail}`;

  for (const [columns, rows] of SIZES) {
    it(`${columns}×${rows}: two targets that share 60 characters at both ends never read alike`, async () => {
      expect(A.slice(0, 60)).toBe(B.slice(0, 60));
      expect(A.slice(-60)).toBe(B.slice(-60));
      const sessions = [session(1, A, '10.0.0.1:3260'), session(2, B, '10.0.0.1:3260')];
      const tui = renderTui(
        <Table
          columns={SESSION_COLUMNS}
          rows={sessionRows(sessions)}
          cursor={0}
          marks={new Set()}
          width={columns}
          height={rows}
          theme={MONO_THEME}
        />,
        { columns, rows },
      );
      const f = await tui.waitFor('TARGET');
      const cells = bodyRows(f, 'TARGET').map((l) => l.slice(2).trim().split(/\s+/)[1]!);
      tui.unmount();
      expect(cells).toHaveLength(2);
      expect(cells[0]).not.toBe(cells[1]);
      // Each shows where it differs from the other.
      expect(cells[0]).toContain('alpha');
      expect(cells[1]).toContain('bravo');
    });
  }
});
