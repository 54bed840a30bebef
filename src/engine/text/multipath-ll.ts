import type { MultipathMap, MultipathPath } from '../model.js';

/**
 * A map's topology worded the way `multipath -ll` prints it (multipath-tools libmultipath/print.c;
 * capture mp-multipath-ll.txt), so an admin reads the console as they read the tool:
 *
 *   features='0' hwhandler='0' wp=rw
 *   |-+- policy='service-time 0' prio=1 status=active
 *   | `- 0:0:0:1 sdb 8:16 active ready running
 *   `-+- policy='service-time 0' prio=1 status=enabled
 *     `- 1:0:0:1 sda 8:0  active failed faulty offline
 *
 * A word the source does not know (dmsetup has no priorities or checker states) is left out or
 * shown as `-`. One home for this wording: `status` and the session detail both print it.
 */
export function multipathLlLines(m: MultipathMap): string[] {
  const t = m.topology;
  if (!t) return [];
  const head = [
    t.features !== undefined ? `features='${t.features}'` : undefined,
    t.hwhandler !== undefined ? `hwhandler='${t.hwhandler}'` : undefined,
    t.writeProt !== undefined ? `wp=${t.writeProt}` : undefined,
    t.queueing !== undefined && t.queueing !== '-' ? `queueing=${t.queueing}` : undefined,
  ].filter(Boolean);
  const lines: string[] = [];
  if (head.length > 0) lines.push(head.join(' '));
  const devTWidth = Math.max(0, ...t.pathGroups.flatMap((g) => g.paths.map((p) => (p.devT ?? '').length)));
  t.pathGroups.forEach((g, gi) => {
    const lastGroup = gi === t.pathGroups.length - 1;
    const words = [
      g.selector !== undefined ? `policy='${g.selector}'` : undefined,
      g.priority !== undefined ? `prio=${g.priority}` : undefined,
      `status=${g.state}`,
    ].filter(Boolean);
    lines.push(`${lastGroup ? '`' : '|'}-+- ${words.join(' ')}`);
    g.paths.forEach((p, pi) => {
      const lastPath = pi === g.paths.length - 1;
      const devT = p.devT !== undefined ? ` ${p.devT.padEnd(devTWidth)}` : '';
      lines.push(
        `${lastGroup ? ' ' : '|'} ${lastPath ? '`' : '|'}- ${p.hctl ?? '-'} ${p.dev}${devT} ${pathStateWords(p)}`,
      );
    });
  });
  return lines;
}

/** `active ready running`, `failed faulty offline`: dm state, checker state, device state. */
function pathStateWords(p: MultipathPath): string {
  return `${p.dmState ?? '-'} ${p.checkerState ?? '-'} ${p.devState ?? '-'}`;
}

/** True when a path is not serving I/O by any of its three states. */
export function pathDown(p: MultipathPath): boolean {
  return (
    (p.dmState !== undefined && p.dmState !== 'active') ||
    (p.checkerState !== undefined && p.checkerState !== 'ready' && p.checkerState !== 'ghost') ||
    (p.devState !== undefined && p.devState !== 'running')
  );
}
