import type { Host } from '../host/host.js';
import type { Snapshot } from '../model.js';
import { takeSnapshot } from '../snapshot/index.js';
import { DOCTOR_CHECKS } from './checks/index.js';
import { asFinding } from './findings.js';
import { readProcessTable } from './processes.js';
import type {
  DoctorCheck,
  DoctorCheckFn,
  DoctorContext,
  DoctorOptions,
  DoctorReport,
  DoctorSummary,
} from './types.js';

export type { DoctorCheck, DoctorOptions, DoctorReport, DoctorStatus, DoctorSummary } from './types.js';

/** Default timeout of each `--version` command: they answer instantly unless the host is wedged. */
export const DOCTOR_COMMAND_TIMEOUT_MS = 10_000;

/** Counts per status; `ok` when nothing failed. */
export function summarize(checks: readonly DoctorCheck[]): DoctorSummary {
  const s: DoctorSummary = { pass: 0, warn: 0, fail: 0, skip: 0, ok: true };
  for (const c of checks) s[c.status]++;
  s.ok = s.fail === 0;
  return s;
}

/** What every check gets; the snapshot is read once, by the first check that asks for it. */
export function doctorContext(host: Host, options: DoctorOptions): DoctorContext {
  let snap: Snapshot | undefined;
  return {
    host,
    kubeletRoot: options.kubeletRoot,
    exec: options.exec,
    timeoutMs: options.timeoutMs ?? DOCTOR_COMMAND_TIMEOUT_MS,
    processes: readProcessTable(host),
    snapshot: () => {
      snap ??= takeSnapshot(host, { kubeletRoot: options.kubeletRoot });
      return snap;
    },
  };
}

/**
 * Runs every doctor check against a Host (real node, `--root` tree or simulator) and returns the
 * report. Read-only: files through the Host and `iscsiadm --version` / `iscsid --version` only.
 * A check that throws is a bug in the check, reported as its own `fail` rather than losing the rest.
 */
export async function runDoctor(
  host: Host,
  options: DoctorOptions,
  checks: readonly DoctorCheckFn[] = DOCTOR_CHECKS,
): Promise<DoctorReport> {
  const ctx = doctorContext(host, options);
  const results = await Promise.all(
    checks.map(async (check): Promise<DoctorCheck> => {
      try {
        return asFinding(await check(ctx));
      } catch (e) {
        return {
          id: `internal.${check.name || 'check'}`,
          title: `check ${check.name || '(anonymous)'}`,
          status: 'fail',
          evidence: `internal error: ${(e as Error)?.message ?? String(e)}`,
          hint: 'this is a bug in iscsi-console; please report it with this output',
        };
      }
    }),
  );
  return { schemaVersion: 1, checks: results, summary: summarize(results) };
}
