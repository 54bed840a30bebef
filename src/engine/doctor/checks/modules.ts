import { defineCheck } from '../define-check.js';
import type { DoctorCheck, DoctorContext } from '../types.js';

/**
 * A kernel module is present when /sys/module/<name> exists (loaded, or built in with parameters),
 * or listed in /lib/modules/<release>/modules.builtin. When it is neither, whether modprobe *can*
 * load it depends on /lib/modules/<running release> existing: on immutable OSes and after kernel
 * updates without a reboot the modules often do not match the running kernel.
 */
function moduleCheck(
  name: string,
  why: string,
  missingStatus: 'warn' | 'fail',
): (ctx: DoctorContext) => DoctorCheck {
  return defineCheck({ id: `module.${name}`, title: `${name} module present` }, (ctx) => {
    if (ctx.host.stat(`/sys/module/${name}`) === 'dir') {
      return { status: 'pass', evidence: `/sys/module/${name}` };
    }
    const release = ctx.host.readText('/proc/sys/kernel/osrelease')?.trim();
    const modDir = release ? `/lib/modules/${release}` : undefined;
    const builtin = modDir ? ctx.host.readText(`${modDir}/modules.builtin`) : undefined;
    if (builtin?.split('\n').some((l) => l.endsWith(`/${name}.ko`))) {
      return { status: 'pass', evidence: `built into the kernel (${modDir}/modules.builtin)` };
    }
    if (modDir && ctx.host.stat(modDir) !== 'dir') {
      return {
        status: 'fail',
        evidence: `no /sys/module/${name}; no ${modDir} for the running kernel ${release}`,
        hint: `modules do not match the running kernel: reboot into the installed kernel or install its modules (${why})`,
      };
    }
    return {
      status: missingStatus,
      evidence: `no /sys/module/${name} (not loaded)`,
      hint: `modprobe ${name} (${why})`,
    };
  });
}

/** iscsi_tcp: the software iSCSI transport; iscsid modprobes it on first login when it can. */
export const iscsiTcpModule = moduleCheck(
  'iscsi_tcp',
  'iscsid loads it at the first login when modprobe works',
  'warn',
);

/** scsi_transport_iscsi: the iSCSI netlink and /sys/class/iscsi_* (loaded with iscsi_tcp). */
export const scsiTransportIscsiModule = moduleCheck(
  'scsi_transport_iscsi',
  'iscsid needs its netlink; iscsi_tcp pulls it in',
  'warn',
);

/** dm_multipath: only multipath volumes need it; multipathd loads it. */
export const dmMultipathModule = moduleCheck(
  'dm_multipath',
  'needed for multipath maps; multipathd loads it',
  'warn',
);
