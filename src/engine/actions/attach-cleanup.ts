/**
 * Apply-time side of an attach's node records (plan side: attach-records.ts): after login, delete
 * the records discovery wrote that the attach does not use; after a failure, remove what the
 * attach created — its sessions, the node records it created, its iface clone, the kubelet dir it
 * made — unless the admin chose to keep them. "Created" means absent before this apply's first
 * change (Runtime.before); nothing that existed before is touched.
 */
import { ifaceDeleteArgv, logoutArgv, nodeDeleteArgv, nodeUpdateArgv } from '../iscsiadm/argv.js';
import type { Snapshot } from '../model.js';
import type { AttachRecordsPlan } from './attach-records.js';
import { restoreChapRecords } from './chap-record.js';
import { commandError } from './iscsiadm.js';
import { recordKey } from './lookup.js';
import { effectivePortal, type Runtime, record } from './runtime.js';
import type { ActionContext, DynamicOf, StepProgress } from './types.js';

const created = (rt: Runtime, key: string) => rt.before !== undefined && !rt.before.records.has(key);

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
  const before = rt.before;
  const s = ctx.takeSnapshot();
  const listed = new Set(rt.discovered);
  const sessions = s.sessions.filter((x) => x.targetIqn === spec.iqn && !before.sessions.has(x.key));
  const records = s.nodeRecords.filter((r) => {
    const key = recordKey(r);
    return !before.records.has(key) && (r.targetIqn === spec.iqn || listed.has(key));
  });
  const clone = spec.clone && !before.ifaces.has(spec.clone) && s.ifaces.some((i) => i.name === spec.clone);
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
  const attempt = async (label: string, argv: string[], ok: number[] = []) => {
    const r = await record(rt, argv, { okExitCodes: ok });
    (r.ok ? removed : left).push(
      r.ok ? label : `${label} (${argv.join(' ')}: exit ${r.exitCode} ${r.exitName})`,
    );
    return r.ok;
  };
  for (const x of sessions) {
    // A failed attach mounted nothing, so its session holds no pod's data; logout removes its devices.
    await attempt(
      `session ${x.sid} ${x.targetIqn} @ ${x.portal}`,
      logoutArgv(x.portal, x.targetIqn, x.iface),
      [21, 2],
    );
  }
  for (const r of records) {
    await attempt(
      `node record ${r.targetIqn} @ ${r.portal} (${r.iface})`,
      nodeDeleteArgv(r.portal, r.targetIqn, r.iface),
      [21],
    );
  }
  // Records that stay (they existed before) get back the bytes the CHAP step replaced.
  const chap = await restoreChapRecords(rt);
  removed.push(...chap.restored);
  left.push(...chap.left);
  if (clone) await attempt(`iface ${spec.clone}`, ifaceDeleteArgv(spec.clone!), [21]);
  if (dirMade) {
    if (mounted) left.push(`kubelet dir ${spec.globalPath} (mounted)`);
    else {
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
