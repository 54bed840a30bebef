/**
 * FsHost read paths made cheaper for bench/README.md (stack capture off on failure, kept readers handing back
 * the last string for equal bytes) must answer exactly as before.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function hostWith(files: Record<string, string | Buffer>): { host: FsHost; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'fs-host-reads-'));
  roots.push(root);
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), data);
  }
  return { host: new FsHost({ root, runner: { mode: 'direct' } }), root };
}

describe('FsHost failed reads', () => {
  it('answer absent values and leave Error.stackTraceLimit as it was', () => {
    const { host } = hostWith({ 'sys/a/state': 'running\n' });
    const before = Error.stackTraceLimit;
    expect(host.readText('/sys/a/missing')).toBeUndefined();
    expect(host.readTextOrError('/sys/a/missing')).toEqual({ error: 'ENOENT' });
    expect(host.readTextOrError('/sys/a')).toEqual({ error: 'EISDIR' });
    expect(host.readDir('/sys/missing')).toEqual([]);
    expect(host.readLink('/sys/a/state')).toBeUndefined();
    expect(Error.stackTraceLimit).toBe(before);
    expect(host.readText('/sys/a/state')).toBe('running\n');
    expect(host.readDir('/sys/a')).toEqual(['state']);
    expect(Error.stackTraceLimit).toBe(before);
    // Errors thrown elsewhere still carry their stacks.
    expect(new Error('x').stack).toContain('fs-host-reads.test');
  });
});

describe('FsHost kept readers', () => {
  it('return each value as decoded, whether or not the bytes repeat', () => {
    const { host, root } = hostWith({ 'sys/d/state': 'running\n' });
    const r = host.openReader('/sys/d/state')!;
    const set = (data: string | Buffer) => writeFileSync(join(root, 'sys/d/state'), data);
    expect(r.read()).toBe('running\n');
    expect(r.read()).toBe('running\n');
    set('blocked\n'); // same length, other bytes
    expect(r.read()).toBe('blocked\n');
    set('é\n'); // two bytes for one char
    expect(r.read()).toBe('é\n');
    expect(r.read()).toBe('é\n');
    set(Buffer.from([0xe9, 0x0a])); // invalid UTF-8: one replacement char per byte
    expect(r.read()).toBe('\uFFFD\n');
    expect(r.read()).toBe('\uFFFD\n');
    set('é\n');
    expect(r.read()).toBe('é\n');
    set('');
    expect(r.read()).toBe('');
    set('running\n');
    expect(r.read()).toBe('running\n');
    r.close();
    expect(r.read()).toBeUndefined();
  });
});
