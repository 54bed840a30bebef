/**
 * The device-mapper multipath target's table and status lines, as `dmsetup table|status --target
 * multipath` prints them from the kernel (DM_TABLE_STATUS ioctl: no I/O to any path, so it answers
 * while paths are blocked). Formats of drivers/md/dm-mpath.c, multipath_status (captures
 * mp-dmsetup-table.txt, mp-dmsetup-status.txt):
 *
 * table:  <#features> <feature…> <#hw args> [<hw handler> <arg…>] <#groups> <initial group>
 *         then per group: <selector> <#selector args> <arg…> <#paths> <#path args>
 *                         then per path: <major:minor> <path arg…>
 * status: <#features> <queue_io> <pg_init_count> … <#hw args> [<arg…>] <#groups> <next group>
 *         then per group: <A|E|D> <#selector status args> <arg…> <#paths> <#path info args>
 *                         then per path: <major:minor> <A|F> <fail count> <info arg…>
 *
 * Every count is read before the words it counts, so unknown features and selectors are skipped.
 */

/** One group as the table and status lines describe it. */
interface DmGroup {
  /** `service-time 0`: the selector name with its argument count and arguments (what multipath -ll calls policy). */
  selector?: string;
  /** D (disabled), A (active: the current group) or E (enabled), worded as multipath -ll does. */
  state?: 'active' | 'enabled' | 'disabled';
  paths: { devT: string; active?: boolean; failCount?: number }[];
}

export interface DmMultipath {
  /** Feature words (`queue_if_no_path`, `pg_init_retries 50`) with their count first, as multipath -ll's features='…'. */
  features?: string;
  hwhandler?: string;
  groups: DmGroup[];
}

class Words {
  private i = 0;
  constructor(private readonly w: readonly string[]) {}
  next(): string {
    const v = this.w[this.i++];
    if (v === undefined) throw new Error('line ended early');
    return v;
  }
  count(): number {
    const v = this.next();
    if (!/^\d+$/.test(v)) throw new Error(`expected a count, got "${v}"`);
    return Number(v);
  }
  take(n: number): string[] {
    const out: string[] = [];
    for (let k = 0; k < n; k++) out.push(this.next());
    return out;
  }
}

/** `[name, words after "multipath"]` of one `dmsetup table|status` line, or undefined for another target. */
export function splitDmLine(line: string): { name: string; words: string[] } | undefined {
  const colon = line.indexOf(': ');
  if (colon <= 0) return undefined;
  const words = line
    .slice(colon + 2)
    .trim()
    .split(/\s+/);
  // <start> <length> multipath …
  if (words[2] !== 'multipath') return undefined;
  return { name: line.slice(0, colon), words: words.slice(3) };
}

/** Counted words (`2 a b`) as one string with the count, as multipath -ll prints features and hwhandler. */
function counted(w: Words): string {
  const n = w.count();
  return [String(n), ...w.take(n)].join(' ');
}

/** The table part: features, hw handler, groups with selectors and path devices. Throws on a malformed line. */
export function parseDmTable(words: readonly string[]): DmMultipath {
  const w = new Words(words);
  const features = counted(w);
  const hwhandler = counted(w);
  const nGroups = w.count();
  w.next(); // initial group
  const groups: DmGroup[] = [];
  for (let g = 0; g < nGroups; g++) {
    const name = w.next();
    const nArgs = w.count();
    const selector = [name, String(nArgs), ...w.take(nArgs)].join(' ');
    const nPaths = w.count();
    const nPathArgs = w.count();
    const paths: DmGroup['paths'] = [];
    for (let p = 0; p < nPaths; p++) {
      paths.push({ devT: w.next() });
      w.take(nPathArgs);
    }
    groups.push({ selector, paths });
  }
  return { features, hwhandler, groups };
}

const GROUP_STATE = { A: 'active', E: 'enabled', D: 'disabled' } as const;

/** The status part: group states and each path's A/F and fail count. Throws on a malformed line. */
export function parseDmStatus(words: readonly string[]): DmMultipath {
  const w = new Words(words);
  w.take(w.count()); // features status (queue_io, pg_init_count)
  w.take(w.count()); // hw handler status
  const nGroups = w.count();
  w.next(); // next group
  const groups: DmGroup[] = [];
  for (let g = 0; g < nGroups; g++) {
    const st = w.next();
    const state = GROUP_STATE[st as keyof typeof GROUP_STATE];
    if (!state) throw new Error(`unknown group state "${st}"`);
    w.take(w.count()); // selector status
    const nPaths = w.count();
    const nInfo = w.count();
    const paths: DmGroup['paths'] = [];
    for (let p = 0; p < nPaths; p++) {
      const devT = w.next();
      const af = w.next();
      const fc = w.count();
      w.take(nInfo);
      paths.push({ devT, active: af === 'A', failCount: fc });
    }
    groups.push({ state, paths });
  }
  return { groups };
}

/** Table and status of one map joined group by group, path by path (both list them in table order). */
export function joinDm(table: DmMultipath, status: DmMultipath | undefined): DmMultipath {
  const groups = table.groups.map((g, i) => {
    const s = status?.groups[i];
    const paths = g.paths.map((p) => {
      const sp = s?.paths.find((x) => x.devT === p.devT);
      return sp ? { ...p, active: sp.active, failCount: sp.failCount } : p;
    });
    return s?.state ? { ...g, state: s.state, paths } : { ...g, paths };
  });
  const out: DmMultipath = { groups };
  if (table.features !== undefined) out.features = table.features;
  if (table.hwhandler !== undefined) out.hwhandler = table.hwhandler;
  return out;
}
