import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../../src/watchers/diff.js';
import { device, map, mount, session, snapshot, volume } from './build-snapshot.js';

const messages = (a: Parameters<typeof diffSnapshots>[0], b: Parameters<typeof diffSnapshots>[1]) =>
  diffSnapshots(a, b).events.map((e) => e.message);

describe('diffSnapshots', () => {
  it('reports session state changes by fingerprint', () => {
    const a = snapshot({ sessions: [session(7, 'LOGGED_IN')] });
    const b = snapshot({ sessions: [session(7, 'FAILED')] });
    const r = diffSnapshots(a, b);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]).toMatchObject({ kind: 'session', severity: 'warn', subject: a.sessions[0]!.key });
    expect(r.events[0]!.message).toMatch(/^session 7 LOGGED_IN→FAILED/);
    expect(r.diff.sessionsChanged).toEqual([a.sessions[0]!.key]);
  });

  it('reports logins and logouts', () => {
    const a = snapshot();
    const b = snapshot({ sessions: [session(3)] });
    expect(messages(a, b)).toEqual([expect.stringMatching(/^session 3 appeared/)]);
    expect(messages(b, a)).toEqual([expect.stringMatching(/^session 3 gone/)]);
    expect(diffSnapshots(a, b).diff.sessionsAdded).toHaveLength(1);
  });

  it('reports device appear, gone and state change', () => {
    const a = snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb')])] });
    const b = snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb'), device(1, 2, 'sdc')])] });
    const c = snapshot({
      sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb'), device(1, 2, 'sdc', 'offline')])],
    });
    expect(messages(a, b)).toEqual(['sdc appeared (session 1 LUN 2)']);
    expect(messages(b, c)).toEqual(['sdc state running→offline']);
    expect(messages(c, a)).toEqual(['sdc gone (session 1 LUN 2)']);
    expect(diffSnapshots(a, b).diff.devicesAdded).toEqual([b.sessions[0]!.devices[1]!.key]);
  });

  it('reports multipath path failure and recovery', () => {
    const a = snapshot({ multipath: [map('dm-0', 'mpatha', ['sdc', 'sdd'])] });
    const b = snapshot({ multipath: [map('dm-0', 'mpatha', ['sdc', 'sdd'], ['sdd'])] });
    expect(messages(a, b)).toEqual(['path sdd of mpatha failed']);
    expect(messages(b, a)).toEqual(['path sdd of mpatha restored']);
  });

  it('reports iscsi.json written and removed, not when hidden by a mount', () => {
    const dir = '/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-iqn-lun-1';
    const none = snapshot({
      kubelet: { root: '/var/lib/kubelet', volumes: [volume(dir, 'path')], podVolumes: [] },
    });
    const json = snapshot({
      kubelet: { root: '/var/lib/kubelet', volumes: [volume(dir, 'iscsi.json')], podVolumes: [] },
    });
    const hidden = snapshot({
      kubelet: { root: '/var/lib/kubelet', volumes: [volume(dir, 'hidden')], podVolumes: [] },
    });
    expect(messages(none, json)).toEqual(['iscsi.json written for pv-x']);
    expect(messages(json, none)).toEqual(['iscsi.json removed for pv-x']);
    expect(messages(json, hidden)).toEqual([]);
    expect(messages(hidden, json)).toEqual([]);
  });

  it('reports only iSCSI-relevant mounts', () => {
    const pod = '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~iscsi/pv-x';
    const a = snapshot({ mounts: [mount(10, '/')] });
    const b = snapshot({ mounts: [mount(10, '/'), mount(11, pod), mount(12, '/run/containerd/x', '0:55')] });
    expect(messages(a, b)).toEqual([`mounted /dev/sdb (ext4) on ${pod}`]);
    expect(messages(b, a)).toEqual([`mount of ${pod} gone`]);
  });

  it('reports nothing for identical or re-read-but-equal snapshots', () => {
    const a = snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb')])] });
    const b = snapshot({ sessions: [session(1, 'LOGGED_IN', [device(1, 1, 'sdb')])], takenAt: 'later' });
    expect(diffSnapshots(a, a).events).toEqual([]);
    expect(diffSnapshots(a, b).events).toEqual([]);
  });
});
