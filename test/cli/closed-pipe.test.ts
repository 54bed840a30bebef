/**
 * The reader of stdout goes away (`iscsi-console watch --json | head -1`): the CLI, a real process
 * on the simulated node, stops quietly (exit 0, nothing on stderr) instead of dying on an unhandled
 * EPIPE. The test closes the pipe's read end before the first line.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliBundle } from '../helpers/cli-bundle.js';

const NODE = resolve('node_modules/.bin/node');
let dir: string;
let cli: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(join(tmpdir(), 'closed-pipe-'));
  cli = await buildCliBundle(dir);
}, 120_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('stdout closed by its reader', () => {
  it('watch --json ends quietly with exit 0 at its next write', async () => {
    const child = spawn(NODE, [cli, 'watch', '--demo', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    // As `watch --json | true` does: the reader is gone before the first line, so the first
    // write (the watcher's start line) meets the closed pipe.
    await new Promise<void>((done) => child.on('spawn', () => done()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|internal error/);
    expect(code).toBe(0);
  }, 120_000);
});
