import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname as osHostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';

/**
 * The node's name under `--root` (a debug pod's /host): a tree with /etc/hostname and the UTS
 * namespace links procfs shows (`/proc/<pid>/ns/uts -> uts:[inode]`).
 */
describe('FsHost.hostname under a root', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'iscsi-console-hostname-'));
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc', 'hostname'), 'node-from-etc\n');
    mkdirSync(join(root, 'proc', 'self', 'ns'), { recursive: true });
    mkdirSync(join(root, 'proc', '1', 'ns'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const host = () => new FsHost({ root, runner: { mode: 'direct' } });

  it("in PID 1's UTS namespace (kubectl debug node, hostNetwork) the kernel's name wins over a stale /etc/hostname", () => {
    symlinkSync('uts:[4026531838]', join(root, 'proc', 'self', 'ns', 'uts'));
    symlinkSync('uts:[4026531838]', join(root, 'proc', '1', 'ns', 'uts'));
    expect(host().hostname()).toBe(osHostname());
  });

  it("in a UTS namespace of its own (a DaemonSet pod: the kernel's name is the pod's) the node's /etc/hostname", () => {
    symlinkSync('uts:[4026532411]', join(root, 'proc', 'self', 'ns', 'uts'));
    symlinkSync('uts:[4026531838]', join(root, 'proc', '1', 'ns', 'uts'));
    expect(host().hostname()).toBe('node-from-etc');
  });

  it('a tree without /proc (a fixture) uses its /etc/hostname, then the kernel name', () => {
    expect(host().hostname()).toBe('node-from-etc');
    rmSync(join(root, 'etc', 'hostname'));
    expect(host().hostname()).toBe(osHostname());
  });

  it('an explicit hostname option always wins', () => {
    expect(new FsHost({ root, runner: { mode: 'direct' }, hostname: 'sim-1' }).hostname()).toBe('sim-1');
  });
});
