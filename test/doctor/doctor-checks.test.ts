import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/engine/doctor/index.js';
import { readDoctorNodeRecords } from '../../src/engine/doctor/node-db.js';
import type { DoctorCheck, DoctorReport } from '../../src/engine/doctor/types.js';
import type { ExecMode } from '../../src/engine/host/runner.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { FixtureHost, FixtureNode, SECRET, TARGET, type VersionAnswers } from './fixture-node.js';

let node: FixtureNode;
beforeEach(() => {
  node = new FixtureNode();
});
afterEach(() => node.cleanup());

async function doctor(versions?: VersionAnswers, exec: ExecMode = 'direct'): Promise<DoctorReport> {
  return runDoctor(new FixtureHost(node.root, versions), { kubeletRoot: '/var/lib/kubelet', exec });
}

async function check(id: string, versions?: VersionAnswers, exec?: ExecMode): Promise<DoctorCheck> {
  const found = (await doctor(versions, exec)).checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
}

describe('doctor on a healthy --root tree', () => {
  it('passes every check, with evidence (the rules that need sessions, maps or Trident are not applied)', async () => {
    const report = await doctor();
    const notPass = report.checks.filter((c) => c.status !== 'pass');
    expect(notPass.map((c) => [c.id, c.status])).toEqual([
      ['timeouts.replacement-layout', 'skip'],
      ['multipath-conf.find-multipaths', 'skip'],
      ['multipath-conf.no-path-retry', 'skip'],
    ]);
    expect(report.schemaVersion).toBe(1);
    expect(report.summary).toEqual({ pass: report.checks.length - 3, warn: 0, fail: 0, skip: 3, ok: true });
    expect(report.checks.map((c) => c.id)).toEqual([
      'iscsid.running',
      'iscsi.versions',
      'module.iscsi_tcp',
      'module.scsi_transport_iscsi',
      'module.dm_multipath',
      'initiator.name',
      'initiator.unique',
      'multipathd.running',
      'udevd.running',
      'netns.host',
      'kubelet.root',
      'kubelet.running',
      'node-records.startup',
      'node-records.intact',
      'iscsid-conf.startup',
      'timeouts.replacement',
      'timeouts.replacement-layout',
      'iscsid-conf.noop-out',
      'multipath-conf.find-multipaths',
      'multipath-conf.no-path-retry',
      'multipath-conf.dev-loss-tmo',
      'multipath.claims',
      'sessions.portals',
      'volumes.expected-paths',
      'root.iscsi',
      'kubelet.volumes',
      'csi.drivers',
    ]);
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c.evidence]));
    expect(byId['iscsid.running']).toBe(
      'pid 612, 613; /run/iscsid.pid 613; socket @ISCSIADM_ABSTRACT_NAMESPACE',
    );
    expect(byId['iscsi.versions']).toBe('iscsiadm 2.1.8, iscsid 2.1.8');
    expect(byId['initiator.name']).toBe('iqn.1993-08.org.debian:01:labguest0001');
    expect(byId['root.iscsi']).toBe('/ vda1, /boot vda2');
    expect(byId['timeouts.replacement']).toBe(
      'iscsid.conf 120; records 120 (1); sessions recovery_tmo 120 (1)',
    );
  });

  it('never puts a CHAP secret from a node record into the report', async () => {
    node.nodeRecord(TARGET, '127.0.0.1,3260,1', {
      'node.startup': 'automatic',
      'node.session.auth.password': SECRET,
    });
    const text = JSON.stringify(await doctor());
    expect(text).toContain('node.startup=automatic');
    expect(text).not.toContain(SECRET);
  });
});

describe('each doctor check failing', () => {
  it('iscsid not running: fail; socket-activated by PID 1: warn; running without socket: warn', async () => {
    node.remove('/proc/612').remove('/proc/613');
    let c = await check('iscsid.running');
    expect(c.status).toBe('fail');
    expect(c.evidence).toBe('no iscsid in /proc/*/comm (stale /run/iscsid.pid: 613)');
    expect(c.hint).toContain('systemctl enable --now iscsid');
    node.process(1, 'systemd', ['/sbin/init'], ['@ISCSIADM_ABSTRACT_NAMESPACE']);
    c = await check('iscsid.running');
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('iscsid.socket activation');
    node.process(700, 'iscsid', ['/sbin/iscsid']);
    c = await check('iscsid.running');
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('socket @ISCSIADM_ABSTRACT_NAMESPACE not found');
    // A tree without the socket tables cannot tell: not claimed missing.
    node.remove('/proc/700/net');
    c = await check('iscsid.running');
    expect(c).toMatchObject({
      status: 'pass',
      evidence: 'pid 700; /run/iscsid.pid 613 (stale); socket not checked (no /proc/<pid>/net/unix)',
    });
  });

  it('iscsiadm and iscsid versions differ: fail; iscsiadm missing: fail; iscsid silent: warn', async () => {
    let c = await check('iscsi.versions', { iscsiadm: '2.1.8', iscsid: '2.1.4' });
    expect(c).toMatchObject({ status: 'fail', evidence: 'iscsiadm 2.1.8, iscsid 2.1.4' });
    expect(c.hint).toContain('no stable protocol');
    c = await check('iscsi.versions', { iscsiadm: null, iscsid: '2.1.8' }, 'nsenter');
    expect(c).toMatchObject({ status: 'fail', evidence: 'iscsiadm not found (ENOENT), iscsid 2.1.8' });
    expect(c.hint).toContain('--exec nsenter');
    c = await check('iscsi.versions', { iscsiadm: '2.1.8', iscsid: null });
    expect(c.status).toBe('warn');
  });

  it('a running iscsid whose binary was replaced (upgrade without restart) warns even with equal versions', async () => {
    node.link('/proc/612/exe', '/usr/sbin/iscsid');
    expect(await check('iscsi.versions')).toMatchObject({
      status: 'pass',
      evidence: 'iscsiadm 2.1.8, iscsid 2.1.8',
    });
    // what the kernel shows after the file was unlinked (dpkg replaces binaries by rename)
    node.link('/proc/612/exe', '/usr/sbin/iscsid (deleted)');
    let c = await check('iscsi.versions');
    expect(c).toMatchObject({
      status: 'warn',
      evidence: 'iscsiadm 2.1.8, iscsid 2.1.8; running iscsid pid 612 is /usr/sbin/iscsid (deleted)',
    });
    expect(c.hint).toContain('restart iscsid');
    // a real version mismatch stays a failure, with the replaced daemon in the evidence
    c = await check('iscsi.versions', { iscsiadm: '2.1.8', iscsid: '2.1.9' });
    expect(c.status).toBe('fail');
    expect(c.evidence).toContain('(deleted)');
  });

  it('modules: missing iscsi_tcp warns; missing with no /lib/modules for the kernel fails; builtin passes', async () => {
    node.remove('/sys/module/iscsi_tcp');
    let c = await check('module.iscsi_tcp');
    expect(c).toMatchObject({
      status: 'warn',
      evidence: 'no /sys/module/iscsi_tcp (not loaded)',
      hint: expect.stringContaining('modprobe iscsi_tcp'),
    });
    node.write(`/lib/modules/6.1.0-57-amd64/modules.builtin`, 'kernel/drivers/scsi/iscsi_tcp.ko\n');
    c = await check('module.iscsi_tcp');
    expect(c.status).toBe('pass');
    expect(c.evidence).toContain('built into the kernel');
    node.remove('/lib/modules').remove('/sys/module/scsi_transport_iscsi').remove('/sys/module/dm_multipath');
    c = await check('module.scsi_transport_iscsi');
    expect(c.status).toBe('fail');
    expect(c.evidence).toContain('no /lib/modules/6.1.0-57-amd64 for the running kernel');
    expect((await check('module.dm_multipath')).status).toBe('fail');
  });

  it('initiator name: missing, GenerateName=yes, malformed fail; upper case warns', async () => {
    node.remove('/etc/iscsi/initiatorname.iscsi');
    expect(await check('initiator.name')).toMatchObject({
      status: 'fail',
      evidence: '/etc/iscsi/initiatorname.iscsi missing',
    });
    node.write('/etc/iscsi/initiatorname.iscsi', 'GenerateName=yes\n');
    expect((await check('initiator.name')).evidence).toContain('GenerateName=yes (not generated yet)');
    node.write('/etc/iscsi/initiatorname.iscsi', 'InitiatorName=iqn.93-08.debian\n');
    expect(await check('initiator.name')).toMatchObject({
      status: 'fail',
      evidence: expect.stringContaining('iqn.YYYY-MM'),
    });
    node.write('/etc/iscsi/initiatorname.iscsi', 'InitiatorName=eui.02004567A425678D\n');
    expect((await check('initiator.name')).status).toBe('pass');
    node.write('/etc/iscsi/initiatorname.iscsi', 'InitiatorName=iqn.1993-08.org.debian:01:LabGuest\n');
    expect((await check('initiator.name')).status).toBe('warn');
  });

  it('multipathd missing warns; udevd missing fails; plain udevd (eudev) passes', async () => {
    node.remove('/proc/640').remove('/proc/301');
    expect(await check('multipathd.running')).toMatchObject({
      status: 'warn',
      evidence: 'no multipathd in /proc/*/comm',
    });
    expect(await check('udevd.running')).toMatchObject({
      status: 'fail',
      hint: expect.stringContaining('by-path'),
    });
    node.process(302, 'udevd', ['/sbin/udevd', '--daemon']);
    expect(await check('udevd.running')).toMatchObject({ status: 'pass', evidence: 'udevd pid 302' });
  });

  it('foreign network namespace: fails unless commands go through nsenter; unreadable: skip', async () => {
    node.link('/proc/self/ns/net', 'net:[4026532999]');
    const c = await check('netns.host');
    expect(c).toMatchObject({
      status: 'fail',
      evidence: 'console net:[4026532999], host net:[4026531840] (--exec direct)',
    });
    expect(c.hint).toContain('--exec nsenter');
    expect((await check('netns.host', undefined, 'nsenter')).status).toBe('pass');
    node.remove('/proc/1/ns');
    expect((await check('netns.host')).status).toBe('skip');
  });

  it('kubelet root: missing fails while kubelet runs; a different --root-dir fails with the flag to pass', async () => {
    node.remove('/var/lib/kubelet');
    expect(await check('kubelet.root')).toMatchObject({
      status: 'fail',
      evidence: '/var/lib/kubelet missing',
    });
    node.process(900, 'kubelet', [
      '/usr/bin/kubelet',
      '--root-dir',
      '/var/lib/origin/openshift.local.volumes',
    ]);
    expect(await check('kubelet.root')).toMatchObject({
      status: 'fail',
      hint: 'pass --kubelet-root /var/lib/origin/openshift.local.volumes',
    });
  });

  it('kubelet not running warns; k3s-embedded kubelet counts', async () => {
    node.remove('/proc/900');
    expect(await check('kubelet.running')).toMatchObject({ status: 'warn' });
    expect((await check('kubelet.root')).status).toBe('pass');
    node.process(950, 'k3s-agent', ['/usr/local/bin/k3s', 'agent']);
    expect(await check('kubelet.running')).toMatchObject({ status: 'pass', evidence: 'k3s-agent pid 950' });
  });

  it('automatic node records warn with the update command; empty record files warn', async () => {
    node.nodeRecord('iqn.2024-01.lab.example:storage.target2', '127.0.0.2,3260,1', {
      'node.startup': 'automatic',
    });
    const c = await check('node-records.startup');
    expect(c.status).toBe('warn');
    expect(c.evidence).toBe(
      '1 record with node.startup=automatic: iqn.2024-01.lab.example:storage.target2 127.0.0.2:3260',
    );
    expect(c.hint).toBe(
      'iscsiadm -m node -p 127.0.0.2:3260 -T iqn.2024-01.lab.example:storage.target2 -o update -n node.startup -v manual (or delete unused records)',
    );
    // The old flat layout (`nodes/<iqn>/<addr>,<port>` file) is read too.
    node.write('/etc/iscsi/nodes/iqn.2024-01.x:t3/10.0.0.3,3260', '');
    const e = await check('node-records.intact');
    expect(e).toMatchObject({
      status: 'warn',
      evidence: '1 empty record file: /etc/iscsi/nodes/iqn.2024-01.x:t3/10.0.0.3,3260',
    });
  });

  it('judges the node records status reports: the DB root in use, one listing for both', async () => {
    // A tree where they used to disagree: the doctor read /etc/iscsi and /var/lib/iscsi both (and
    // entries that are not portals), status only the DB root in use (/etc/iscsi here: it has records).
    node.nodeRecord('iqn.2024-01.lab.example:storage.target2', '127.0.0.2,3260,1', {
      'node.startup': 'manual',
    });
    node.write(
      '/var/lib/iscsi/nodes/iqn.2024-01.x:old/10.0.0.9,3260,1/default',
      'node.startup = automatic\n',
    );
    node.write('/var/lib/iscsi/nodes/iqn.2024-01.x:old/10.0.0.8,3260', '');
    node.write('/etc/iscsi/nodes/iqn.2024-01.x:t4/not-a-portal/default', 'node.startup = automatic\n');
    const host = new FixtureHost(node.root);
    const status = takeSnapshot(host, { kubeletRoot: '/var/lib/kubelet' }).nodeRecords.map((r) => r.path);
    const judged = readDoctorNodeRecords(host).map((r) => r.path);
    expect(judged.sort()).toEqual(status.sort());
    expect(judged.sort()).toEqual([
      `/etc/iscsi/nodes/${TARGET}/127.0.0.1,3260,1/default`,
      '/etc/iscsi/nodes/iqn.2024-01.lab.example:storage.target2/127.0.0.2,3260,1/default',
    ]);
    expect(await check('node-records.startup')).toMatchObject({
      status: 'pass',
      evidence: '2 node records, none automatic',
    });
    expect((await check('node-records.intact')).status).toBe('pass');
    // A RHEL node (records only under /var/lib/iscsi): both read there.
    node.remove('/etc/iscsi/nodes');
    const rhel = readDoctorNodeRecords(new FixtureHost(node.root)).map((r) => r.path);
    expect(rhel.sort()).toEqual(
      takeSnapshot(new FixtureHost(node.root), { kubeletRoot: '/var/lib/kubelet' })
        .nodeRecords.map((r) => r.path)
        .sort(),
    );
    expect(rhel).toHaveLength(2);
  });

  it('replacement_timeout: records differing from iscsid.conf warn; negative and zero warn', async () => {
    node.write('/etc/iscsi/iscsid.conf', 'node.session.timeo.replacement_timeout=15\n');
    let c = await check('timeouts.replacement');
    expect(c.status).toBe('warn');
    expect(c.evidence).toBe('iscsid.conf 15; records 120 (1); sessions recovery_tmo 120 (1)');
    expect(c.hint).toContain('1 record differs from iscsid.conf');
    node.write('/etc/iscsi/iscsid.conf', '# node.session.timeo.replacement_timeout = 120\n');
    expect((await check('timeouts.replacement')).evidence).toContain('iscsid.conf unset (default 120)');
    expect((await check('timeouts.replacement')).status).toBe('pass');
    node.write('/sys/class/iscsi_session/session1/recovery_tmo', '-1\n');
    c = await check('timeouts.replacement');
    expect(c.status).toBe('warn');
    expect(c.hint).toContain('queues I/O forever');
    // the real kernel's spelling of a disabled recovery timer (e2e scenario 10): not a number
    node.write('/sys/class/iscsi_session/session1/recovery_tmo', 'off\n');
    c = await check('timeouts.replacement');
    expect(c.status).toBe('warn');
    expect(c.evidence).toBe(
      'iscsid.conf unset (default 120); records 120 (1); sessions recovery_tmo off (1)',
    );
    expect(c.hint).toContain('recovery_tmo off');
    node.write('/sys/class/iscsi_session/session1/recovery_tmo', '0\n');
    expect((await check('timeouts.replacement')).hint).toContain('= 0 fails I/O');
  });

  it('root or /boot on an iSCSI disk warns with the session; unreadable mountinfo skips', async () => {
    node.iscsiRoot('/');
    let c = await check('root.iscsi');
    expect(c).toMatchObject({ status: 'warn', evidence: '/ on sda1 (session1)' });
    node.iscsiRoot('/boot');
    c = await check('root.iscsi');
    expect(c).toMatchObject({ status: 'warn', evidence: '/boot on sda1 (session1)' });
    // A multipath map over the iSCSI disk: followed through slaves/.
    node.link('/sys/dev/block/253:0', '../../devices/virtual/block/dm-0');
    node.link('/sys/class/block/dm-0', '../../devices/virtual/block/dm-0');
    node.link(
      '/sys/devices/virtual/block/dm-0/slaves/sda1',
      '../../../../platform/host0/session1/target0:0:0/0:0:0:1/block/sda/sda1',
    );
    node.write('/proc/1/mountinfo', '22 1 253:0 / / rw - xfs /dev/mapper/mpatha rw\n');
    expect(await check('root.iscsi')).toMatchObject({ status: 'warn', evidence: '/ on dm-0 (session1)' });
    node.remove('/proc/1/mountinfo');
    expect((await check('root.iscsi')).status).toBe('skip');
  });

  it('kubelet running and owning iSCSI volumes passes and says to drain first; stopped kubelet passes with the count', async () => {
    node.mkdir(`/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${TARGET}-lun-1`);
    node.mkdir('/var/lib/kubelet/pods/0b7e8c1e-0000-4000-8000-000000000001/volumes/kubernetes.io~iscsi/pv1');
    const c = await check('kubelet.volumes');
    expect(c.status).toBe('pass');
    expect(c.evidence).toBe(
      `kubelet pid 900 owns 1 global dir (${TARGET} lun 1), 1 pod volume; it retries attach/detach on its own, so drain the node (kubectl drain) before acting on them`,
    );
    expect(c.hint).toBeUndefined();
    node.remove('/proc/900');
    expect((await check('kubelet.volumes')).status).toBe('pass');
  });

  it('a check that throws becomes its own fail instead of losing the report', async () => {
    const host = new FixtureHost(node.root);
    const boom = () => {
      throw new Error('kaput');
    };
    const report = await runDoctor(host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' }, [boom]);
    expect(report.checks[0]).toMatchObject({ status: 'fail', evidence: 'internal error: kaput' });
    expect(report.summary.ok).toBe(false);
  });
});
