import * as fs from 'node:fs';
import { it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { probeProc } from '../../src/watchers/proc-probe.js';
import { SysfsProber } from '../../src/watchers/sysfs-probe.js';
import { generateFixtureRoot } from '../helpers/generate-fixture-root.js';

const root = '/tmp/w6/scale';
it('scratch', () => {
  if (!fs.existsSync(`${root}/done`)) {
    fs.rmSync(root, { recursive: true, force: true });
    fs.mkdirSync(root, { recursive: true });
    generateFixtureRoot(root, { sessions: 1000, luns: 1, kubeletRoot: '/var/lib/kubelet' });
    fs.writeFileSync(`${root}/done`, '');
  }
  const host = new FsHost({ root, runner: { mode: 'direct' } });
  const cpu = (label: string, f: () => void, n = 10) => {
    f();
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const c = process.cpuUsage(c0);
    console.log(label, ((c.user + c.system) / 1000 / n).toFixed(2), 'ms');
  };
  const sess = fs.readdirSync(`${root}/sys/class/iscsi_session`);
  const devs = fs.readdirSync(`${root}/sys/bus/scsi/devices`).filter((d) => /^\d+:\d+:\d+:\d+$/.test(d));
  for (let k = 0; k < 2; k++) {
    const pr = new SysfsProber(host);
    console.log('reads', pr.probe().reads, pr.probe().reads);
    cpu('probe', () => pr.probe());
    cpu('probeProc', () => probeProc(host));
    cpu('host.readDir bus', () => host.readDir('/sys/bus/scsi/devices'));
    cpu('host.readDir sess', () => host.readDir('/sys/class/iscsi_session'));
    cpu('host.readDir block', () => host.readDir('/sys/block'));
    const disks = devs.filter((d) => !d.endsWith(':0'));
    cpu('host.readText 1000 disk states', () => {
      for (const d of disks) host.readText(`/sys/bus/scsi/devices/${d}/state`);
    });
    cpu('fs.readFileSync 1000 disk states', () => {
      for (const d of disks) fs.readFileSync(`${root}/sys/bus/scsi/devices/${d}/state`, 'utf8');
    });
    cpu('raw class paths', () => {
      for (const s of sess) fs.readFileSync(`${root}/sys/class/iscsi_session/${s}/state`, 'utf8');
      for (const d of devs) fs.readFileSync(`${root}/sys/bus/scsi/devices/${d}/state`, 'utf8');
    });
    const real = [
      ...sess.map((s) => fs.realpathSync(`${root}/sys/class/iscsi_session/${s}/state`)),
      ...devs.map((d) => fs.realpathSync(`${root}/sys/bus/scsi/devices/${d}/state`)),
    ];
    cpu('raw real paths', () => {
      for (const p of real) fs.readFileSync(p, 'utf8');
    });
    const buf = Buffer.alloc(256);
    cpu('open/read/close real', () => {
      for (const p of real) {
        const fd = fs.openSync(p, 'r');
        fs.readSync(fd, buf, 0, 256, 0);
        fs.closeSync(fd);
      }
    });
    cpu('readdirs', () => {
      fs.readdirSync(`${root}/sys/class/iscsi_session`);
      fs.readdirSync(`${root}/sys/bus/scsi/devices`);
      fs.readdirSync(`${root}/sys/block`);
    });
  }
  console.log('devs', devs.length, 'mountinfo bytes', fs.statSync(`${root}/proc/1/mountinfo`).size);
}, 600_000);
