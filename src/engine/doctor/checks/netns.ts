import { defineCheck } from '../define-check.js';

/**
 * The console's network namespace versus the host's (PID 1's). The iSCSI netlink (NETLINK_ISCSI) is
 * not network-namespace aware and iscsiadm reaches iscsid over an *abstract* unix socket, which is
 * per network namespace: from a container's own netns, iscsiadm cannot talk to the host's iscsid.
 * `--exec nsenter` runs every command in PID 1's namespaces, which makes a foreign netns harmless.
 */
export const networkNamespace = defineCheck(
  { id: 'netns.host', title: "console in the host's network namespace" },
  (ctx) => {
    const self = ctx.host.readLink('/proc/self/ns/net');
    const init = ctx.host.readLink('/proc/1/ns/net');
    if (!self || !init) {
      return {
        status: 'skip',
        evidence:
          `cannot read ${self ? '' : '/proc/self/ns/net '}${init ? '' : '/proc/1/ns/net '}(not root?)`.trim(),
        hint: 'run as root to compare namespaces',
      };
    }
    if (self === init) return { status: 'pass', evidence: `same ${self}` };
    if (ctx.exec === 'nsenter') {
      return {
        status: 'pass',
        evidence: `console ${self}, host ${init}; commands run in the host's via --exec nsenter`,
      };
    }
    return {
      status: 'fail',
      evidence: `console ${self}, host ${init} (--exec ${ctx.exec})`,
      hint: 'iscsiadm would miss the host iscsid: use --exec nsenter (with hostPID), or run the pod with hostNetwork',
    };
  },
);
