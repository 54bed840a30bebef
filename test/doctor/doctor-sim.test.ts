import { afterEach, describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { runDoctor } from '../../src/engine/doctor/index.js';
import type { DoctorCheck, DoctorReport } from '../../src/engine/doctor/types.js';
import { openSimHost } from '../../src/sim/index.js';

type Opened = Awaited<ReturnType<typeof openSimHost>>;
let opened: Opened | undefined;
afterEach(async () => {
  await opened?.close?.();
  opened = undefined;
});

async function simDoctor(scenario: string, tweak?: (o: Opened) => void): Promise<DoctorReport> {
  opened = await openSimHost({ scenario });
  tweak?.(opened);
  return runDoctor(opened.host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' });
}

function byId(report: DoctorReport): Record<string, DoctorCheck> {
  return Object.fromEntries(report.checks.map((c) => [c.id, c]));
}

function capture(): Output & { text: () => string } {
  let out = '';
  return {
    stdout: (t) => {
      out += t;
    },
    stderr: () => {},
    isTTY: false,
    text: () => out,
  };
}

describe('doctor on the simulator', () => {
  it('--demo healthy: no check fails, and the daemons, versions and modules pass', async () => {
    const out = capture();
    const code = await main(['doctor', '--demo', 'healthy', '--json'], out);
    const report = JSON.parse(out.text()) as DoctorReport;
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
    const c = byId(report);
    for (const id of [
      'iscsid.running',
      'iscsi.versions',
      'module.iscsi_tcp',
      'module.scsi_transport_iscsi',
      'module.dm_multipath',
      'initiator.name',
      'multipathd.running',
      'udevd.running',
      'netns.host',
      'kubelet.root',
      'kubelet.running',
      'root.iscsi',
    ]) {
      expect(c[id]?.status, `${id}: ${c[id]?.evidence}`).toBe('pass');
    }
    expect(c['iscsid.running']?.evidence).toMatch(/^pid 417/);
    expect(c['iscsi.versions']?.evidence).toBe('iscsiadm 2.1.8, iscsid 2.1.8');
  });

  it('iscsid stopped: iscsid.running fails (exit 3 through the CLI path)', async () => {
    const report = await simDoctor('healthy', (o) => o.host.sim.stopDaemon('iscsid'));
    expect(byId(report)['iscsid.running']).toMatchObject({ status: 'fail' });
    expect(report.summary.ok).toBe(false);
  });

  it('iscsid version differs from iscsiadm: iscsi.versions fails with both versions as evidence', async () => {
    const report = await simDoctor('healthy', (o) => {
      o.host.sim.faults.iscsidVersion = '2.1.4';
    });
    expect(byId(report)['iscsi.versions']).toMatchObject({
      status: 'fail',
      evidence: 'iscsiadm 2.1.8, iscsid 2.1.4',
    });
  });

  it('multipathd stopped: warns', async () => {
    const report = await simDoctor('healthy', (o) => o.host.sim.stopDaemon('multipathd'));
    expect(byId(report)['multipathd.running']?.status).toBe('warn');
  });

  it('incident scenario: a running kubelet owning iSCSI volumes is the normal state → pass, with the evidence', async () => {
    const report = await simDoctor('incident');
    const c = byId(report)['kubelet.volumes'];
    expect(c?.status).toBe('pass');
    expect(c?.title).toBe('iSCSI volumes kubelet owns');
    expect(c?.evidence).toMatch(/^kubelet pid 900 owns \d+ global dir/);
  });
});
