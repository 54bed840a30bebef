import { afterEach, describe, expect, it } from 'vitest';
import { parsePortalEntry, parseRecord, takeSnapshot } from '../../src/engine/snapshot/index.js';
import { captureStdout } from '../helpers/materialize-sysfs.js';
import { FixtureRoot, IQN1, IQN2, KROOT } from './fixture-root.js';

const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const SECRET = 'S3cretPassw0rd-never-shown';

describe('open-iscsi DB read directly (no iscsiadm)', () => {
  it('reads node records, ifaces and the initiator name; CHAP is only a boolean', () => {
    const f = new FixtureRoot();
    fixtures.push(f);
    f.write(`/etc/iscsi/nodes/${IQN1}/127.0.0.1,3260,1/default`, captureStdout('node-show.txt'));
    // The DB holds the real secret (iscsiadm masks it when printing): it must never reach the snapshot.
    f.write(
      `/etc/iscsi/nodes/${IQN2}/127.0.0.1,3260,1/default`,
      captureStdout('node-show-chap.txt').replace('********', SECRET),
    );
    f.write(
      `/etc/iscsi/nodes/${IQN2}/fd00::1,3260,1/iface0`,
      'node.name = ' + IQN2 + '\nnode.startup = automatic\n',
    );
    f.write(
      '/etc/iscsi/ifaces/iface0',
      captureStdout('iface-default-show.txt').replace(
        'iface.iscsi_ifacename = default',
        'iface.iscsi_ifacename = iface0',
      ),
    );
    f.write(
      '/etc/iscsi/initiatorname.iscsi',
      '## DO NOT EDIT\n# InitiatorName=iqn.commented:out\nInitiatorName=iqn.1993-08.org.debian:01:labguest0001\n',
    );
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.node.initiatorName).toBe('iqn.1993-08.org.debian:01:labguest0001');
    expect(snap.nodeRecords).toEqual([
      {
        targetIqn: IQN1,
        portal: '127.0.0.1:3260',
        tpgt: 1,
        iface: 'default',
        startup: 'manual',
        scan: 'auto',
        chap: false,
        path: `/etc/iscsi/nodes/${IQN1}/127.0.0.1,3260,1/default`,
      },
      {
        targetIqn: IQN2,
        portal: '127.0.0.1:3260',
        tpgt: 1,
        iface: 'default',
        startup: 'manual',
        scan: 'auto',
        chap: true,
        path: `/etc/iscsi/nodes/${IQN2}/127.0.0.1,3260,1/default`,
      },
      {
        targetIqn: IQN2,
        portal: '[fd00::1]:3260',
        tpgt: 1,
        iface: 'iface0',
        startup: 'automatic',
        chap: false,
        path: `/etc/iscsi/nodes/${IQN2}/fd00::1,3260,1/iface0`,
      },
    ]);
    expect(snap.ifaces).toEqual([{ name: 'iface0', transport: 'tcp', path: '/etc/iscsi/ifaces/iface0' }]);
    const json = JSON.stringify(snap);
    expect(json).not.toContain(SECRET);
    expect(json).not.toContain('labuser');
  });

  it('tolerates the older layout (record file per portal) under /var/lib/iscsi', () => {
    const f = new FixtureRoot();
    fixtures.push(f);
    f.write(`/var/lib/iscsi/nodes/${IQN1}/127.0.0.1,3260`, captureStdout('node-show.txt'));
    f.write(`/var/lib/iscsi/nodes/${IQN1}/bogus`, 'x');
    const snap = takeSnapshot(f.host(), { kubeletRoot: KROOT });
    expect(snap.nodeRecords).toEqual([
      {
        targetIqn: IQN1,
        portal: '127.0.0.1:3260',
        tpgt: 1,
        iface: 'default',
        startup: 'manual',
        scan: 'auto',
        chap: false,
        path: `/var/lib/iscsi/nodes/${IQN1}/127.0.0.1,3260`,
      },
    ]);
    expect(snap.problems).toContain(
      `/var/lib/iscsi/nodes/${IQN1}/bogus: not an <address>,<port>,<tpgt> node record entry`,
    );
  });

  it('parses record lines and portal entries', () => {
    const r = parseRecord(
      '# BEGIN RECORD 2.1.8\nnode.name = iqn.x\nnode.session.auth.password = p\niface.ipaddress = <empty>\n',
    );
    expect([...r]).toEqual([['node.name', 'iqn.x']]);
    expect(parsePortalEntry('fd00::1,3260,1')).toEqual({ address: 'fd00::1', port: 3260, tpgt: 1 });
    expect(parsePortalEntry('10.0.0.1,3260,-1')).toEqual({ address: '10.0.0.1', port: 3260, tpgt: -1 });
    expect(parsePortalEntry('san-a.example.com,3260')).toEqual({ address: 'san-a.example.com', port: 3260 });
    expect(parsePortalEntry('nope')).toBeUndefined();
  });
});
