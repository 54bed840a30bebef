/**
 * Plans never truncate what the admin consents to: every line of a plan wraps to the dialog's width
 * (continuation lines indented, commands broken between words with the shell's ` \`), so the
 * incident's cleanup plan reads `--logout` and `-o delete` in full at 80 and at 160 columns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/engine/actions/types.js';
import { planLines, progressLines, wrapLines } from '../../src/ui/dialogs/plan-lines.js';
import { CUT_MARK, wrapLine } from '../../src/ui/dialogs/wrap-lines.js';
import { type SimEnv, simEnv } from '../actions/helpers.js';

/** The command of a wrapped command line: pieces joined, the shell continuations and indents gone. */
const unwrapCommand = (lines: readonly string[]): string =>
  lines.map((l, i) => (i === 0 ? l : l.trimStart()).replace(/ \\$/, '')).join(' ');

describe('wrapLine', () => {
  it('leaves a line that fits as it is', () => {
    expect(wrapLine('  short', 80)).toEqual(['  short']);
    expect(wrapLine('x'.repeat(200), 0)).toEqual(['x'.repeat(200)]);
  });

  it('breaks prose at spaces with continuation lines indented below the line', () => {
    const text = `  [outage, can be overridden] ${'word '.repeat(30).trim()}`;
    const out = wrapLine(text, 40);
    expect(out.length).toBeGreaterThan(1);
    for (const l of out) expect([...l].length).toBeLessThanOrEqual(40);
    for (const l of out.slice(1)) expect(l.startsWith('    ')).toBe(true);
    expect(out.map((l) => l.trim()).join(' ')).toBe(text.trim());
  });

  it('breaks a command between its words, each broken line ending in the shell continuation', () => {
    const cmd =
      '   3. $ iscsiadm -m node -p 10.0.0.10:3260 -T iqn.2026-01.lab.example:old-logs --logout -I default';
    const out = wrapLine(cmd, 50, { command: true });
    expect(out.length).toBeGreaterThan(1);
    for (const l of out) expect([...l].length).toBeLessThanOrEqual(50);
    for (const l of out.slice(0, -1)) expect(l.endsWith(' \\')).toBe(true);
    // Continuations sit under the command, past the `$`.
    for (const l of out.slice(1)) expect(l.startsWith(' '.repeat(9))).toBe(true);
    expect(unwrapCommand(out)).toBe(cmd);
    expect(out.some((l) => l.includes('iqn.2026-01.lab.example:old-logs'))).toBe(true);
  });

  it('keeps a quoted word (spaces and all) in one piece', () => {
    const cmd = `  1. $ echo 'a b c d e f' > /sys/class/scsi_host/host3/scan`;
    const out = wrapLine(cmd, 44, { command: true });
    expect(out.some((l) => l.includes(`'a b c d e f'`))).toBe(true);
    expect(unwrapCommand(out)).toBe(cmd);
  });

  it('cuts a word longer than a line with a mark, losing no character', () => {
    const long = `iqn.2026-01.${'x'.repeat(120)}:tail`;
    const out = wrapLine(`  $ iscsiadm -T ${long}`, 40, { command: true });
    for (const l of out) expect([...l].length).toBeLessThanOrEqual(40);
    const cut = out.filter((l) => l.endsWith(CUT_MARK));
    expect(cut.length).toBeGreaterThan(1);
    const joined = out
      .map((l) =>
        l
          .trim()
          .replace(/ \\$/, '')
          .replace(new RegExp(`${CUT_MARK}$`), ''),
      )
      .join('');
    expect(joined).toContain(long);
  });
});

describe('wrapLines', () => {
  it('wraps any dialog line, keeping its tone on every piece', () => {
    const out = wrapLines([{ text: `error: ${'x '.repeat(60).trim()}`, tone: 'bad' }, { text: 'short' }], 40);
    expect(out.length).toBeGreaterThan(2);
    for (const l of out) expect([...l.text].length).toBeLessThanOrEqual(40);
    expect(out.filter((l) => l.tone === 'bad')).toHaveLength(out.length - 1);
    expect(out.at(-1)).toEqual({ text: 'short' });
  });
});

describe('the incident cleanup plan of session 4 at 80 and 160 columns', () => {
  let env: SimEnv;
  let plan: Plan;
  beforeAll(async () => {
    env = await simEnv('incident');
    plan = env.plan('cleanup', ['4']);
  });
  afterAll(() => env.close());

  for (const columns of [80, 160]) {
    it(`${columns} columns: every line fits, nothing is cut, both iscsiadm steps read in full`, () => {
      const width = columns - 4; // the dialog's border and padding
      const lines = planLines(plan, undefined, width).map((l) => l.text);
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
      expect(lines.join('\n')).not.toContain('…');
      for (const step of plan.steps.filter((s) => s.argv)) {
        const want = `$ ${step.argv!.join(' ')}`;
        const first = lines.findIndex((l, i) => l.includes('$ ') && unwrapFrom(lines, i) === want);
        expect(first, step.id).toBeGreaterThanOrEqual(0);
      }
      const text = lines.join('\n');
      expect(text).toMatch(/--logout/);
      expect(text).toMatch(/-o delete/);
    });

    it(`${columns} columns: the progress list wraps the same commands`, () => {
      const width = columns - 4;
      const lines = progressLines(plan, [], width).map((l) => l.text);
      for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
      expect(lines.join(' ')).toContain('--logout');
      expect(lines.join(' ')).toContain('delete');
    });
  }

  it('the unwrapped plan (width 0) is the engine text, line for line', () => {
    const lines = planLines(plan).map((l) => l.text);
    expect(lines.some((l) => l.includes(`$ ${plan.steps[2]!.argv!.join(' ')}`))).toBe(true);
  });
});

/** The command starting at line `i` (from its `$`), its continuation lines joined back. */
function unwrapFrom(lines: readonly string[], i: number): string {
  const parts: string[] = [lines[i]!.slice(lines[i]!.indexOf('$ '))];
  let j = i;
  while (lines[j]!.endsWith(' \\')) {
    parts[parts.length - 1] = parts[parts.length - 1]!.replace(/ \\$/, '');
    j++;
    parts.push(lines[j]!.trim());
  }
  return parts.join(' ');
}
