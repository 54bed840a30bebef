/**
 * A thin typed wrapper over `host.run` for iscsiadm: exit codes named from open-iscsi's table,
 * exit 6 (ISCSI_ERR_IDBM, the node DB lock) retried with backoff as Longhorn and democratic-csi do
 * (docs/field-incidents.md#11-node-db-locked), idempotent codes (15 on login, 21/2 on logout and delete) accepted, and a timeout on
 * every call (kubelet has none; csi-lib-iscsi gives iscsiadm 3 s, kubernetes-csi/csi-lib-iscsi iscsi/iscsiadm.go; hangs happen).
 */
import { ExternalCommandError } from '../errors.js';
import type { Host, RunResult } from '../host/host.js';
import { describeIscsiadmExit, IscsiErr } from '../iscsiadm/exit-codes.js';

const ISCSIADM_TIMEOUT_MS = 30_000;

export interface IscsiadmOptions {
  /** Exit codes that count as success besides 0. */
  okExitCodes?: readonly number[];
  timeoutMs?: number;
  /** Values substituted into argv that must never be recorded (CHAP). */
  secrets?: readonly string[];
  signal?: AbortSignal;
  /** Attempts on exit 6 (default 4: waits 200, 400, 800 ms between). */
  idbmAttempts?: number;
  /** Sleep used between retries (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** Told each child's pid when it starts and ends (RunOptions.onChild). */
  onChild?: (pid: number, exited: boolean) => void;
}

export interface IscsiadmResult extends RunResult {
  /** Symbolic name of the exit code (ISCSI_ERR_SESS_EXISTS). */
  exitName: string;
  /** Accepted through okExitCodes rather than exit 0. */
  idempotent: boolean;
  attempts: number;
  ok: boolean;
}

export const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs a command; for iscsiadm the exit 6 retry applies. Never throws for a non-zero exit. */
export async function runCommand(
  host: Host,
  argv: readonly string[],
  o: IscsiadmOptions = {},
): Promise<IscsiadmResult> {
  const isIscsiadm = argv[0] === 'iscsiadm';
  const attempts = isIscsiadm ? (o.idbmAttempts ?? 4) : 1;
  const sleep = o.sleep ?? realSleep;
  let result: RunResult | undefined;
  let n = 0;
  for (n = 1; n <= attempts; n++) {
    result = await host.run(argv, {
      timeoutMs: o.timeoutMs ?? ISCSIADM_TIMEOUT_MS,
      ...(o.secrets && o.secrets.length > 0 ? { secrets: o.secrets } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onChild ? { onChild: o.onChild } : {}),
    });
    if (result.exitCode !== IscsiErr.IDBM || n === attempts || o.signal?.aborted) break;
    await sleep(200 * 2 ** (n - 1));
  }
  const r = result!;
  const code = r.exitCode;
  const exitName =
    code === null
      ? r.timedOut
        ? 'TIMEOUT'
        : (r.spawnError ?? 'KILLED')
      : isIscsiadm
        ? describeIscsiadmExit(code).name
        : `exit ${code}`;
  const idempotent = code !== null && code !== 0 && (o.okExitCodes ?? []).includes(code);
  return { ...r, exitName, idempotent, attempts: Math.min(n, attempts), ok: code === 0 || idempotent };
}

/** The last meaningful stderr line (`iscsiadm: initiator reported error (24 - ...)`). */
function stderrSummary(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/systemd|Failed to connect to bus/.test(l));
  return lines.find((l) => /reported error/.test(l)) ?? lines[lines.length - 1] ?? '';
}

/** A typed error for a failed command, with the iscsiadm code name and hint. argv is already masked. */
export function commandError(r: IscsiadmResult): ExternalCommandError {
  const isIscsiadm = r.argv.includes('iscsiadm');
  const shown = r.argv.join(' ');
  if (r.timedOut) {
    return new ExternalCommandError(
      `${shown} timed out after ${r.durationMs} ms`,
      r.argv,
      null,
      'TIMEOUT',
      r.stderr,
      true,
      isIscsiadm
        ? 'iscsiadm hung: iscsid may be stuck or a portal unreachable; check `systemctl status iscsid`.'
        : 'The command hung; the node may be under I/O pressure.',
    );
  }
  if (r.spawnError) {
    return new ExternalCommandError(
      `${r.argv[0]} could not be started (${r.spawnError})`,
      r.argv,
      null,
      r.spawnError,
      r.stderr,
      false,
      `Is ${r.argv[0]} installed on the node? In a debug pod use --exec nsenter.`,
    );
  }
  const code = r.exitCode ?? -1;
  const d = isIscsiadm ? describeIscsiadmExit(code) : undefined;
  const what = d ? ` ${d.name}${d.message ? ` (${d.message})` : ''}` : '';
  const tail = stderrSummary(r.stderr);
  const retried = r.attempts > 1 ? ` after ${r.attempts} attempts` : '';
  return new ExternalCommandError(
    `${shown} failed${retried}: exit ${code}${what}${tail ? ` — ${tail}` : ''}`,
    r.argv,
    code,
    d?.name,
    r.stderr,
    false,
    d?.hint,
  );
}
