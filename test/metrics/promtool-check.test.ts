/**
 * `promtool check metrics` (Debian's prometheus package) on `metrics` for every --demo scenario and
 * for hostile --root trees: target names with `"`, `\`, newline, ESC, invalid UTF-8 and 300 bytes.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { SCENARIOS } from '../../src/sim/index.js';
import { captureOutput } from '../helpers/capture-output.js';
import { HOSTILE_NAME } from '../helpers/hostile-text.js';
import { promtoolCheckMetrics } from '../helpers/prometheus-tools.js';
import { FixtureRoot, iscsiJson, P1 } from '../snapshot/fixture-root.js';

async function metrics(argv: string[]): Promise<string> {
  const c = captureOutput();
  const code = await main(['metrics', ...argv], c);
  expect(code, c.err).toBe(0);
  return c.out;
}

async function expectPromtoolClean(text: string): Promise<void> {
  const r = await promtoolCheckMetrics(text);
  expect(r.output).toBe('');
  expect(r.code).toBe(0);
}

describe('promtool check metrics: every --demo scenario', () => {
  for (const { name } of SCENARIOS) {
    it(name, { timeout: 180_000 }, async () => {
      const text = await metrics(['--demo', name]);
      expect(text).toContain('# TYPE iscsi_session_state gauge');
      await expectPromtoolClean(text);
    });
  }
});

const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

/** A real-capture root whose target name (and the kubelet dir made from it) is `name` (bytes). */
function rootNamed(name: Buffer): FixtureRoot {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  const fd = openSync(f.at('/sys/class/iscsi_session/session1/targetname'), 'w');
  writeSync(fd, Buffer.concat([name, Buffer.from('\n')]));
  closeSync(fd);
  return f;
}

describe('promtool check metrics: hostile trees', () => {
  const names: [string, Buffer][] = [
    ['quote, backslash, newline, ESC and bidi controls', Buffer.from(`${HOSTILE_NAME}"\\x`)],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('iqn.2024-01.lab.example:bad'), Buffer.from([0xff, 0xfe, 0xc3])]),
    ],
    ['300 bytes', Buffer.from(`iqn.2024-01.lab.example:${'n'.repeat(300 - 24)}`)],
  ];
  for (const [what, bytes] of names) {
    it(what, async () => {
      expect(bytes.length).toBeGreaterThan(20);
      const f = rootNamed(bytes);
      const text = await metrics(['--root', f.root]);
      await expectPromtoolClean(text);
      expect(text).toMatch(/^iscsi_session_info\{/m);
    });
  }

  it('a hostile name is escaped exactly as the format says (\\\\, \\", \\n) and kept otherwise', async () => {
    const name = 'iqn.2024-01.lab.example:a"b\\c\nd\x1be';
    const f = rootNamed(Buffer.from(name));
    f.fsVolume(P1, name, 1, iscsiJson('pv-hostile', [P1], name, 1));
    const text = await metrics(['--root', f.root]);
    expect(text).toContain('target="iqn.2024-01.lab.example:a\\"b\\\\c\\nd\x1be"');
    await expectPromtoolClean(text);
  });

  it('a 2 KiB target name is cut to 1 KiB with a marker', async () => {
    const f = rootNamed(Buffer.from(`iqn.2024-01.lab.example:${'x'.repeat(2048)}`));
    const text = await metrics(['--root', f.root]);
    const m = /target="([^"]*)"/.exec(text);
    expect(m).not.toBeNull();
    expect(Buffer.byteLength(m![1]!)).toBeLessThanOrEqual(1024);
    expect(m![1]!.endsWith('…[cut]')).toBe(true);
    await expectPromtoolClean(text);
  });
});
