/**
 * `multipathd show maps json`: multipathd's own view of every map (multipath-tools
 * libmultipath/print.c, the PRINT_JSON_* templates; capture mp-multipathd-show-maps-json.txt,
 * multipath-tools 0.9.4). It carries every word `multipath -ll` prints — group `selector`, `pri`
 * and `dm_st`, path `dm_st`, `chk_st` and `dev_st` — from the daemon's memory, so it answers
 * without touching a path (multipath -ll runs the checkers and prioritizers itself and hangs on
 * blocked paths). Unknown or missing keys are left out; a value that is not what the template
 * prints is ignored.
 */

interface MpdPath {
  dev: string;
  devT?: string;
  dmState?: string;
  checkerState?: string;
  devState?: string;
  priority?: number;
}

interface MpdGroup {
  group: number;
  selector?: string;
  priority?: number;
  state?: string;
  paths: MpdPath[];
}

interface MpdMap {
  name: string;
  /** WWID (multipathd's `uuid`: dm uuid without `mpath-`). */
  uuid?: string;
  /** Kernel name `dm-N`. */
  sysfs?: string;
  features?: string;
  hwhandler?: string;
  writeProt?: string;
  queueing?: string;
  groups: MpdGroup[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Obj, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' && v !== '' && v !== '[undef]' ? v : undefined;
}

/** Priorities: multipathd prints -1 (PRIO_UNDEF) for a path whose prioritizer has not run. */
function num(o: Obj, k: string): number | undefined {
  const v = o[k];
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

function set<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v !== undefined) o[k] = v;
}

function parsePath(p: unknown): MpdPath | undefined {
  if (!isObj(p)) return undefined;
  const dev = str(p, 'dev');
  if (dev === undefined) return undefined;
  const out: MpdPath = { dev };
  set(out, 'devT', str(p, 'dev_t'));
  set(out, 'dmState', str(p, 'dm_st'));
  set(out, 'checkerState', str(p, 'chk_st'));
  set(out, 'devState', str(p, 'dev_st'));
  set(out, 'priority', num(p, 'pri'));
  return out;
}

function parseGroup(g: unknown, index: number): MpdGroup | undefined {
  if (!isObj(g)) return undefined;
  const out: MpdGroup = { group: num(g, 'group') ?? index + 1, paths: [] };
  set(out, 'selector', str(g, 'selector'));
  set(out, 'priority', num(g, 'pri'));
  set(out, 'state', str(g, 'dm_st'));
  if (Array.isArray(g.paths))
    for (const p of g.paths) {
      const path = parsePath(p);
      if (path) out.paths.push(path);
    }
  return out;
}

/** The maps of a `show maps json` reply; throws when the text is not that document. */
export function parseMultipathdMaps(text: string): MpdMap[] {
  const doc: unknown = JSON.parse(text);
  if (!isObj(doc) || !Array.isArray(doc.maps)) throw new Error('no "maps" array');
  const maps: MpdMap[] = [];
  for (const m of doc.maps) {
    if (!isObj(m)) continue;
    const name = str(m, 'name');
    if (name === undefined) continue;
    const out: MpdMap = { name, groups: [] };
    set(out, 'uuid', str(m, 'uuid'));
    set(out, 'sysfs', str(m, 'sysfs'));
    set(out, 'features', str(m, 'features'));
    set(out, 'hwhandler', str(m, 'hwhandler'));
    set(out, 'writeProt', str(m, 'write_prot'));
    set(out, 'queueing', str(m, 'queueing'));
    if (Array.isArray(m.path_groups)) {
      m.path_groups.forEach((g, i) => {
        const group = parseGroup(g, i);
        if (group) out.groups.push(group);
      });
    }
    maps.push(out);
  }
  return maps;
}
