import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { type SimEnv, STATE_DIR, simEnv } from './helpers.js';

const T1 = 'iqn.2026-01.lab.example:storage.target1';
let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('attach on the simulator', () => {
  it('attaches, mounts, writes iscsi.json exactly like kubelet, and kubelet can detach it', async () => {
    env = await simEnv('empty');
    const { plan, result } = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: T1,
      lun: '1',
      'volume-name': 'pv1',
    });
    expect(plan.refusals).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.verified).toBe(true);
    const s = env.snap();
    const session = s.sessions.find((x) => x.targetIqn === T1);
    expect(session?.state).toBe('LOGGED_IN');
    expect(session?.devices.map((d) => d.lun)).toContain(1);
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${T1}-lun-1`;
    expect(s.mounts.some((m) => m.mountPoint === gp)).toBe(true);
    const rec = s.nodeRecords.find((r) => r.targetIqn === T1 && r.portal === '127.0.0.1:3260');
    expect(rec?.startup).toBe('manual');
    expect(rec?.scan).toBe('manual');
    expect(readJournal(env.host, STATE_DIR).map((e) => e.phase)).toEqual(['begin', 'end']);
    // kubelet after a restart knows the volume only from disk: register it with deliberately wrong
    // in-memory options, so the detach can only succeed through the iscsi.json we wrote.
    env.host.sim.kubelet.volumes.set(gp, {
      opts: {
        portals: ['192.0.2.1:3260'],
        iqn: 'iqn.2000-01.invalid:wrong',
        lun: 9,
        volName: 'pv1',
        podUIDs: [],
      },
      globalPath: gp,
      devicePath: result.devicePath ?? '',
      pods: new Set(),
    });
    await env.host.sim.kubeletDetach(gp, []);
    const after = env.snap();
    expect(after.sessions.find((x) => x.targetIqn === T1)).toBeUndefined();
    expect(after.mounts.some((m) => m.mountPoint === gp)).toBe(false);
  });
});

describe('attach variants on the simulator', () => {
  it('IPv6 portal, block mode: by-path without brackets, volumeDevices path, iscsi.json readable', async () => {
    env = await simEnv('empty');
    const iqn = 'iqn.2026-01.lab.example:v6-volume';
    const { plan, result } = await env.run('attach', [], {
      portal: ['[fd00:10::10]'],
      iqn,
      lun: '1',
      'volume-name': 'pv6',
      block: true,
    });
    expect(plan.steps.find((s) => s.id.startsWith('login:'))?.argv).toEqual([
      'iscsiadm',
      '-m',
      'node',
      '-p',
      '[fd00:10::10]:3260',
      '-T',
      iqn,
      '-I',
      'default',
      '--login',
    ]);
    expect(plan.steps.find((s) => s.wait?.path)?.wait?.path).toBe(
      `/dev/disk/by-path/ip-fd00:10::10:3260-iscsi-${iqn}-lun-1`,
    );
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/volumeDevices/iface-default/[fd00:10::10]:3260-${iqn}-lun-1`;
    expect(env.host.readText(`${gp}/iscsi.json`)).toBe(
      `{"VolName":"pv6","Portals":["[fd00:10::10]:3260"],"Iqn":"${iqn}","Lun":"1","InitIface":"default","Iface":"default","InitiatorName":"","MetricsProvider":null}\n`,
    );
    expect(env.snap().mounts.some((m) => m.mountPoint === gp)).toBe(false);
    // kubelet's DetachBlockISCSIDisk finds everything through that iscsi.json.
    env.host.sim.kubelet.volumes.set(gp, {
      opts: {
        portals: ['192.0.2.1:3260'],
        iqn: 'iqn.2000-01.invalid:wrong',
        lun: 9,
        volName: 'pv6',
        podUIDs: [],
        mode: 'block',
      },
      globalPath: gp,
      devicePath: result.devicePath ?? '',
      pods: new Set(),
    });
    await env.host.sim.kubeletDetach(gp, []);
    expect(env.snap().sessions.some((x) => x.targetIqn === iqn)).toBe(false);
  });

  it('hostname portal: resolved with getent (warned), logged in by address', async () => {
    env = await simEnv('empty');
    env.host.sim.faults.respond((a) => a[0] === 'getent', {
      exitCode: 0,
      stdout: '127.0.0.1       san-a.lab.example\n',
    });
    const { plan, result } = await env.run('attach', [], {
      portal: ['san-a.lab.example'],
      iqn: T1,
      lun: '1',
      'volume-name': 'pvh',
      'no-mount': true,
    });
    expect(plan.steps[0]!.argv).toEqual(['getent', 'hosts', 'san-a.lab.example']);
    expect(result.warnings?.join('\n')).toMatch(/resolved to 127\.0\.0\.1/);
    expect(result.error).toBeUndefined();
  });

  it('custom initiator name: iface cloned as <portal>:<volName>, and logout deletes the clone', async () => {
    env = await simEnv('empty');
    const iqn = 'iqn.2026-01.lab.example:storage.target2';
    const { plan, result } = await env.run('attach', [], {
      portal: ['127.0.0.1'],
      iqn,
      lun: '1',
      'volume-name': 'pvc-9',
      'initiator-name': 'iqn.2026-01.lab.example:custom-initiator',
      'no-mount': true,
    });
    expect(plan.steps.find((s) => s.id === 'clone-iface')?.argv).toEqual([
      'iscsiadm',
      '-m',
      'iface',
      '-I',
      '127.0.0.1:3260:pvc-9',
      '-o',
      'new',
    ]);
    expect(result.error).toBeUndefined();
    const s = env.snap();
    const session = s.sessions.find((x) => x.targetIqn === iqn);
    expect(session?.iface).toBe('127.0.0.1:3260:pvc-9');
    expect(s.ifaces.find((i) => i.name === '127.0.0.1:3260:pvc-9')?.initiatorName).toBe(
      'iqn.2026-01.lab.example:custom-initiator',
    );
    const cleanup = await env.run('cleanup', [String(session!.sid)]);
    expect(cleanup.plan.steps.map((x) => x.id)).toContain('delete-iface:127.0.0.1:3260:pvc-9');
    expect(cleanup.result.error).toBeUndefined();
    expect(env.snap().ifaces.some((i) => i.name === '127.0.0.1:3260:pvc-9')).toBe(false);
  });

  it('two portals: both logged in, device is the dm map over both paths', async () => {
    env = await simEnv('empty');
    const iqn = 'iqn.2026-01.lab.example:mp-volume';
    env.host.sim.addTarget({
      iqn,
      portals: ['10.0.0.10:3260', '10.0.0.11:3260'],
      luns: [{ lun: 1, sizeBytes: 1 << 30 }],
    });
    const { result } = await env.run('attach', [], {
      portal: ['10.0.0.10:3260', '10.0.0.11:3260'],
      iqn,
      lun: '1',
      'volume-name': 'pvmp',
    });
    expect(result.error).toBeUndefined();
    expect(result.devicePath).toMatch(/^\/dev\/dm-\d+$/);
    const s = env.snap();
    expect(s.sessions.filter((x) => x.targetIqn === iqn)).toHaveLength(2);
    expect(s.multipath[0]?.mountpoints[0]).toContain(`${iqn}-lun-1`);
    // And back: unmount → multipath -f → delete both paths → log out both portals → rmdir.
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.10:3260-${iqn}-lun-1`;
    const c = await env.run('cleanup', [gp]);
    expect(c.plan.refusals).toEqual([]);
    const kinds = c.plan.steps.map((x) => x.id.split(':')[0]);
    expect(kinds).toEqual([
      'umount',
      'flush',
      'flushbufs',
      'delete',
      'flushbufs',
      'delete',
      'logout',
      'delete-record',
      'logout',
      'delete-record',
      'unlink',
      'rmdir',
    ]);
    expect(c.result.error).toBeUndefined();
    expect(c.result.verified).toBe(true);
    const after = env.snap();
    expect(after.multipath).toEqual([]);
    expect(after.sessions).toEqual([]);
    expect(env.host.lstat(gp)).toBeUndefined();
  });

  it('one dead portal of two: the other portal still attaches (kubelet lastErr loop)', async () => {
    env = await simEnv('empty');
    const iqn = 'iqn.2026-01.lab.example:mp-volume';
    env.host.sim.addTarget({
      iqn,
      portals: ['10.0.0.10:3260', '10.0.0.11:3260'],
      luns: [{ lun: 1, sizeBytes: 1 << 30 }],
    });
    env.host.sim.portalDown('10.0.0.11:3260');
    const { result } = await env.run('attach', [], {
      portal: ['10.0.0.10:3260', '10.0.0.11:3260'],
      iqn,
      lun: '1',
      'volume-name': 'pvmp',
      'no-mount': true,
    });
    expect(result.error).toBeUndefined();
    expect(result.warnings?.some((w) => w.startsWith('portal 10.0.0.11:3260'))).toBe(true);
    expect(env.snap().sessions.filter((x) => x.targetIqn === iqn)).toHaveLength(1);
  });

  it('never formats a device that already has a filesystem', async () => {
    env = await simEnv('empty');
    const first = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: T1,
      lun: '1',
      'volume-name': 'pv1',
    });
    expect(first.result.steps.find((s) => s.stepId === 'format-and-mount')?.detail).toMatch(
      /^formatted ext4/,
    );
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${T1}-lun-1`;
    env.host.writeText(`${gp}/data.txt`, 'keep me');
    const clean = await env.run('cleanup', [gp]);
    // The dir holds user data under the mount: after unmount it holds only iscsi.json again.
    expect(clean.result.error).toBeUndefined();
    const again = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: T1,
      lun: '1',
      'volume-name': 'pv1',
    });
    expect(again.result.error).toBeUndefined();
    expect(again.result.steps.find((s) => s.stepId === 'format-and-mount')?.detail).toMatch(/^mounted/);
    expect(env.host.readText(`${gp}/data.txt`)).toBe('keep me');
  });

  it('an unformatted read-only volume is refused at mount time, not formatted', async () => {
    env = await simEnv('empty');
    const { result } = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: T1,
      lun: '2',
      'volume-name': 'pvro',
      'read-only': true,
    });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/unformatted and the volume is read-only/);
  });
});
