import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';
import { FixtureRoot, IQN2, iscsiJson, P2 } from '../snapshot/fixture-root.js';

// Confinement (docs/read-limits.md#confinement-under---root) end to end through the CLI: a hostile --root tree with --write --yes --exec direct
// changes nothing outside the root, status never prints a file from outside it, and a root that is
// not a node (or --write under a root without --exec) is a usage error (exit 2).

const SECRET = 'root:$6$OUTSIDE-SECRET-HASH:19000:0:99999:7:::\n';
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const capture = captureOutput;

function fixture(): FixtureRoot {
  const f = new FixtureRoot('single-sysfs.json');
  cleanups.push(() => f.cleanup());
  return f;
}

function outsideDir(): string {
  const d = fs.mkdtempSync(path.join(tmpdir(), 'confine-outside-'));
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  fs.writeFileSync(path.join(d, 'shadow'), SECRET);
  return d;
}

const UP = '../'.repeat(30);
const WRITE = ['--write', '--yes', '--exec', 'direct', '--state-dir', '/state'];

describe('a hostile --root with --write changes nothing outside it', () => {
  for (const kind of ['absolute', 'relative'] as const) {
    it(`delete-device: device/delete is an ${kind} link out of the root`, async () => {
      const f = fixture();
      const out = outsideDir();
      // Not running: the plan is the sysfs write alone (no blockdev on this machine).
      f.setAttr('/sys/block/sda/device/state', 'offline\n');
      const del = `${fs.realpathSync(f.at('/sys/block/sda/device'))}/delete`;
      fs.rmSync(del, { force: true });
      fs.symlinkSync(
        kind === 'absolute' ? path.join(out, 'shadow') : `${UP}${path.relative('/', out)}/shadow`,
        del,
      );
      const o = capture();
      const code = await main(['delete-device', 'sda', '--root', f.root, ...WRITE], o);
      expect(code, o.err).not.toBe(0);
      // The executor's guard refuses the write before the Host's own confinement (ENOENT) is reached.
      expect(o.err).toMatch(/refused by the guard \[path\]/);
      expect(fs.readFileSync(path.join(out, 'shadow'), 'utf8')).toBe(SECRET);
    });
  }

  it('delete-device through the same tree without the link writes the attribute (the test can fail)', async () => {
    const f = fixture();
    f.setAttr('/sys/block/sda/device/state', 'offline\n');
    const del = `${fs.realpathSync(f.at('/sys/block/sda/device'))}/delete`;
    fs.writeFileSync(del, '');
    const o = capture();
    await main(['delete-device', 'sda', '--root', f.root, ...WRITE], o);
    expect(fs.readFileSync(del, 'utf8')).toBe('1');
  });

  it('cleanup of a kubelet global dir linked out of the root unlinks and removes nothing outside', async () => {
    const f = fixture();
    const out = outsideDir();
    const g = f.fsVolume(P2, IQN2, 3, iscsiJson('pv3', [P2], IQN2, 3));
    const target = path.join(out, 'kubelet-global');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'iscsi.json'), `${JSON.stringify(iscsiJson('pv3', [P2], IQN2, 3))}\n`);
    fs.rmSync(f.at(g), { recursive: true });
    fs.symlinkSync(target, f.at(g));
    const o = capture();
    await main(['cleanup', g, '--root', f.root, ...WRITE], o);
    expect(fs.readdirSync(target)).toEqual(['iscsi.json']);
    expect(fs.lstatSync(f.at(g)).isSymbolicLink()).toBe(true);
  });

  it('cleanup of the same orphaned dir inside the root removes it (the test can fail)', async () => {
    const f = fixture();
    const g = f.fsVolume(P2, IQN2, 3, iscsiJson('pv3', [P2], IQN2, 3));
    const o = capture();
    const code = await main(['cleanup', g, '--root', f.root, ...WRITE], o);
    expect(code, o.err).toBe(0);
    expect(fs.existsSync(f.at(g))).toBe(false);
  });
});

describe('status under a hostile root', () => {
  it('status --json never prints a file outside the root an attribute links to', async () => {
    const f = fixture();
    const out = outsideDir();
    for (const [attr, target] of [
      ['vendor', path.join(out, 'shadow')],
      ['model', `${UP}${path.relative('/', out)}/shadow`],
    ] as const) {
      const p = `${fs.realpathSync(f.at('/sys/block/sda/device'))}/${attr}`;
      fs.rmSync(p, { force: true });
      fs.symlinkSync(target, p);
    }
    for (const json of [['--json'], []]) {
      const o = capture();
      const code = await main(['status', ...json, '--root', f.root], o);
      expect(code, o.err).toBe(0);
      expect(o.out).not.toContain('OUTSIDE-SECRET');
      expect(o.out).toContain('sda');
    }
  });
});

describe('not a node → exit 2', () => {
  it('a --root that does not exist, or has no /sys and /proc, is a usage error with a clear message', async () => {
    const empty = fs.mkdtempSync(path.join(tmpdir(), 'confine-empty-'));
    cleanups.push(() => fs.rmSync(empty, { recursive: true, force: true }));
    fs.mkdirSync(path.join(empty, 'proc'));
    for (const root of ['/nonexistent-root-of-issue-14', empty]) {
      for (const json of [['--json'], []]) {
        const o = capture();
        const code = await main(['status', ...json, '--root', root], o);
        expect(code).toBe(2);
        expect(o.out).toBe('');
        expect(o.err).toMatch(/is not a node's root: no readable .*\/sys/);
        expect(o.err).toMatch(/hint: /);
      }
    }
  });

  it('a node without iSCSI modules (its /sys and /proc, no iscsi classes) stays exit 0', async () => {
    const f = new FixtureRoot();
    cleanups.push(() => f.cleanup());
    const o = capture();
    expect(await main(['status', '--json', '--root', f.root], o)).toBe(0);
    expect(JSON.parse(o.out).node.iscsiLoaded).toBe(false);
  });

  it('--write under a --root needs an explicit --exec (exit 2 with a hint)', async () => {
    const f = fixture();
    const o = capture();
    const code = await main(['delete-device', 'sda', '--root', f.root, '--write', '--yes'], o);
    expect(code).toBe(2);
    expect(o.err).toMatch(/--write with --root .* needs an explicit --exec/);
    expect(o.err).toMatch(/hint: .*--exec nsenter/);
  });
});
