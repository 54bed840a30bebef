import { afterEach, describe, expect, test } from 'vitest';
import { runDoctor } from '../../src/engine/doctor/index.js';
import { iscsiadm, labSim, type TestSim } from './helpers.js';

/**
 * The simulated daemons as /proc shows them. iscsid listens on the abstract unix socket iscsiadm
 * connects to (open-iscsi ISCSIADM_NAMESPACE); /proc/<pid>/net/unix lists the init network
 * namespace's sockets for every process in it, in net/unix/af_unix.c's format.
 */

let t: TestSim | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

const SOCKET_LINE = / @ISCSIADM_ABSTRACT_NAMESPACE$/m;
const HEADER = 'Num       RefCount Protocol Flags    Type St Inode Path\n';

describe("iscsid's abstract socket in /proc/<pid>/net/unix", () => {
  test('while iscsid runs, every process of the namespace sees its listening socket', () => {
    t = labSim();
    for (const pid of ['417', '1', 'self', '301']) {
      const table = t.host.readText(`/proc/${pid}/net/unix`);
      expect(table?.startsWith(HEADER)).toBe(true);
      // %pK (zeros), refcount, protocol, __SO_ACCEPTCON (listening), SOCK_STREAM, SS_UNCONNECTED, inode.
      expect(table).toMatch(
        /^0000000000000000: 00000002 00000000 00010000 0001 01 +\d+ @ISCSIADM_ABSTRACT_NAMESPACE$/m,
      );
    }
  });

  test('stopping iscsid closes the socket (iscsiadm exit 20); starting it opens it again', async () => {
    t = labSim();
    t.sim.stopDaemon('iscsid');
    expect(t.host.stat('/proc/417')).toBeUndefined();
    expect(t.host.readText('/proc/1/net/unix')).toBe(HEADER);
    expect(t.host.readText('/proc/301/net/unix')).not.toMatch(SOCKET_LINE);
    const r = await iscsiadm(t.host, '-m', 'discovery', '-t', 'sendtargets', '-p', '127.0.0.1:3260');
    expect(r.exit).toBe(20);
    t.sim.startDaemon('iscsid');
    expect(t.host.readText('/proc/417/net/unix')).toMatch(SOCKET_LINE);
    expect(t.host.readText('/proc/1/net/unix')).toMatch(SOCKET_LINE);
  });

  test("doctor's iscsid check finds the pid and the socket, and fails once iscsid is stopped", async () => {
    t = labSim();
    const check = async () =>
      (await runDoctor(t!.host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' })).checks.find(
        (c) => c.id === 'iscsid.running',
      );
    expect(await check()).toMatchObject({
      status: 'pass',
      evidence: 'pid 417; /run/iscsid.pid 417; socket @ISCSIADM_ABSTRACT_NAMESPACE',
    });
    t.sim.stopDaemon('iscsid');
    expect((await check())?.status).toBe('fail');
  });
});
