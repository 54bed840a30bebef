import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initiatorUnique } from '../../src/engine/doctor/checks/initiator.js';
import { iscsidConfStartup, noopOut } from '../../src/engine/doctor/checks/iscsid-settings.js';
import { multipathClaims } from '../../src/engine/doctor/checks/multipath-claims.js';
import {
  devLossTmo,
  noPathRetry,
  tridentFindMultipaths,
} from '../../src/engine/doctor/checks/multipath-config.js';
import { replacementTimeoutLayout } from '../../src/engine/doctor/checks/timeouts.js';
import { doctorContext } from '../../src/engine/doctor/index.js';
import type { DoctorCheck, DoctorCheckFn } from '../../src/engine/doctor/types.js';
import type { Host } from '../../src/engine/host/host.js';
import { FixtureRoot } from '../snapshot/fixture-root.js';
import { FixtureHost, FixtureNode } from './fixture-node.js';

const KROOT = '/var/lib/kubelet';
const run = (host: Host, check: DoctorCheckFn): Promise<DoctorCheck> =>
  Promise.resolve(check(doctorContext(host, { kubeletRoot: KROOT, exec: 'direct' })));

let node: FixtureNode;
beforeEach(() => {
  node = new FixtureNode();
});
afterEach(() => node.cleanup());
const on = (check: DoctorCheckFn) => run(new FixtureHost(node.root), check);
const conf = (text: string) => node.write('/etc/iscsi/iscsid.conf', text);
const mpconf = (text: string) => node.write('/etc/multipath.conf', text);

describe('iscsid.conf', () => {
  it('node.startup automatic: warns, says where and what, cites kubelet; manual passes; no file skips', async () => {
    conf('node.startup = automatic\n');
    const c = await on(iscsidConfStartup);
    expect(c).toMatchObject({ status: 'warn', id: 'iscsid-conf.startup' });
    expect(c.evidence).toContain('node.startup = automatic in /etc/iscsi/iscsid.conf');
    expect(c.hint).toContain('"node.startup = manual" in /etc/iscsi/iscsid.conf');
    expect(c.source).toContain('pkg/volume/iscsi/iscsi_util.go');
    conf('node.startup = manual\n');
    expect((await on(iscsidConfStartup)).status).toBe('pass');
    node.remove('/etc/iscsi/iscsid.conf');
    expect((await on(iscsidConfStartup)).status).toBe('skip');
  });

  it('NOP-Out pings off: warns, unless root is on iSCSI (open-iscsi README section 8.2)', async () => {
    conf('node.conn[0].timeo.noop_out_interval = 0\nnode.conn[0].timeo.noop_out_timeout = 0\n');
    const c = await on(noopOut);
    expect(c.status).toBe('warn');
    expect(c.evidence).toBe(
      'noop_out_interval 0, noop_out_timeout 0 in /etc/iscsi/iscsid.conf: pings are off, so a dead connection is noticed only when a SCSI command times out',
    );
    expect(c.source).toContain('open-iscsi README section 8.1.1');
    node.iscsiRoot('/');
    expect((await on(noopOut)).status).toBe('pass');
    conf('node.conn[0].timeo.noop_out_timeout = 10\n');
    expect(await on(noopOut)).toMatchObject({
      status: 'pass',
      evidence: 'noop_out_interval 5 (default), noop_out_timeout 10 in /etc/iscsi/iscsid.conf',
    });
  });
});

describe('initiator name unique to this node', () => {
  const name = (v: string) => node.write('/etc/iscsi/initiatorname.iscsi', `InitiatorName=${v}\n`);

  it('a distribution prefix alone, or a name published as shared: fails, with the fix', async () => {
    name('iqn.1993-08.org.debian:01:');
    expect(await on(initiatorUnique)).toMatchObject({ status: 'fail' });
    name('iqn.2004-10.com.ubuntu:01:cea0b497234a');
    const c = await on(initiatorUnique);
    expect(c.status).toBe('fail');
    expect(c.evidence).toContain('democratic-csi/democratic-csi#375');
    expect(c.hint).toContain('iscsi-iname');
  });

  it('written before the machine-id (it came with the image): warns; written after: passes', async () => {
    node.write('/etc/machine-id', '0123456789abcdef0123456789abcdef\n');
    const at = (p: string, iso: string) => utimesSync(join(node.root, p), new Date(iso), new Date(iso));
    at('/etc/iscsi/initiatorname.iscsi', '2025-01-10T00:00:00Z');
    at('/etc/machine-id', '2026-03-01T00:00:00Z');
    const c = await on(initiatorUnique);
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('(2025-01-10) is older than /etc/machine-id (2026-03-01)');
    at('/etc/iscsi/initiatorname.iscsi', '2026-03-02T00:00:00Z');
    expect((await on(initiatorUnique)).status).toBe('pass');
  });
});

describe('multipath.conf find_multipaths: Trident only', () => {
  it('Trident not on the node: skipped, whatever the value', async () => {
    mpconf('defaults {\n  find_multipaths yes\n}\n');
    expect(await on(tridentFindMultipaths)).toMatchObject({
      status: 'skip',
      evidence: 'Trident is not on this node (rule not applied); find_multipaths yes (/etc/multipath.conf:2)',
    });
  });

  it('Trident registered: yes and smart fail, no passes, unset warns', async () => {
    node.write(`${KROOT}/plugins_registry/csi.trident.netapp.io-reg.sock`, '');
    mpconf('defaults {\n  find_multipaths "smart"\n}\n');
    const c = await on(tridentFindMultipaths);
    expect(c.status).toBe('fail');
    expect(c.evidence).toContain('Trident (registered with kubelet) refuses to attach');
    expect(c.hint).toBe(
      'set "find_multipaths no" in the defaults section of /etc/multipath.conf; then: multipathd reconfigure',
    );
    expect(c.source).toContain('NetApp/trident utils/iscsi/iscsi.go');
    node.write('/etc/multipath/conf.d/10-trident.conf', 'defaults {\n find_multipaths no\n}\n');
    expect((await on(tridentFindMultipaths)).status).toBe('pass');
    node.remove('/etc/multipath/conf.d').remove('/etc/multipath.conf');
    expect((await on(tridentFindMultipaths)).status).toBe('warn');
  });
});

describe('dev_loss_tmo', () => {
  it('set: a finding that it governs FC/SAS only; with no_path_retry queue and no fast_io_fail_tmo: warns', async () => {
    mpconf('defaults {\n  dev_loss_tmo 600\n}\n');
    expect(await on(devLossTmo)).toMatchObject({
      status: 'pass',
      evidence:
        'dev_loss_tmo defaults: 600: applies to FC and SAS paths only; iSCSI paths follow replacement_timeout',
    });
    mpconf('defaults {\n  dev_loss_tmo 600\n  no_path_retry queue\n}\n');
    expect((await on(devLossTmo)).status).toBe('warn');
  });
});

describe('on the real two-path capture (mp-sysfs: two sessions, two maps over iSCSI)', () => {
  let fx: FixtureRoot;
  beforeEach(() => {
    fx = new FixtureRoot('mp-sysfs.json');
  });
  const S7 = '/sys/devices/platform/host0/session7/iscsi_session/session7';
  const S8 = '/sys/devices/platform/host1/session8/iscsi_session/session8';

  it('no_path_retry unset: with every path down I/O fails; a count passes; queue warns of hangs', async () => {
    let c = await run(fx.host(), noPathRetry);
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('2 map(s) over iSCSI');
    expect(c.evidence).toContain('filesystems on the maps go read-only');
    fx.write('/etc/multipath.conf', 'defaults {\n  polling_interval 5\n  no_path_retry 24\n}\n');
    expect((await run(fx.host(), noPathRetry)).status).toBe('pass');
    fx.write('/etc/multipath.conf', 'defaults {\n  features "1 queue_if_no_path"\n}\n');
    c = await run(fx.host(), noPathRetry);
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('waits forever');
    fx.write(
      '/etc/multipath.conf',
      'defaults {\n  no_path_retry 12\n}\noverrides {\n  no_path_retry queue\n}\n',
    );
    expect((await run(fx.host(), noPathRetry)).evidence).toContain(
      'no_path_retry queue (/etc/multipath.conf:5 (overrides))',
    );
  });

  it('replacement_timeout 5 under multipath passes (the capture); 120 makes multipath wait: warns', async () => {
    expect(await run(fx.host(), replacementTimeoutLayout)).toMatchObject({
      status: 'pass',
      evidence: '2 sessions under multipath, 0 without',
    });
    fx.write(`${S7}/recovery_tmo`, '120\n');
    const c = await run(fx.host(), replacementTimeoutLayout);
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('session 7 (iqn.2024-01.lab.example:storage.target1 127.0.0.2:3260) 120 s');
    expect(c.source).toContain('open-iscsi README section 8.1');
  });

  it("maps over Longhorn's iSCSI devices: fails and names map, device and volume", async () => {
    fx.write(`${S7}/targetname`, 'iqn.2019-10.io.longhorn:pvc-1\n');
    fx.write(`${S8}/targetname`, 'iqn.2019-10.io.longhorn:pvc-1\n');
    const c = await run(fx.host(), multipathClaims);
    expect(c.status).toBe('fail');
    expect(c.evidence).toMatch(/^dm-0 \(\S+\) holds sda of Longhorn volume pvc-1/);
    expect(c.hint).toContain('blacklist { devnode "^sd[a-z0-9]+" }');
    expect(c.source).toContain('longhorn.io/kb/troubleshooting-volume-with-multipath');
  });

  it('a map over a single local disk: warns', async () => {
    fx.write('/sys/block/dm-9/dm/name', 'mpathz\n');
    fx.write('/sys/block/dm-9/dm/uuid', 'mpath-0QEMU_QEMU_HARDDISK_drive0\n');
    fx.write('/sys/block/dm-9/dev', '254:9\n');
    fx.write('/sys/block/dm-9/slaves/vda', '');
    const c = await run(fx.host(), multipathClaims);
    expect(c.status).toBe('warn');
    expect(c.evidence).toBe('dm-9 (mpathz) over vda, a disk with one path and no iSCSI session');
  });

  it('the healthy capture: no map over a device it must not hold', async () => {
    expect(await run(fx.host(), multipathClaims)).toMatchObject({ status: 'pass' });
  });
});

describe('Longhorn on the node before any map: multipathd that takes every disk', () => {
  it('find_multipaths no and no blacklist: warns; the KB blacklist: passes', async () => {
    node.write(`${KROOT}/plugins_registry/driver.longhorn.io-reg.sock`, '');
    mpconf('defaults {\n  find_multipaths no\n}\n');
    const c = await on(multipathClaims);
    expect(c.status).toBe('warn');
    expect(c.evidence).toContain('Longhorn is on this node (registered with kubelet)');
    mpconf('defaults {\n  find_multipaths no\n}\nblacklist {\n  devnode "^sd[a-z0-9]+"\n}\n');
    expect((await on(multipathClaims)).status).toBe('pass');
  });
});
