/**
 * Apply-time side of an attach's node records (plan side: attach-records.ts): after login, delete
 * the records discovery wrote that the attach does not use; after a failure, remove what the
 * attach created — its sessions, the node records it created, its iface clone, the kubelet dir it
 * made — unless the admin chose to keep them. "Created" means created by this apply's own steps
 * (Runtime.created: the session its login made, the records its discovery or `-o new` wrote), never
 * "absent from the first snapshot": a session kubelet logs in meanwhile is not this apply's. Every
 * logout, flush and delete goes through the executor's guard (Runtime.guard) right before it runs.
 */
import { ifaceDeleteArgv, logoutArgv, nodeDeleteArgv, nodeUpdateArgv } from '../iscsiadm/argv.js';
import type { Snapshot } from '../model.js';
import type { AttachRecordsPlan } from './attach-types.js';
import { restoreChapRecords } from './chap-record.js';
import { commandError } from './iscsiadm.js';
import { recordKey } from './lookup.js';
import { effectivePortal, guardRefusal, type Runtime, record } from './runtime.js';
import type { ActionContext, DynamicOf, ResolvedEffect, StepProgress } from './types.js';

const created = (rt: Runtime, key: string) => rt.created.records.has(key);

/** Deletes one record; when that fails, sets node.startup=manual so it at least never logs in at boot. */
async function removeRecord(rt: Runtime, portal: string, iqn: string, iface: string): Promise<string> {
  const del = await record(rt, nodeDeleteArgv(portal, iqn, iface), { okExitCodes: [21] });
  if (del.ok) return `deleted ${iqn} @ ${portal}`;
  const manual = await record(rt, nodeUpdateArgv(portal, iqn, iface, 'node.startup', 'manual'));
  if (!manual.ok) throw commandError(del);
  return `set node.startup=manual on ${iqn} @ ${portal} (delete failed: ${del.exitName})`;
}

/** The tidy step: records this apply's discovery listed, absent before, and not the ones logged in with. */
export async function tidyDiscovered(
  rt: Runtime,
  s: Snapshot,
  d: DynamicOf<'tidy-discovered'>,
): Promise<string> {
  const used = new Set(
    d.loginPortals.map((p) =>
      recordKey({ targetIqn: d.iqn, portal: effectivePortal(rt, p), iface: d.iface }),
    ),
  );
  const listed = new Set(rt.discovered);
  const done: string[] = [];
  for (const r of s.nodeRecords) {
    const key = recordKey(r);
    if (used.has(key) || !created(rt, key)) continue;
    if (!listed.has(key) && r.targetIqn !== d.iqn) continue;
    // A session that logged in through the record meanwhile keeps it (what `forget` refuses too).
    const refused = guardRefusal(rt, { kind: 'record-delete', record: key });
    if (refused) {
      rt.warnings.push(`kept node record ${r.targetIqn} @ ${r.portal}: ${refused}`);
      done.push(`kept ${r.targetIqn} @ ${r.portal} (${refused})`);
      continue;
    }
    done.push(await removeRecord(rt, r.portal, r.targetIqn, r.iface));
  }
  return done.length > 0 ? done.join('; ') : 'discovery created no other record';
}

/**
 * After a failed attach: logs out the sessions it created, deletes the node records it created,
 * its iface clone and the kubelet dir it made (only when its steps ran). With `keep`, only lists
 * them. Never throws: what could not be removed is reported as left.
 */
export async function rollbackAttach(
  rt: Runtime,
  ctx: ActionContext,
  spec: AttachRecordsPlan,
  progress: readonly StepProgress[],
): Promise<{ removed: string[]; left: string[]; kept: boolean }> {
  const removed: string[] = [];
  const left: string[] = [];
  if (!rt.before) return { removed, left, kept: spec.keep };
  const s = ctx.takeSnapshot();
  const sessions = s.sessions.filter((x) => rt.created.sessions.has(x.key));
  const records = s.nodeRecords.filter((r) => rt.created.records.has(recordKey(r)));
  const clone =
    spec.clone && rt.created.ifaces.has(spec.clone) && s.ifaces.some((i) => i.name === spec.clone);
  const ran = (id: string) => progress.some((p) => p.stepId === id && p.status === 'done');
  const json = `${spec.globalPath}/iscsi.json`;
  const dirMade = ran('mkdir-global') && ctx.host.lstat(spec.globalPath) !== undefined;
  const mounted = s.mounts.some((m) => m.mountPoint === spec.globalPath);
  const what = [
    ...sessions.map((x) => `session ${x.sid} ${x.targetIqn} @ ${x.portal}`),
    ...records.map((r) => `node record ${r.targetIqn} @ ${r.portal} (${r.iface})`),
    ...(clone ? [`iface ${spec.clone}`] : []),
    ...(dirMade ? [`kubelet dir ${spec.globalPath}`] : []),
  ];
  if (spec.keep) return { removed, left: what, kept: true };
  const attempt = async (label: string, argv: string[], ok: number[], effect: ResolvedEffect) => {
    const refused = guardRefusal(rt, effect);
    if (refused) {
      left.push(`${label} (${refused})`);
      return false;
    }
    const r = await record(rt, argv, { okExitCodes: ok });
    (r.ok ? removed : left).push(
      r.ok ? label : `${label} (${argv.join(' ')}: exit ${r.exitCode} ${r.exitName})`,
    );
    return r.ok;
  };
  // A map multipathd built over the attach's own paths is flushed before they go (the guard
  // refuses a logout that would leave a map without paths).
  const own = new Set(sessions.flatMap((x) => x.devices.flatMap((d) => (d.name ? [d.name] : []))));
  for (const m of s.multipath.filter((m) => m.slaves.length > 0 && m.slaves.every((n) => own.has(n))))
    await attempt(`multipath map ${m.alias}`, ['multipath', '-f', `/dev/${m.name}`], [], {
      kind: 'flush-map',
      map: m.wwid,
    });
  for (const x of sessions) {
    // The guard refuses it if a pod uses the session meanwhile (then it is left, and said so).
    await attempt(
      `session ${x.sid} ${x.targetIqn} @ ${x.portal}`,
      logoutArgv(x.portal, x.targetIqn, x.iface),
      [21, 2],
      { kind: 'logout', session: x.key },
    );
  }
  for (const r of records) {
    await attempt(
      `node record ${r.targetIqn} @ ${r.portal} (${r.iface})`,
      nodeDeleteArgv(r.portal, r.targetIqn, r.iface),
      [21],
      { kind: 'record-delete', record: recordKey(r) },
    );
  }
  // Records that stay (they existed before) get back the bytes the CHAP step replaced.
  const chap = await restoreChapRecords(rt);
  removed.push(...chap.restored);
  left.push(...chap.left);
  if (clone)
    await attempt(`iface ${spec.clone}`, ifaceDeleteArgv(spec.clone!), [21], {
      kind: 'iface-delete',
      iface: spec.clone!,
    });
  if (dirMade) {
    if (mounted) left.push(`kubelet dir ${spec.globalPath} (mounted)`);
    else {
      const refused =
        guardRefusal(rt, { kind: 'unlink', path: json }) ??
        guardRefusal(rt, { kind: 'rmdir', path: spec.globalPath });
      if (refused) left.push(`kubelet dir ${spec.globalPath} (${refused})`);
      else
        try {
          if (ran('write-iscsi-json') && ctx.host.lstat(json)) {
            rt.commands.push({ fs: { op: 'unlink', path: json } });
            ctx.host.unlink(json);
          }
          rt.commands.push({ fs: { op: 'rmdir', path: spec.globalPath } });
          ctx.host.rmdir(spec.globalPath);
          removed.push(`kubelet dir ${spec.globalPath}`);
        } catch (e) {
          left.push(`kubelet dir ${spec.globalPath} (${(e as Error).message})`);
        }
    }
  }
  return { removed, left, kept: false };
}
