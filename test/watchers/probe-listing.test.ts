/**
 * The sysfs probe lists SCSI devices from /sys/class/scsi_device (H:C:T:L only), and from the bus
 * when the class lists nothing (a tree without the class: the simulator's lean profile).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { SysfsProber } from '../../src/watchers/sysfs-probe.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** One session on host0: LUN 0 a controller, LUN 1 a disk; the class links only when asked. */
function tree(withClass: boolean): { root: string; host: FsHost } {
  const root = mkdtempSync(join(tmpdir(), 'probe-listing-'));
  roots.push(root);
  const at = (p: string) => join(root, p);
  const tdir = 'sys/devices/platform/host0/session1/target0:0:0';
  for (const d of ['sys/bus/scsi/devices', 'sys/class/scsi_device', 'sys/class/iscsi_session', 'sys/block'])
    mkdirSync(at(d), { recursive: true });
  symlinkSync('../../../devices/platform/host0', at('sys/bus/scsi/devices/host0'));
  symlinkSync(`../../../${tdir.slice(4)}`, at('sys/bus/scsi/devices/target0:0:0'));
  for (const [lun, type, state] of [
    [0, '12', 'running'],
    [1, '0', 'offline'],
  ] as const) {
    const id = `0:0:0:${lun}`;
    const dir = `${tdir}/${id}`;
    mkdirSync(at(`${dir}/scsi_device/${id}`), { recursive: true });
    writeFileSync(at(`${dir}/type`), `${type}\n`);
    writeFileSync(at(`${dir}/state`), `${state}\n`);
    symlinkSync(`../../../${dir.slice(4)}`, at(`sys/bus/scsi/devices/${id}`));
    if (withClass) symlinkSync(`../../${dir.slice(4)}/scsi_device/${id}`, at(`sys/class/scsi_device/${id}`));
  }
  return { root, host: new FsHost({ root, runner: { mode: 'direct' } }) };
}

describe('SysfsProber device listing', () => {
  it('sees the same devices and states from the class as from the bus', () => {
    const fromClass = new SysfsProber(tree(true).host).probe().detail;
    const fromBus = new SysfsProber(tree(false).host).probe().detail;
    expect(fromClass.hctls).toEqual(['0:0:0:0', '0:0:0:1']);
    expect(fromClass.deviceStates).toEqual(['', 'offline\n']);
    expect(fromBus.hctls).toEqual(fromClass.hctls);
    expect(fromBus.deviceStates).toEqual(fromClass.deviceStates);
  });

  it('sees a device removed from the class (removed there first by the kernel)', () => {
    const { root, host } = tree(true);
    const prober = new SysfsProber(host);
    expect(prober.probe().detail.hctls).toEqual(['0:0:0:0', '0:0:0:1']);
    rmSync(join(root, 'sys/class/scsi_device/0:0:0:1'));
    expect(prober.probe().detail.hctls).toEqual(['0:0:0:0']);
    prober.close();
  });
});

describe('SysfsProber session states implied by their disks', () => {
  /** session1 on host0 with a controller (LUN 0) and two disks (LUNs 1, 2), all running. */
  function sessionTree() {
    const root = mkdtempSync(join(tmpdir(), 'probe-implied-'));
    roots.push(root);
    const at = (p: string) => join(root, p);
    const sdir = 'sys/devices/platform/host0/session1';
    mkdirSync(at(`${sdir}/iscsi_session/session1`), { recursive: true });
    writeFileSync(at(`${sdir}/iscsi_session/session1/state`), 'LOGGED_IN\n');
    for (const d of ['sys/class/scsi_device', 'sys/class/iscsi_session', 'sys/block', 'sys/bus/scsi/devices'])
      mkdirSync(at(d), { recursive: true });
    symlinkSync(`../../${sdir.slice(4)}/iscsi_session/session1`, at('sys/class/iscsi_session/session1'));
    const state = (lun: number) => at(`${sdir}/target0:0:0/0:0:0:${lun}/state`);
    for (const [lun, type] of [
      [0, '12'],
      [1, '0'],
      [2, '0'],
    ] as const) {
      const id = `0:0:0:${lun}`;
      const dir = `${sdir}/target0:0:0/${id}`;
      mkdirSync(at(`${dir}/scsi_device/${id}`), { recursive: true });
      writeFileSync(at(`${dir}/type`), `${type}\n`);
      writeFileSync(state(lun), 'running\n');
      symlinkSync(`../../../${dir.slice(4)}`, at(`sys/bus/scsi/devices/${id}`));
      symlinkSync(`../../${dir.slice(4)}/scsi_device/${id}`, at(`sys/class/scsi_device/${id}`));
    }
    const prober = new SysfsProber(new FsHost({ root, runner: { mode: 'direct' } }));
    return { prober, setState: (lun: number, s: string) => writeFileSync(state(lun), `${s}\n`) };
  }

  it('reads the session state only while one of its disks is not running, pass after pass', () => {
    const { prober, setState } = sessionTree();
    const states = () => prober.probe().detail.sessionStates;
    expect(states()).toEqual(['']);
    // The disk that is not running comes first: the running one after it must not hide it.
    setState(1, 'blocked');
    expect(states()).toEqual(['LOGGED_IN\n']);
    setState(1, 'running');
    setState(2, 'blocked');
    expect(states()).toEqual(['LOGGED_IN\n']);
    setState(2, 'running');
    expect(states()).toEqual(['']);
    expect(states()).toEqual(['']);
    prober.close();
  });
});
