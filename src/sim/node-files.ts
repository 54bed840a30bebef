import type { Tree } from './tree.js';

/** Daemons of the simulated node: pid, comm and cmdline as /proc shows them. */
export const DAEMONS = {
  iscsid: { pid: 417, cmdline: ['/sbin/iscsid'] },
  multipathd: { pid: 301, cmdline: ['/sbin/multipathd', '-d', '-s'] },
  'systemd-udevd': { pid: 212, cmdline: ['/lib/systemd/systemd-udevd'] },
  kubelet: {
    pid: 900,
    cmdline: ['/usr/bin/kubelet', '--config=/var/lib/kubelet/config.yaml', '--root-dir=/var/lib/kubelet'],
  },
} as const;
export type DaemonName = keyof typeof DAEMONS;

/** The init net namespace inode (what `doctor` compares between /proc/1 and /proc/self). */
const NET_NS = 'net:[4026531840]';

/** Files that make the tree look like a node: hostname, PID 1, namespaces, kernel modules. */
export function writeNodeFiles(tree: Tree, hostname: string): void {
  tree.dir('/etc');
  tree.file('/etc/hostname', `${hostname}\n`);
  tree.file(
    '/etc/os-release',
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n',
  );
  for (const pid of ['1', 'self']) {
    tree.dir(`/proc/${pid}/ns`);
    tree.link(`/proc/${pid}/ns/net`, NET_NS);
    tree.link(`/proc/${pid}/ns/mnt`, 'mnt:[4026531841]');
  }
  tree.file('/proc/1/comm', 'systemd\n');
  tree.file('/proc/1/cmdline', '/sbin/init\0');
  for (const m of [
    'iscsi_tcp',
    'libiscsi_tcp',
    'libiscsi',
    'scsi_transport_iscsi',
    'dm_multipath',
    'dm_mod',
    'loop',
  ]) {
    tree.dir(`/sys/module/${m}`);
    tree.file(`/sys/module/${m}/refcnt`, '1\n', 0o444);
  }
  tree.dir('/run/lock/iscsi');
  tree.dir('/var/lib/kubelet/pods');
  tree.dir('/var/lib/kubelet/plugins/kubernetes.io/iscsi');
  tree.dir('/mnt');
}

/** Starts or stops a daemon in /proc (and iscsid's pid file). */
export function writeDaemon(tree: Tree, name: DaemonName, running: boolean): void {
  const d = DAEMONS[name];
  if (!running) {
    tree.remove(`/proc/${d.pid}`);
    if (name === 'iscsid') tree.remove('/run/iscsid.pid');
    return;
  }
  tree.dir(`/proc/${d.pid}/ns`);
  tree.file(`/proc/${d.pid}/comm`, `${name.slice(0, 15)}\n`);
  tree.file(`/proc/${d.pid}/cmdline`, `${d.cmdline.join('\0')}\0`);
  tree.link(`/proc/${d.pid}/ns/net`, NET_NS);
  if (name === 'iscsid') tree.file('/run/iscsid.pid', `${d.pid}\n`);
}
