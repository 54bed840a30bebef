/**
 * What one apply run carries between steps: the transport and iface record read by the probe, the
 * hostnames resolved, the device paths found, kubelet's `lastErr`, and every command run (for the
 * journal). Also the one helper that runs a command and records it.
 */
import { RefusedError } from '../errors.js';
import type { Host } from '../host/host.js';
import { formatPortal, parseTargetPortal } from '../iscsi/portal.js';
import type { RecordBackup } from '../iscsiadm/record-secrets.js';
import type { Prober } from '../probe/prober.js';
import type { Created } from './guard/types.js';
import { commandError, type IscsiadmOptions, type IscsiadmResult, runCommand } from './iscsiadm.js';
import type { JournalCommand } from './journal.js';
import type { ListedLun, ResolvedEffect } from './types.js';

export interface Runtime {
  host: Host;
  signal?: AbortSignal;
  secrets: Record<string, string>;
  transport?: string;
  ifaceRecords: Map<string, string>;
  resolved: Map<string, string>;
  /** by-path links found per portal. */
  devices: string[];
  devicePath?: string;
  lastErr?: string;
  warnings: string[];
  /** Commands of the current step (reset per step). */
  commands: JournalCommand[];
  /** Sleep between polls. */
  pollMs: number;
  /** Every wait of the apply (polls, iscsiadm's exit-6 backoff): ApplyOptions.sleep, else real timers. */
  sleep: (ms: number) => Promise<void>;
  /** The clock wait deadlines are measured on (ApplyOptions.now, else the wall clock). */
  now: () => number;
  /** Every child a step starts is reported here (the locks record its pid while it runs). */
  onChild?: (pid: number, exited: boolean) => void;
  /** What the node held before the first change (taken by the first dynamic step), for tidy and rollback. */
  before?: { records: Set<string>; sessions: Set<string>; ifaces: Set<string> };
  /**
   * Record files the CHAP step rewrote in this run, with their bytes before: a failed attach's
   * rollback puts back the ones that existed before it (chap-record.ts restoreChapRecords).
   * Optional: absent until a CHAP step ran.
   */
  recordBackups?: RecordBackup[];
  /** Records SendTargets discovery listed in this run (`iqn|portal|iface`). */
  discovered: string[];
  /** SCSI host each login portal got (`portal → host`), for naming a missing LUN. */
  scannedHosts: Map<string, number>;
  /** list-targets: what the portal offered. */
  targets?: { portal: string; tpgt: number; iqn: string }[];
  /** list-luns: what the temporary session's scan found. */
  luns?: ListedLun[];
  /**
   * The executor's guard for an effect a dynamic step (or the rollback) resolved at apply time:
   * checks it on a fresh snapshot right before the side effect; throws RefusedError. Required, and
   * `refuseUnguarded` until the executor sets it up: a side effect with no guard fails closed.
   */
  guard: (e: ResolvedEffect) => void;
  /** What this apply's own steps created, by fingerprint (guard/executor.ts records it). */
  created: Created;
  /** The guard's verdicts on the current step (journaled with it). */
  verdicts: string[];
  /** Reports a running wait's elapsed time (progress). */
  onWait?: (elapsedMs: number, timeoutMs: number) => void;
  /** The reachability probe (ActionContext.prober), when this context has one. */
  prober?: Prober;
}

/** Runs a command, records it (masked) for the journal, and returns the result. */
export async function record(
  rt: Runtime,
  argv: readonly string[],
  o: IscsiadmOptions = {},
): Promise<IscsiadmResult> {
  // No abort signal: an interrupt stops the plan between steps and never reaches a running command.
  const r = await runCommand(rt.host, argv, {
    sleep: rt.sleep,
    ...(rt.onChild ? { onChild: rt.onChild } : {}),
    ...o,
  });
  rt.commands.push({
    argv: r.argv,
    exitCode: r.exitCode,
    exitName: r.exitName,
    durationMs: r.durationMs,
    ...(r.ok ? {} : { stderr: r.stderr.slice(0, 2000) }),
  });
  return r;
}

/** Runs and throws the typed error when it fails. */
export async function mustRun(
  rt: Runtime,
  argv: readonly string[],
  o: IscsiadmOptions = {},
): Promise<IscsiadmResult> {
  const r = await record(rt, argv, o);
  if (!r.ok) throw commandError(r);
  return r;
}

/** Polls `probe` every rt.pollMs until it returns a value or `timeoutMs` passes (0: one check). */
export async function pollFor<T>(
  rt: Runtime,
  timeoutMs: number,
  probe: () => T | undefined,
): Promise<T | undefined> {
  const start = rt.now();
  const deadline = start + timeoutMs;
  let shown = -1;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (rt.now() >= deadline || rt.signal?.aborted) return undefined;
    // Progress once a second, so a 30 s wait shows its count instead of silence.
    const elapsed = rt.now() - start;
    if (rt.onWait && Math.floor(elapsed / 1000) !== shown) {
      shown = Math.floor(elapsed / 1000);
      rt.onWait(elapsed, timeoutMs);
    }
    await rt.sleep(rt.pollMs);
  }
}

/** A portal as sysfs/the portal→host map knows it: hostnames replaced by their resolved address. */
export function effectivePortal(rt: Runtime, portal: string): string {
  const p = parseTargetPortal(portal);
  if (p?.family !== 'hostname') return portal;
  const addr = rt.resolved.get(p.address);
  return addr ? formatPortal(addr, p.port) : portal;
}

/** A word of an argv that can be a hostname portal: `host:port` (planned portals always carry a port). */
const HOST_PORT = /^[^:[\]]+:\d+$/;

/**
 * Hostname portals in an argv become the address resolved earlier, so open-iscsi's records, sysfs
 * and the portal→host map all agree on one address (kubelet's hostname portals log in twice,
 * rancher/rancher#12433). Only a `host:port` word is taken for a portal (never `-m node`, never an iface
 * name). The kubelet dir and iscsi.json keep the name, as kubelet derives them from the PV.
 */
export function withResolvedPortals(rt: Runtime, argv: readonly string[]): string[] {
  return argv.map((a) => (rt.resolved.size > 0 && HOST_PORT.test(a) ? effectivePortal(rt, a) : a));
}

/** The Runtime's guard before guard/executor.ts sets the real one: every effect is refused. */
export function refuseUnguarded(e: ResolvedEffect): never {
  throw new RefusedError(`refused: no executor guard is set up for ${e.kind}`);
}

/** The guard's refusal of an effect, or undefined when it may run. */
export function guardRefusal(rt: Runtime, e: ResolvedEffect): string | undefined {
  try {
    rt.guard(e);
    return undefined;
  } catch (err) {
    if (err instanceof RefusedError) return err.message;
    throw err;
  }
}
