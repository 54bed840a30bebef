import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commandEnv,
  commandPath,
  createRunner,
  SYSTEM_PATH,
  spawnLineStream,
} from '../../src/engine/host/runner.js';

describe('commandPath: host tools are found when the console has no PATH', () => {
  it('no PATH at all (env -i, the single executable on a bare node): every system dir, sbin included', () => {
    expect(commandPath(undefined)).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    expect(commandPath('')).toBe(SYSTEM_PATH.join(':'));
  });

  it('a PATH that was given is kept as it is: the admin decides which tools run', () => {
    expect(commandPath('/opt/tools/bin:/usr/bin:/bin')).toBe('/opt/tools/bin:/usr/bin:/bin');
    expect(commandPath('/nonexistent')).toBe('/nonexistent');
  });

  it('drops empty and relative entries (the current directory) and duplicates', () => {
    expect(commandPath('::.:bin:/usr/sbin:/usr/sbin')).toBe('/usr/sbin');
    expect(commandPath('.:bin')).toBe(SYSTEM_PATH.join(':'));
  });

  it('commandEnv keeps the C locale for the parsers', () => {
    expect(commandEnv({})).toEqual({ LC_ALL: 'C', LANG: 'C', PATH: SYSTEM_PATH.join(':') });
  });
});

/**
 * The runner with the console's own PATH emptied, as `env -i iscsi-console` on a node: a tool in
 * /usr/sbin (iscsid, chroot) must still start, and the command sees the full PATH too (nsenter and
 * chroot look the host command up with the PATH they inherit).
 */
describe('the real runner and stream with PATH unset', () => {
  let saved: string | undefined;
  let dir: string;
  beforeAll(() => {
    saved = process.env.PATH;
    delete process.env.PATH;
    dir = mkdtempSync(join(tmpdir(), 'iscsi-console-path-'));
    mkdirSync(join(dir, 'bin'));
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.PATH;
    else process.env.PATH = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the command the full PATH and the C locale', async () => {
    // env(1) prints the environment it was given (a shell would invent its own default PATH).
    const run = createRunner({ mode: 'direct' });
    const r = await run(['env']);
    expect(r.spawnError).toBeUndefined();
    const env = r.stdout.split('\n');
    expect(env).toContain(`PATH=${SYSTEM_PATH.join(':')}`);
    expect(env).toContain('LC_ALL=C');
  });

  it('an sbin-only tool is found by name (chroot lives in /usr/sbin on Debian)', async () => {
    const run = createRunner({ mode: 'direct' });
    const r = await run(['chroot', '--version']);
    expect(r.spawnError).toBeUndefined();
    expect(r.exitCode).toBe(0);
  });

  it('the line stream (udevadm monitor) gets the same environment', async () => {
    // A script in a dir on no PATH: spawned by absolute path, it reports its PATH.
    const script = join(dir, 'bin', 'report-path');
    writeFileSync(script, '#!/usr/bin/env -S sh -c "exec env"\n');
    chmodSync(script, 0o755);
    const lines: string[] = [];
    const s = spawnLineStream([script], { onLine: (l) => lines.push(l) });
    const exit = await s.exited;
    expect(exit.exitCode).toBe(0);
    expect(lines).toContain(`PATH=${SYSTEM_PATH.join(':')}`);
  });
});
