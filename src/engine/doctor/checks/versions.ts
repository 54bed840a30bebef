import type { RunResult } from '../../host/host.js';
import { versionArgv } from '../../iscsiadm/argv.js';
import { defineCheck } from '../define-check.js';
import type { DoctorContext } from '../types.js';

/** `iscsiadm version 2.1.8` / `iscsid version 2.1.8` (open-iscsi prints `<prog> version <ISCSI_VERSION_STR>`). */
function parseToolVersion(text: string): string | undefined {
  return /\bversion\s+(\S+)/.exec(text)?.[1];
}

function describe(r: RunResult): string {
  if (r.spawnError) return `not found (${r.spawnError})`;
  if (r.timedOut) return 'timed out';
  return `exit ${r.exitCode}`;
}

/** What the kernel appends to /proc/<pid>/exe when the running binary was unlinked or replaced. */
const DELETED = ' (deleted)';

/**
 * Running iscsid processes whose binary is gone from disk: after an open-iscsi upgrade without a
 * restart, `iscsid --version` answers for the NEW file while the daemon iscsiadm talks to is the old
 * one, so equal version strings prove nothing. /proc/<pid>/exe then ends in " (deleted)" (proc(5)).
 */
function replacedDaemons(ctx: DoctorContext): string[] {
  return ctx.processes
    .pids('iscsid')
    .map((pid) => [pid, ctx.host.readLink(`/proc/${pid}/exe`)] as const)
    .filter(([, exe]) => exe?.endsWith(DELETED))
    .map(([pid, exe]) => `running iscsid pid ${pid} is ${exe}`);
}

/**
 * iscsiadm and iscsid must be the same open-iscsi release: their IPC structs (iscsiadm_req/rsp) are
 * not a stable protocol, so a mixed pair (e.g. a container's iscsiadm against the host's iscsid)
 * fails in odd ways. Both are asked through the Host, i.e. through the chosen --exec mode.
 */
export const versionsMatch = defineCheck(
  { id: 'iscsi.versions', title: 'iscsiadm and iscsid versions equal' },
  async (ctx) => {
    const [adm, d] = await Promise.all([
      ctx.host.run(versionArgv(), { timeoutMs: ctx.timeoutMs }),
      ctx.host.run(['iscsid', '--version'], { timeoutMs: ctx.timeoutMs }),
    ]);
    const admV = adm.exitCode === 0 ? parseToolVersion(adm.stdout + adm.stderr) : undefined;
    const dV = d.exitCode === 0 ? parseToolVersion(d.stdout + d.stderr) : undefined;
    const replaced = replacedDaemons(ctx);
    const evidence = [`iscsiadm ${admV ?? describe(adm)}, iscsid ${dV ?? describe(d)}`, ...replaced].join(
      '; ',
    );
    if (admV === undefined) {
      return {
        status: 'fail',
        evidence,
        hint: adm.spawnError
          ? `install open-iscsi on the host (--exec ${ctx.exec}); in a container use --root /host --exec nsenter`
          : 'iscsiadm --version failed: check the open-iscsi installation',
      };
    }
    if (dV === undefined) {
      return {
        status: 'warn',
        evidence,
        hint: 'cannot compare: iscsid --version did not answer; check that iscsid is the same open-iscsi as iscsiadm',
      };
    }
    if (admV !== dV) {
      return {
        status: 'fail',
        evidence,
        hint: 'use the iscsiadm of the same open-iscsi release as the running iscsid (no stable protocol between them)',
      };
    }
    if (replaced.length > 0) {
      return {
        status: 'warn',
        evidence,
        hint: 'iscsid runs a binary that is no longer on disk (open-iscsi upgraded without a restart): its version may differ; restart iscsid (systemctl restart iscsid) at a quiet moment',
      };
    }
    return { status: 'pass', evidence };
  },
);
