/**
 * k9s/lazygit habits, truthful stamps, the journal entry and the selection marker, keys in and
 * frames out over the real app layer (`--demo incident`), at 80×24 and at 160×45:
 * `[`/`]` and ←/→ switch views (wrapping), `d` describes, `y` shows the selection as the very
 * object `status --json` prints, an unknown key flashes for a while on the console's clock, none of
 * them fire while typing, the status bar shows the last poll and the last full read apart, ⏎ on a
 * journal row opens the whole entry, and the cursor row is marked without colours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusJson } from '../../src/engine/snapshot/status-json.js';
import { helpLines } from '../../src/ui/dialogs/help-lines.js';
import { freshness } from '../../src/ui/status-bar.js';
import { VIEW_IDS } from '../../src/ui/view-store.js';
import { jqPath } from '../helpers/jq-path.js';
import { type DemoConsole, mountDemo } from './helpers/demo.js';
import { KEY } from './helpers/render-tui.js';

/** The console's clock: the simulated node's, plus what a test moved it by (no sleeping). */
let skew = 0;
let base: () => number = () => Date.now();
const clock = () => base() + skew;

/** Scrolls the open dialog down until `text` shows (at most `presses` PgDn). */
async function scrollTo(t: DemoConsole, text: string, presses = 12): Promise<string> {
  for (let i = 0; i < presses && !t.lastFrame().includes(text); i++) await t.press(KEY.pageDown);
  return t.waitFor(text);
}

/** Back to the Sessions list with nothing open, no filter, the cursor on the first row. */
async function home(t: DemoConsole): Promise<void> {
  const s = t.ui.getState();
  const filter = Object.fromEntries(Object.keys(s.filter).map((v) => [v, ''])) as typeof s.filter;
  t.ui.setState({
    dialog: undefined,
    mode: 'normal',
    detail: undefined,
    flash: undefined,
    input: '',
    marks: [],
    filter,
    // By SID, so row i is the snapshot's session i (problems come first by default).
    sort: { ...s.sort, sessions: { column: 'sid', desc: false } },
  });
  await t.press('1', 'g');
  await t.waitFor((f) => f.includes('VERDICT') && !f.includes('filter: '));
}

/**
 * esc, then a wait until it took effect: Ink holds a lone esc back for a moment (it may start a
 * sequence), so a key written right after it would read as alt+key.
 */
async function pressEscape(
  t: DemoConsole,
  done: (s: ReturnType<DemoConsole['ui']['getState']>) => boolean,
): Promise<void> {
  await t.press(KEY.escape);
  await t.waitFor(() => done(t.ui.getState()));
}
const closed = (s: { dialog?: unknown }) => s.dialog === undefined;
const normal = (s: { mode: string; dialog?: unknown }) => s.mode === 'normal' && s.dialog === undefined;

describe.each([
  { columns: 80, rows: 24 },
  { columns: 160, rows: 45 },
])('keys and stamps at $columns×$rows', (size) => {
  let t: DemoConsole;
  beforeAll(async () => {
    t = await mountDemo({ scenario: 'incident', write: true, ...size, clock });
    const { backend } = t;
    base = () => backend.now?.() ?? Date.now();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('] and → go to the next view, [ and ← to the previous, wrapping at both ends', async () => {
    await home(t);
    const last = VIEW_IDS[VIEW_IDS.length - 1]!;
    await t.press('[');
    expect(t.ui.getState().view).toBe(last);
    await t.press(']');
    expect(t.ui.getState().view).toBe('sessions');
    await t.press(KEY.right);
    expect(t.ui.getState().view).toBe(VIEW_IDS[1]);
    await t.waitFor('PORTAL');
    await t.press(KEY.left, KEY.left);
    expect(t.ui.getState().view).toBe(last);
    await t.press(']');
    expect(t.ui.getState().view).toBe('sessions');
    // `-` is still "the view before" (like cd -), not a neighbour.
    await t.press('3', '-');
    expect(t.ui.getState().view).toBe('sessions');
  }, 60_000);

  it('d describes the selection: the session detail, a volume detail', async () => {
    await home(t);
    const first = t.backend.store.getState().snapshot!.sessions[0]!;
    await t.press('d');
    expect(t.ui.getState().detail).toBe(first.key);
    await t.waitFor((f) => f.includes('esc back') && f.includes('Verdict'));
    await pressEscape(t, (s) => s.detail === undefined);
    expect(t.ui.getState().detail).toBeUndefined();
    // Every view's rows open their detail (a volume: its dirs, target, pods, sessions).
    await t.press('3', 'd');
    await t.waitFor((f) => f.includes('esc back') && /Kubelet volume|CSI volume/.test(f));
    expect(t.ui.getState().detail).toBeDefined();
    await pressEscape(t, (s) => s.detail === undefined);
  }, 60_000);

  it('y shows the selected session as the object status --json prints for it, scrollable', async () => {
    await home(t);
    await t.press('j');
    const snap = t.backend.store.getState().snapshot!;
    const i = 1;
    await t.press('y');
    const f = await t.waitFor(`JSON · status --json · .sessions[${i}]`);
    const d = t.ui.getState().dialog;
    expect(d?.kind).toBe('json');
    // The CLI's document for the same snapshot, at the path the title names.
    const doc = JSON.parse(statusJson(snap)) as { sessions: unknown[] };
    const parts = d?.kind === 'json' ? d.parts : [];
    expect(parts).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(parts[0]!.value))).toEqual(doc.sessions[i]);
    expect(f).toContain(`"sid": ${snap.sessions[i]!.sid},`);
    // Nothing is cut: the target's IQN reads whole (wrapped if it must).
    expect(f.replace(/\s*│\s*/g, '')).toContain(snap.sessions[i]!.targetIqn);
    await t.press('G');
    const end = await t.waitFor((x) => /│ ?}\s*│/.test(x));
    expect(end).not.toContain('more lines');
    await pressEscape(t, closed);
    // In a session's detail, y is that session.
    await t.press(KEY.enter, 'y');
    await t.waitFor(`.sessions[${i}]`);
    await t.press('y');
    expect(t.ui.getState().dialog).toBeUndefined();
  }, 60_000);

  it('y on a device, a map, a volume and a target shows their status --json objects', async () => {
    await home(t);
    const snap = t.backend.store.getState().snapshot!;
    const doc = JSON.parse(statusJson(snap)) as unknown;
    for (const view of ['2', '3', '4']) {
      await t.press(view, 'g', 'y');
      const d = t.ui.getState().dialog;
      expect(d?.kind).toBe('json');
      const parts = d?.kind === 'json' ? d.parts : [];
      expect(parts.length).toBeGreaterThan(0);
      for (const p of parts) {
        expect(JSON.parse(JSON.stringify(p.value))).toEqual(jqPath(doc, p.path));
      }
      await pressEscape(t, closed);
    }
  }, 60_000);

  it('an unknown key flashes "unknown key — ? for help" until the console clock moves on', async () => {
    await home(t);
    await t.press('b');
    await t.waitFor('unknown key — ? for help');
    // Still there on a re-render a moment later (the clock has not moved).
    skew += 1000;
    await t.resize(size.columns, size.rows);
    expect(t.lastFrame()).toContain('unknown key — ? for help');
    skew += 5000;
    await t.waitFor((f) => !f.includes('unknown key'));
    // An action's key on a row it does not apply to says so instead.
    await t.press('3', 'g', 'l');
    await t.waitFor('l Log out: not on this row (on session)');
    await t.press('j');
    await t.waitFor((f) => !f.includes('not on this row'));
  }, 60_000);

  it('none of the new keys fire while typing in / or :, or in a typed confirmation', async () => {
    await home(t);
    await t.press('/');
    await t.type('dy[]');
    expect(t.ui.getState().view).toBe('sessions');
    expect(t.ui.getState().dialog).toBeUndefined();
    expect(t.ui.getState().filter.sessions).toBe('dy[]');
    await pressEscape(t, normal);
    await t.press(':');
    await t.type('yd]');
    expect(t.ui.getState().input).toBe('yd]');
    expect(t.ui.getState().dialog).toBeUndefined();
    await pressEscape(t, normal);
    // The cleanup plan asks for the session id to be typed: d and y are text there.
    const stale = t.backend.store.getState().snapshot!.sessions.find((s) => s.verdict === 'stale')!;
    await t.press('/');
    await t.type('verdict=stale');
    await t.press(KEY.enter, 'c');
    await t.waitFor(`Type ${stale.sid} to apply on`);
    await t.press('y', 'd', ']');
    const d = t.ui.getState().dialog;
    expect(d?.kind).toBe('plan');
    expect(d?.kind === 'plan' ? d.typed : '').toBe('yd]');
    await pressEscape(t, closed);
  }, 60_000);

  it('? help lists [ ] ← → d y, and no action key is shadowed', async () => {
    await home(t);
    const text = helpLines(t.backend.actions, true)
      .map((l) => l.text)
      .join('\n');
    expect(text).toContain('tab/]/→');
    expect(text).toContain('shift-tab/[/←');
    expect(text).toMatch(/\bd\s+Describe/);
    expect(text).toMatch(/\by\s+The selection as JSON/);
    expect(text).not.toContain('key collision');
    await t.press('?');
    await scrollTo(t, 'Describe');
    await scrollTo(t, 'The selection as JSON');
    await pressEscape(t, closed);
  }, 60_000);

  it('the status bar shows the last poll and the last full read apart, compact at 80 columns', async () => {
    await home(t);
    const now = clock();
    const h = t.backend.store.getState().health;
    t.backend.store.setState({ health: { ...h, lastPollAt: now - 5000, lastFullReadAt: now - 200_000 } });
    const wide = size.columns >= 120;
    const want = wide
      ? /polled +[4-6]s ago · full read 3m[12]\ds ago/
      : /polled +[4-6]s · full 3m[12]\ds ago/;
    const f = await t.waitFor(want);
    const bar = f.split('\n')[0]!;
    expect(bar.length).toBeLessThanOrEqual(size.columns);
    expect(bar).toMatch(want);
    expect(bar).not.toContain('⟳ read ');
    t.backend.store.setState({ health: h });
  }, 60_000);

  it('the cursor row is marked with › in plain text (what NO_COLOR leaves), the palette choice bracketed', async () => {
    await home(t);
    const rowsOf = (f: string) => f.split('\n').filter((l) => /^[› ][* ]\s+\d+ /.test(l));
    let rows = rowsOf(t.lastFrame());
    expect(rows[0]!.startsWith('›')).toBe(true);
    expect(rows.slice(1).every((l) => !l.startsWith('›'))).toBe(true);
    await t.press('j');
    rows = rowsOf(await t.waitFor((f) => rowsOf(f)[1]?.startsWith('›') === true));
    expect(rows[1]!.startsWith('›')).toBe(true);
    expect(rows.filter((l) => l.startsWith('›'))).toHaveLength(1);
    await t.press(':');
    await t.type('ses');
    await t.waitFor('[sessions]');
    await pressEscape(t, normal);
  }, 60_000);

  // Last: it changes the node (a rescan) and leaves a journal entry.
  it('⏎ on a journal row opens the whole entry; the footer offers ⏎ only where it opens something', async () => {
    await home(t);
    const target = t.backend.store.getState().snapshot!.sessions.find((s) => s.state === 'LOGGED_IN')!;
    t.ui.setState({ cursor: { ...t.ui.getState().cursor, sessions: { key: target.key, index: 0 } } });
    await t.press('r');
    await t.waitFor('Plan: Rescan');
    await t.press('y');
    await t.waitFor(/Rescan session (succeeded|failed)/, 30_000);
    await t.press(KEY.enter);
    await t.press('3');
    // A volume opens its detail: the footer offers ⏎ there.
    await t.waitFor((f) => f.includes('GLOBAL DIR') && f.includes('⏎ detail'));
    await t.press('7');
    await t.waitFor((f) => f.includes('rescan') && f.includes('⏎ detail'));
    // One read, as over SSH or tmux send-keys: the ⏎ after G still opens the entry.
    await t.press('G\r');
    let f = await t.waitFor('Journal entry');
    expect(t.ui.getState().dialog?.kind).toBe('journal-entry');
    expect(f).toMatch(/rescan: session \d+/);
    expect(f).toMatch(/✓ succeeded|✗ failed/);
    f = await scrollTo(t, 'Steps run');
    f = await scrollTo(t, `$ iscsiadm -m session -r ${target.sid} --rescan`);
    expect(f).toMatch(/→ exit 0/);
    expect(f).not.toMatch(/exit 0 exit 0/);
    for (const line of f.split('\n')) expect([...line].length).toBeLessThanOrEqual(size.columns);
    await pressEscape(t, closed);
    // d opens it too, and y shows its journal lines.
    await t.press('d');
    expect(t.ui.getState().dialog?.kind).toBe('journal-entry');
    await pressEscape(t, closed);
    await t.press('y');
    await t.waitFor('JSON · the journal file · 2 objects');
    await pressEscape(t, closed);
  }, 90_000);
});

describe('freshness', () => {
  it('says both stamps, spelled out when wide and compact when not, and what is missing', () => {
    expect(freshness(10_000, 9_000, 10_000 - 125_000, true)).toBe('polled    1s ago · full read 2m05s ago');
    // The same width at 9 s and at 10 s: the header does not jitter.
    expect(freshness(20_000, 11_000, 10_000, false).length).toBe(
      freshness(20_000, 10_000, 10_000, false).length,
    );
    expect(freshness(10_000, 9_000, 10_000 - 125_000, false)).toBe('polled    1s · full 2m05s ago');
    expect(freshness(10_000, undefined, undefined, true)).toBe('not read yet');
    expect(freshness(10_000, 9_000, undefined, true)).toBe('polled    1s ago · no full read yet');
  });
});
