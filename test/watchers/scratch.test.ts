import * as fs from 'node:fs';
import { it } from 'vitest';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { probeSysfs } from '../../src/watchers/sysfs-probe.js';
import { probeProc } from '../../src/watchers/proc-probe.js';
import { generateFixtureRoot } from '../helpers/generate-fixture-root.js';
import { tempRoot } from '../helpers/materialize-sysfs.js';

it('scratch', () => {
  const root = tempRoot('iscsi-scr-');
  let t = performance.now();
  generateFixtureRoot(root, { sessions: 1000, luns: 1, kubeletRoot: '/var/lib/kubelet' });
  console.log('gen', performance.now() - t);
  const host = new FsHost({ root, runner: { mode: 'direct' } });
  const cpu = (label: string, f: () => void, n = 10) => {
    f();
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const c = process.cpuUsage(c0);
    console.log(label, ((c.user + c.system) / 1000 / n).toFixed(2), 'ms');
  };
  cpu('probeSysfs', () => probeSysfs(host));
  cpu('probeProc', () => probeProc(host));
  const sess = fs.readdirSync(`${root}/sys/class/iscsi_session`);
  const devs = fs.readdirSync(`${root}/sys/class/scsi_device`);
  cpu('raw class paths', () => {
    for (const s of sess) fs.readFileSync(`${root}/sys/class/iscsi_session/${s}/state`, 'utf8');
    for (const d of devs) fs.readFileSync(`${root}/sys/class/scsi_device/${d}/device/state`, 'utf8');
  });
  const real = [...sess.map((s) => fs.realpathSync(`${root}/sys/class/iscsi_session/${s}/state`)), ...devs.map((d) => fs.realpathSync(`${root}/sys/class/scsi_device/${d}/device/state`))];
  cpu('raw real paths', () => { for (const p of real) fs.readFileSync(p, 'utf8'); });
  const buf = Buffer.alloc(256);
  cpu('open/read/close real', () => { for (const p of real) { const fd = fs.openSync(p, 'r'); fs.readSync(fd, buf, 0, 256, 0); fs.closeSync(fd); } });
  cpu('readdirs', () => { fs.readdirSync(`${root}/sys/class/iscsi_session`); fs.readdirSync(`${root}/sys/class/scsi_device`); fs.readdirSync(`${root}/sys/block`); });
  console.log('mountinfo bytes', fs.statSync(`${root}/proc/1/mountinfo`).size);
  t = performance.now();
  fs.rmSync(root, { recursive: true, force: true });
  console.log('rm', performance.now() - t);
}, 600_000);
