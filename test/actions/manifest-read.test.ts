/**
 * `--manifest` and `--secret` files are read like node files: regular files only, bounded, never
 * blocking (a FIFO nobody writes, /dev/zero, a huge file), and YAML aliases are limited — each a
 * clear exit 2 naming the file and why, nothing planned. Through the real CLI (`main`, and the
 * bundled CLI process for the FIFO, whose blocking open would otherwise hang the test worker).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureOutput } from '../helpers/capture-output.js';
import { buildCliBundle } from '../helpers/cli-bundle.js';

const NODE = resolve('node_modules/.bin/node');
let dir: string;
let cli: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(join(tmpdir(), 'manifest-read-'));
  cli = await buildCliBundle(dir);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function attach(...extra: string[]): Promise<{ code: number; text: string }> {
  const o = captureOutput();
  const code = await main(['attach', '--demo', 'empty', '--dry-run', ...extra], o);
  return { code, text: o.out + o.err };
}

const PV = `kind: PersistentVolume
metadata: { name: pv1 }
spec:
  iscsi: { targetPortal: 127.0.0.1:3260, iqn: iqn.2026-01.lab.example:t1, lun: 1 }
`;

/** A "billion laughs" YAML: ten levels of ten aliases each. */
function aliasBomb(): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\nkind: PersistentVolume\n`;
}

describe('--manifest reads', () => {
  it('a good manifest still plans', async () => {
    fs.writeFileSync(join(dir, 'pv.yaml'), PV);
    expect((await attach('--manifest', join(dir, 'pv.yaml'))).code).toBe(0);
  });

  it('/dev/zero is refused before it is opened: exit 2, a character device', async () => {
    const r = await attach('--manifest', '/dev/zero');
    expect(r.code).toBe(2);
    expect(r.text).toMatch(
      /cannot read manifest \/dev\/zero: a character device, not a regular file; not read/,
    );
  });

  it('a directory is refused: exit 2', async () => {
    const r = await attach('--manifest', dir);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/cannot read manifest .*: a directory, not a regular file/);
  });

  it('a file over the 1 MiB cap is refused unread: exit 2, the cap named', async () => {
    const big = join(dir, 'big.yaml');
    fs.writeFileSync(big, `${PV}# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const r = await attach('--manifest', big);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(
      /cannot read manifest .*big\.yaml: \d+ bytes than the 1048576-byte cap for a manifest/,
    );
  });

  it('a YAML alias bomb is refused: exit 2, not an internal error', async () => {
    const bomb = join(dir, 'bomb.yaml');
    fs.writeFileSync(bomb, aliasBomb());
    const r = await attach('--manifest', bomb);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/bomb\.yaml: not a usable manifest \(Excessive alias count/);
    expect(r.text).toMatch(/at most 100 YAML aliases/);
  });

  it('the Secret file is read the same way', async () => {
    fs.writeFileSync(join(dir, 'pv.yaml'), PV);
    const r = await attach('--manifest', join(dir, 'pv.yaml'), '--secret', '/dev/zero');
    expect(r.code).toBe(2);
    expect(r.text).toMatch(/cannot read manifest \/dev\/zero: a character device/);
  });

  it('a FIFO nobody writes is refused at once (the CLI process does not hang): exit 2', () => {
    const fifo = join(dir, 'pv.fifo');
    spawnSync('mkfifo', [fifo]);
    const r = spawnSync(NODE, [cli, 'attach', '--demo', 'empty', '--dry-run', '--manifest', fifo], {
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read manifest .*pv\.fifo: a FIFO, not a regular file; not read/);
  }, 60_000);
});
