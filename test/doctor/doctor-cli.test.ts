import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import type { DoctorReport } from '../../src/engine/doctor/types.js';
import { FixtureNode } from './fixture-node.js';

let node: FixtureNode;
let bin: string;
const savedPath = process.env.PATH;

/** Fake open-iscsi tools on PATH, so the real runner (execa) answers `--version` here. */
function fakeTools(iscsiadm: string, iscsid: string): void {
  for (const [tool, version] of [
    ['iscsiadm', iscsiadm],
    ['iscsid', iscsid],
  ] as const) {
    const p = join(bin, tool);
    writeFileSync(p, `#!/bin/sh\necho "${tool} version ${version}"\n`);
    chmodSync(p, 0o755);
  }
}

function capture(isTTY = false): Output & { text: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    isTTY,
    text: () => out,
    err: () => err,
  };
}

beforeAll(() => {
  bin = join(process.cwd(), 'test', 'fixtures', 'doctor', `bin-${process.pid}`);
  mkdirSync(bin, { recursive: true });
  process.env.PATH = `${bin}:${savedPath}`;
});
afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(bin, { recursive: true, force: true });
});
beforeEach(() => {
  node = new FixtureNode();
  fakeTools('2.1.8', '2.1.8');
});
afterEach(() => node.cleanup());

describe('iscsi-console doctor', () => {
  it('--json prints {schemaVersion:1, checks, summary} and exits 0 when nothing fails', async () => {
    const out = capture();
    const code = await main(['doctor', '--root', node.root, '--json'], out);
    expect(out.err()).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(out.text()) as DoctorReport;
    expect(Object.keys(report)).toEqual(['schemaVersion', 'checks', 'summary']);
    expect(report.schemaVersion).toBe(1);
    expect(report.summary.ok).toBe(true);
    expect(report.checks.find((c) => c.id === 'iscsi.versions')?.evidence).toBe(
      'iscsiadm 2.1.8, iscsid 2.1.8',
    );
    for (const c of report.checks) {
      expect(Object.keys(c).sort()).toEqual(
        ['evidence', c.hint ? 'hint' : '', 'id', c.source ? 'source' : '', 'status', 'title'].filter(Boolean),
      );
    }
  });

  it('exits 3 when a check fails, and prints one plain line per check with --no-color', async () => {
    fakeTools('2.1.8', '2.0.874');
    const out = capture(true);
    const code = await main(['doctor', '--root', node.root, '--no-color'], out);
    expect(code).toBe(3);
    const text = out.text();
    expect(text).not.toContain('\u001b[');
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('doctor: 23 ok, 0 warnings, 1 failed, 3 skipped');
    const versions = lines.find((l) => l.includes('versions differ'));
    expect(versions).toMatch(
      /^✗ iscsiadm and iscsid versions differ +iscsiadm 2\.1\.8, iscsid 2\.0\.874 {2}hint: /,
    );
    expect(lines.filter((l) => l.startsWith('✓ '))).toHaveLength(23);
    expect(lines.filter((l) => l.startsWith('- '))).toHaveLength(3);
  });

  it('colours the symbols on a terminal and not when output is piped', async () => {
    const tty = capture(true);
    await main(['doctor', '--root', node.root], tty);
    expect(tty.text()).toContain('\u001b[32m✓\u001b[0m');
    const piped = capture(false);
    await main(['doctor', '--root', node.root], piped);
    expect(piped.text()).not.toContain('\u001b[');
  });

  it('reports a missing iscsiadm as a failure with the exec hint (exit 3), not a crash', async () => {
    rmSync(join(bin, 'iscsiadm'));
    process.env.PATH = bin; // no iscsiadm anywhere on PATH
    const out = capture();
    try {
      const code = await main(['doctor', '--root', node.root, '--json'], out);
      expect(code).toBe(3);
      const versions = (JSON.parse(out.text()) as DoctorReport).checks.find((c) => c.id === 'iscsi.versions');
      expect(versions).toMatchObject({
        status: 'fail',
        evidence: 'iscsiadm not found (ENOENT), iscsid 2.1.8',
      });
      expect(versions?.hint).toContain('--root /host --exec nsenter');
    } finally {
      process.env.PATH = `${bin}:${savedPath}`;
    }
  });
});
