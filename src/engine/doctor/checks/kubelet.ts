import { ISCSI_POD_PLUGIN } from '../../kubelet/paths.js';
import { readKubeletVolumes } from '../../snapshot/kubelet-volumes.js';
import { readMountinfo } from '../../snapshot/mountinfo.js';
import { plural } from '../../text/plural.js';
import { defineCheck } from '../define-check.js';
import { listSome } from '../evidence.js';
import type { DoctorContext } from '../types.js';

/** Process names kubelet runs under: itself, or embedded in k3s (`k3s server` / `k3s agent`). */
const KUBELET_COMMS = ['kubelet', 'k3s-server', 'k3s-agent'] as const;

interface KubeletProcess {
  pid: number;
  comm: string;
  /** `--root-dir` from its command line, when given. */
  rootDir?: string;
}

/** The running kubelet (first match), with its --root-dir flag if it has one. */
function findKubelet(ctx: DoctorContext): KubeletProcess | undefined {
  for (const comm of KUBELET_COMMS) {
    const pid = ctx.processes.pids(comm)[0];
    if (pid === undefined) continue;
    const argv = ctx.processes.cmdline(pid) ?? [];
    const found: KubeletProcess = { pid, comm };
    argv.forEach((a, i) => {
      if (a.startsWith('--root-dir=')) found.rootDir = a.slice('--root-dir='.length);
      else if (a === '--root-dir' && argv[i + 1]) found.rootDir = argv[i + 1];
    });
    return found;
  }
  return undefined;
}

/** kubelet root found (`--kubelet-root`), and the same one the running kubelet uses. */
export const kubeletRoot = defineCheck({ id: 'kubelet.root', title: 'kubelet root found' }, (ctx) => {
  const kubelet = findKubelet(ctx);
  const root = ctx.kubeletRoot;
  if (kubelet?.rootDir && kubelet.rootDir.replace(/\/+$/, '') !== root) {
    return {
      status: 'fail',
      evidence: `kubelet pid ${kubelet.pid} runs with --root-dir ${kubelet.rootDir}; the console reads ${root}`,
      hint: `pass --kubelet-root ${kubelet.rootDir}`,
    };
  }
  if (ctx.host.stat(root) !== 'dir') {
    return {
      status: kubelet ? 'fail' : 'warn',
      evidence: `${root} missing`,
      hint: kubelet
        ? 'pass --kubelet-root <dir> (kubelet --root-dir)'
        : 'not a Kubernetes node, or kubelet uses another --root-dir: pass --kubelet-root <dir>',
    };
  }
  const pods = ctx.host.readDir(`${root}/pods`).length;
  return { status: 'pass', evidence: `${root} (${plural(pods, 'pod dir')})` };
});

/** kubelet running: it attaches and detaches iSCSI volumes on its own schedule. */
export const kubeletRunning = defineCheck({ id: 'kubelet.running', title: 'kubelet running' }, (ctx) => {
  const kubelet = findKubelet(ctx);
  if (!kubelet) {
    return {
      status: 'warn',
      evidence: `no ${KUBELET_COMMS.join(' / ')} in /proc/*/comm`,
      hint: 'pods on this node get no volume attach/detach until kubelet runs: systemctl start kubelet',
    };
  }
  return { status: 'pass', evidence: `${kubelet.comm} pid ${kubelet.pid}` };
});

/**
 * Which iSCSI volumes the running kubelet owns. That is a node's normal state, so it passes; the
 * evidence says what an admin must know before acting on them: kubelet retries attach/detach on its
 * own schedule (its reconciler runs every 100 ms; its per-target lock is in its memory only,
 * docs/kubelet-iscsi.md#data-model-and-naming), so acting on those volumes races it. Counts the
 * global dirs kubelet's getVolCount counts plus pod volume dirs.
 */
export const kubeletOwnsVolumes = defineCheck(
  { id: 'kubelet.volumes', title: 'iSCSI volumes kubelet owns' },
  (ctx) => {
    const problems: string[] = [];
    const mounts = readMountinfo(ctx.host, problems);
    const globals = readKubeletVolumes(ctx.host, ctx.kubeletRoot, mounts).volumes;
    const podDirs: string[] = [];
    for (const pod of ctx.host.readDir(`${ctx.kubeletRoot}/pods`)) {
      for (const sub of ['volumes', 'volumeDevices']) {
        for (const vol of ctx.host.readDir(`${ctx.kubeletRoot}/pods/${pod}/${sub}/${ISCSI_POD_PLUGIN}`)) {
          podDirs.push(`${pod}/${vol}`);
        }
      }
    }
    const kubelet = findKubelet(ctx);
    const owned = `${plural(globals.length, 'global dir')} (${
      listSome(
        globals.map((v) => `${v.iqn} lun ${v.lun}`),
        2,
      ) || 'none'
    }), ${plural(podDirs.length, 'pod volume')}`;
    if (globals.length === 0 && podDirs.length === 0) {
      return { status: 'pass', evidence: `no iSCSI volumes under ${ctx.kubeletRoot}` };
    }
    if (!kubelet) {
      return { status: 'pass', evidence: `kubelet not running; ${owned}` };
    }
    return {
      status: 'pass',
      evidence: `${kubelet.comm} pid ${kubelet.pid} owns ${owned}; it retries attach/detach on its own, so drain the node (kubectl drain) before acting on them`,
    };
  },
);
