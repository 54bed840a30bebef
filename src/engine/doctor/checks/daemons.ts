import { hasIscsidSocket, ISCSID_ABSTRACT_SOCKET, ISCSID_PID_FILE } from '../../snapshot/iscsid.js';
import { defineCheck } from '../define-check.js';
import type { DoctorCheck, DoctorContext } from '../types.js';

/** iscsid running: pid from /proc/*\/comm (and /run/iscsid.pid), listening socket. */
export const iscsidRunning = defineCheck({ id: 'iscsid.running', title: 'iscsid running' }, (ctx) => {
  const pids = ctx.processes.pids('iscsid');
  const pidFile = ctx.host.readText(ISCSID_PID_FILE)?.trim();
  if (pids.length === 0) {
    // systemd socket activation: PID 1 holds the socket and starts iscsid on the first iscsiadm call.
    if (hasIscsidSocket(ctx.host, 1) === true) {
      return {
        status: 'warn',
        evidence: `no iscsid process; PID 1 listens on ${ISCSID_ABSTRACT_SOCKET} (iscsid.socket activation)`,
        hint: 'iscsid starts on the first iscsiadm call; to start it now: systemctl start iscsid',
      };
    }
    return {
      status: 'fail',
      evidence: `no iscsid in /proc/*/comm${pidFile ? ` (stale ${ISCSID_PID_FILE}: ${pidFile})` : ''}`,
      hint: 'systemctl enable --now iscsid (iscsiadm fails with exit 20 "could not connect to iscsid" without it)',
    };
  }
  const parts = [`pid ${pids.join(', ')}`];
  if (pidFile) parts.push(`${ISCSID_PID_FILE} ${pidFile}${pids.includes(Number(pidFile)) ? '' : ' (stale)'}`);
  const seen = pids.map((pid) => hasIscsidSocket(ctx.host, pid));
  const socket = seen.includes(true) ? true : seen.includes(false) ? false : undefined;
  if (socket === undefined) parts.push('socket not checked (no /proc/<pid>/net/unix)');
  else parts.push(socket ? `socket ${ISCSID_ABSTRACT_SOCKET}` : `socket ${ISCSID_ABSTRACT_SOCKET} not found`);
  if (socket === false) {
    return {
      status: 'warn',
      evidence: parts.join('; '),
      hint: 'iscsiadm cannot reach an iscsid without its socket: systemctl restart iscsid',
    };
  }
  return { status: 'pass', evidence: parts.join('; ') };
});

/** A helper daemon found by its comm name; missing means warn or fail, as the caller decides. */
function daemonRunning(
  id: string,
  title: string,
  names: readonly string[],
  missing: Pick<DoctorCheck, 'status' | 'hint'>,
): (ctx: DoctorContext) => DoctorCheck {
  return defineCheck({ id, title }, (ctx) => {
    for (const name of names) {
      const pids = ctx.processes.pids(name);
      if (pids.length > 0) return { status: 'pass', evidence: `${name} pid ${pids.join(', ')}` };
    }
    return { evidence: `no ${names.join(' or ')} in /proc/*/comm`, ...missing };
  });
}

/** multipathd: without it dm-multipath maps are neither created nor healed (paths stay failed). */
export const multipathdRunning = daemonRunning('multipathd.running', 'multipathd running', ['multipathd'], {
  status: 'warn',
  hint: 'only needed for multipath volumes: systemctl enable --now multipathd',
});

/**
 * udevd: kubelet waits for /dev/disk/by-path/ip-<portal>-iscsi-<iqn>-lun-<n>, which only udev creates
 * (docs/kubelet-iscsi.md#by-path-names; without udevd there is no /dev/disk at all, captures udev-before-start.txt).
 */
export const udevdRunning = daemonRunning(
  'udevd.running',
  'systemd-udevd running',
  ['systemd-udevd', 'udevd'],
  {
    status: 'fail',
    hint: 'systemctl start systemd-udevd; kubelet times out waiting for /dev/disk/by-path links without it',
  },
);
