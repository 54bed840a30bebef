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

/**
 * The abstract unix socket iscsid listens on and iscsiadm connects to (open-iscsi usr/mgmt_ipc.c
 * and usr/iscsid_req.c, ISCSIADM_NAMESPACE). /proc/net/unix shows an abstract name with a leading '@'.
 */
const ISCSID_SOCKET = '@ISCSIADM_ABSTRACT_NAMESPACE';

/** /proc/net/unix's header line (net/unix/af_unix.c unix_seq_show). */
const UNIX_HEADER = 'Num       RefCount Protocol Flags    Type St Inode Path\n';

/**
 * The node's unix socket table as /proc/<pid>/net/unix shows it. Every simulated process shares the
 * init network namespace, so every running process (PID 1, self, the daemons) sees the same table.
 * While iscsid runs it holds its listening socket: `%pK` (zeros without kptr access), refcount 2,
 * protocol 0, flags __SO_ACCEPTCON (listening), type SOCK_STREAM, state SS_UNCONNECTED, inode,
 * name — the format of unix_seq_show. Stopping iscsid closes it (iscsiadm then gets "can not
 * connect to iSCSI daemon (111)", err-discovery-without-iscsid.txt).
 */
export function writeUnixSockets(tree: Tree, running: { iscsid: boolean; multipathd: boolean }): void {
  const table =
    UNIX_HEADER +
    (running.iscsid ? `0000000000000000: 00000002 00000000 00010000 0001 01 17893 ${ISCSID_SOCKET}\n` : '');
  const pids: string[] = ['1', 'self'];
  for (const [name, d] of Object.entries(DAEMONS) as [DaemonName, (typeof DAEMONS)[DaemonName]][]) {
    if (name === 'iscsid' || name === 'multipathd' ? running[name] : true) pids.push(String(d.pid));
  }
  for (const pid of pids) {
    tree.dir(`/proc/${pid}/net`);
    tree.file(`/proc/${pid}/net/unix`, table, 0o444);
  }
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

/**
 * What kubelet keeps on the node for a running pod, by which the console names it: the pod's log
 * dir `/var/log/pods/<namespace>_<name>_<uid>/<container>` (kubernetes
 * pkg/kubelet/kuberuntime/helpers.go, BuildPodLogsDirectory) and its hosts file
 * `<kubelet root>/pods/<uid>/etc-hosts` (pkg/kubelet/kubelet_pods.go, managedHostsFileContent).
 */
export function writePod(
  tree: Tree,
  kubeletRoot: string,
  uid: string,
  name: string,
  namespace: string,
): void {
  tree.dir(`/var/log/pods/${namespace}_${name}_${uid}/main`);
  tree.dir(`${kubeletRoot}/pods/${uid}`);
  // A pod IP from the node's pod CIDR, fixed per UID (reproducible demos).
  const ip = `10.244.0.${(Number.parseInt(uid.slice(0, 2), 16) % 250) + 2}`;
  tree.file(
    `${kubeletRoot}/pods/${uid}/etc-hosts`,
    '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' +
      'fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n' +
      `${ip}\t${name}\n`,
  );
}
