import type { RunResult } from '../../host/host.js';
import type { DoctorCheck, DoctorContext } from '../types.js';

/** `iscsiadm version 2.1.8` / `iscsid version 2.1.8` (open-iscsi prints `<prog> version <ISCSI_VERSION_STR>`). */
export function parseToolVersion(text: string): string | undefined {
  return /\bversion\s+(\S+)/.exec(text)?.[1];
}

function describe(r: RunResult): string {
  if (r.spawnError) return `not found (${r.spawnError})`;
  if (r.timedOut) return 'timed out';
  return `exit ${r.exitCode}`;
}

/**
 * iscsiadm and iscsid must be the same open-iscsi release: their IPC structs (iscsiadm_req/rsp) are
 * not a stable protocol, so a mixed pair (e.g. a container's iscsiadm against the host's iscsid)
 * fails in odd ways. Both are asked through the Host, i.e. through the chosen --exec mode.
 */
export async function versionsMatch(ctx: DoctorContext): Promise<DoctorCheck> {
  const base = { id: 'iscsi.versions', title: 'iscsiadm and iscsid versions equal' };
  const [adm, d] = await Promise.all([
    ctx.host.run(['iscsiadm', '--version'], { timeoutMs: ctx.timeoutMs }),
    ctx.host.run(['iscsid', '--version'], { timeoutMs: ctx.timeoutMs }),
  ]);
  const admV = adm.exitCode === 0 ? parseToolVersion(adm.stdout + adm.stderr) : undefined;
  const dV = d.exitCode === 0 ? parseToolVersion(d.stdout + d.stderr) : undefined;
  const evidence = `iscsiadm ${admV ?? describe(adm)}, iscsid ${dV ?? describe(d)}`;
  if (admV === undefined) {
    return {
      ...base,
      status: 'fail',
      evidence,
      hint: adm.spawnError
        ? `install open-iscsi on the host (--exec ${ctx.exec}); in a container use --root /host --exec nsenter`
        : 'iscsiadm --version failed: check the open-iscsi installation',
    };
  }
  if (dV === undefined) {
    return {
      ...base,
      status: 'warn',
      evidence,
      hint: 'cannot compare: iscsid --version did not answer; check that iscsid is the same open-iscsi as iscsiadm',
    };
  }
  if (admV !== dV) {
    return {
      ...base,
      status: 'fail',
      evidence,
      hint: 'use the iscsiadm of the same open-iscsi release as the running iscsid (no stable protocol between them)',
    };
  }
  return { ...base, status: 'pass', evidence };
}
