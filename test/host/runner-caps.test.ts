/**
 * Every command's output is capped: a tool that prints without end (a runaway multipathd printed
 * 200 MB, a V8 fatal error) is stopped at the cap and refused with a typed error naming the cap;
 * a long-lived line stream stops at a line longer than any udev line. Real processes through the
 * FsHost runner, with fake tools first on PATH.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalCommandError } from '../../src/engine/errors.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { readMultipathTopology } from '../../src/engine/snapshot/multipath-topology.js';

let dir: string;
let saved: string | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-caps-'));
  const tool = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  // Prints forever, as a multipathd stuck in a loop would.
  tool('multipathd', 'exec yes \'{"name" : "mpatha", "paths" : 2},\'');
  tool('dmsetup', "exec yes '360000000000000000e00000000010001: 0 2097152 multipath 0 0 1 1'");
  tool('iscsiadm', "yes 'iscsiadm: cannot read record' >&2");
  // One line of 100 KiB, then waits: never a newline a reader could split on.
  tool('udevadm', "head -c 102400 /dev/zero | tr '\\\\0' x; sleep 30");
  saved = process.env.PATH;
  process.env.PATH = `${dir}:${saved ?? '/usr/bin:/bin'}`;
});
afterAll(() => {
  process.env.PATH = saved;
  rmSync(dir, { recursive: true, force: true });
});

const host = () => new FsHost({ root: '/', runner: { mode: 'direct' } });

describe('command output caps', () => {
  it('stdout past 64 MiB: the command is stopped and refused, the cap named', async () => {
    const err = await host()
      .run(['multipathd', 'show', 'maps', 'json'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExternalCommandError);
    expect((err as ExternalCommandError).message).toMatch(
      /^output over 64 MiB: multipathd show maps json printed more stdout/,
    );
    expect((err as ExternalCommandError).exitCode).toBe(4);
  }, 60_000);

  it('stderr past 4 MiB: stopped and refused the same way', async () => {
    const err = await host()
      .run(['iscsiadm', '-m', 'session'])
      .catch((e: unknown) => e);
    expect((err as ExternalCommandError).message).toMatch(
      /^output over 4 MiB: iscsiadm -m session printed more stderr/,
    );
  }, 60_000);

  it('a stream line past 64 KiB stops the stream instead of buffering it', async () => {
    const lines: string[] = [];
    const stream = host().spawnStream(['udevadm', 'monitor'], { onLine: (l) => lines.push(l) });
    const exit = await stream.exited;
    expect(exit.stderr).toMatch(/a line over 64 KiB: stopped, not buffered/);
    expect(lines).toEqual([]);
  }, 60_000);

  it('a snapshot reader that never throws reports the capped command as a problem', async () => {
    const read = await readMultipathTopology(host());
    expect(read.maps.size).toBe(0);
    expect(read.problems[0]).toMatch(
      /^dmsetup table: exit killed \(output over 64 MiB: dmsetup table --target multipath printed more stdout/,
    );
  }, 60_000);
});
