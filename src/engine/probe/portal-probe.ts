/**
 * One live reachability probe of one iSCSI portal: does the array answer there, right now? It is
 * what tells "wait for the array" (a portal outage) from "repair the node" (sessions stuck while
 * their portal answers; docs/stuck-sessions.md).
 *
 * What goes on the wire, in order, all inside one budget (PROBE_BUDGET_MS, 5 s):
 * 1. one TCP connection to the portal, closed at once with nothing sent (Host.connectTcp). A refused
 *    or unreachable portal is known in milliseconds, without iscsiadm's six connection attempts.
 * 2. when it connected, one SendTargets discovery with `-o nonpersistent` (docs/iscsiadm.md; open-iscsi
 *    usr/iscsiadm.c writes no discovery and no node record for OP_NONPERSISTENT), the attach
 *    wizard's own listing (list-targets.ts' twin in discover.ts). Skipped when discovery CHAP is
 *    configured for the portal (its discovery record or iscsid.conf): the probe sends no
 *    credentials, so the accepted connection is its answer.
 *
 * Exit codes as NetApp Trident reads them (utils/iscsi/iscsi.go isPortalAccessible): 24
 * (ISCSI_ERR_LOGIN_AUTH_FAILED) means the portal answered — it asked for credentials; 4, 8 and 11
 * (ISCSI_ERR_TRANS, _TRANS_TIMEOUT, _PDU_TIMEOUT) mean it did not. A portal that accepts the TCP
 * connection but sends no iSCSI answer within the budget does not answer either.
 */

import { readIscsidConf } from '../doctor/iscsid-conf.js';
import type { Host, RunResult } from '../host/host.js';
import { formatPortal, parseTargetPortal } from '../iscsi/portal.js';
import { sendTargetsListArgv } from '../iscsiadm/argv.js';
import { parseDiscovery } from '../iscsiadm/discovery.js';
import { describeIscsiadmExit, IscsiErr } from '../iscsiadm/exit-codes.js';
import { discoveryRecordFiles, recordFieldValues } from '../iscsiadm/record-secrets.js';
import type { PortalProbe } from '../model.js';
import { isoTime } from '../text/time.js';

/** The most one portal's probe may take, connect and SendTargets together. */
export const PROBE_BUDGET_MS = 5_000;

interface ProbeOptions {
  /** The clock (ms since the epoch): the probe's time stamp. */
  now: () => number;
  /** Total time for this portal (default PROBE_BUDGET_MS); never more. */
  budgetMs?: number;
}

const AUTHMETHOD = 'discovery.sendtargets.auth.authmethod';

/** Discovery CHAP set up for this portal: its discovery record asks for it, or iscsid.conf does. */
function discoveryNeedsCredentials(host: Host, portal: string): boolean {
  for (const f of discoveryRecordFiles(host, portal)) {
    const v = recordFieldValues(host.readText(f) ?? '', [AUTHMETHOD])[AUTHMETHOD];
    if (v !== undefined && v.toUpperCase() === 'CHAP') return true;
  }
  return readIscsidConf(host)?.get(AUTHMETHOD)?.toUpperCase() === 'CHAP';
}

const CONNECT_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'no answer to the TCP connect',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

const exitWords = (code: number) => {
  const e = describeIscsiadmExit(code);
  return `${e.message} (${e.name})`;
};

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Probes one portal (`addr:port` as sysfs shows it). Never throws; never longer than the budget. */
export async function probePortal(host: Host, portal: string, o: ProbeOptions): Promise<PortalProbe> {
  const budget = Math.min(o.budgetMs ?? PROBE_BUDGET_MS, PROBE_BUDGET_MS);
  const startedAt = o.now();
  const at = isoTime(startedAt);
  const result = (answers: boolean | undefined, via: PortalProbe['via'], detail: string): PortalProbe => ({
    portal,
    at,
    answers,
    via,
    detail,
    durationMs: Math.max(0, o.now() - startedAt),
  });
  const p = parseTargetPortal(portal);
  if (!p) return result(undefined, 'none', 'not probed: not a portal address');
  const tcp = await host.connectTcp(p.address, p.port, budget);
  if (tcp.outcome === 'not-allowed')
    return result(undefined, 'none', `not probed: ${tcp.detail ?? 'not a live node'}`);
  if (tcp.outcome === 'failed') {
    const words = CONNECT_WORDS[tcp.code ?? ''] ?? tcp.code ?? 'connect failed';
    const within = tcp.code === 'ETIMEDOUT' ? ` within ${seconds(budget)}` : '';
    return result(false, 'tcp', `${words}${within}`);
  }
  if (discoveryNeedsCredentials(host, portal))
    return result(true, 'tcp', 'accepted a TCP connection (discovery CHAP configured: no SendTargets sent)');
  const left = budget - tcp.durationMs;
  if (left <= 0)
    return result(
      false,
      'tcp',
      `accepted a TCP connection, no time left for SendTargets within ${seconds(budget)}`,
    );
  let r: RunResult;
  try {
    r = await host.run(sendTargetsListArgv(formatPortal(p.address, p.port)), { timeoutMs: left });
  } catch (e) {
    // The runner refused the output (over its cap): whatever talked, it was not a plain SendTargets.
    return result(
      true,
      'tcp',
      `accepted a TCP connection (SendTargets not conclusive: ${(e as Error).message})`,
    );
  }
  if (r.timedOut)
    return result(
      false,
      'sendtargets',
      `accepted a TCP connection, no SendTargets answer within ${seconds(budget)}`,
    );
  if (r.exitCode === 0) {
    const n = parseDiscovery(r.stdout).length;
    return result(true, 'sendtargets', `SendTargets answered (${n} target${n === 1 ? '' : 's'})`);
  }
  if (r.exitCode === IscsiErr.NO_OBJS_FOUND)
    return result(true, 'sendtargets', 'SendTargets answered (no targets for this initiator)');
  if (r.exitCode === IscsiErr.LOGIN_AUTH_FAILED)
    return result(
      true,
      'auth',
      'SendTargets asked for credentials (authorization failure): the portal answers',
    );
  if (
    r.exitCode === IscsiErr.TRANS ||
    r.exitCode === IscsiErr.TRANS_TIMEOUT ||
    r.exitCode === IscsiErr.PDU_TIMEOUT
  )
    return result(
      false,
      'sendtargets',
      `accepted a TCP connection, then SendTargets failed: ${exitWords(r.exitCode)}`,
    );
  // iscsiadm could not run or failed for a reason of its own (no iscsid): the connect is all we know.
  const why = r.spawnError
    ? `iscsiadm not runnable (${r.spawnError})`
    : `iscsiadm exit ${r.exitCode ?? 'killed'}`;
  return result(true, 'tcp', `accepted a TCP connection (SendTargets not conclusive: ${why})`);
}
