/**
 * `iscsi-console bundle`: one `.tar.gz` for a support case, read-only. Node files through the Host
 * (no link followed, each read capped), commands through the Host's runner, every CHAP user and
 * secret scrubbed (scrub.ts), each member and the whole archive bounded, and a manifest of what is
 * inside, what could not be read and why, and the caps.
 */
import { JOURNAL_FILE } from '../actions/state-dir.js';
import { type DoctorOptions, runDoctor } from '../doctor/index.js';
import type { Host } from '../host/host.js';
import type { ExecMode } from '../host/runner.js';
import { takeSnapshot } from '../snapshot/index.js';
import { addMultipathTopology } from '../snapshot/multipath-topology.js';
import { statusJson } from '../snapshot/status-json.js';
import { UDEV_DATA_DIR } from '../snapshot/udev-db.js';
import { isoTime } from '../text/time.js';
import { Scrubber } from './scrub.js';
import { COMMANDS, type FileTree, fileTrees, type ScrubKind } from './sources.js';
import { type TarEntry, tarGz, tarNameProblem } from './tar.js';

const MiB = 1024 * 1024;
export const BUNDLE_FILE_CAP = 8 * MiB;
export const BUNDLE_TOTAL_CAP = 64 * MiB;
/** Files one tree may contribute (a node DB of thousands of records is still whole below this). */
const TREE_FILES_MAX = 20_000;
const COMMAND_TIMEOUT_MS = 30_000;

/** The doctor's own options (the bundle runs the doctor with them), the state dir, the archive's name and caps. */
interface BundleOptions extends Pick<DoctorOptions, 'kubeletRoot' | 'exec'> {
  stateDir: string;
  /** Name of the archive's top directory. */
  top: string;
  fileCap?: number;
  totalCap?: number;
}

interface ManifestEntry {
  /** Path inside the archive (below the top directory). */
  path: string;
  /** Host path or command it came from. */
  source: string;
  bytes: number;
  /** CHAP values masked in it. */
  masked: number;
  /** Cut to the per-file cap (the end kept for logs, the start otherwise). */
  truncated?: boolean;
}

export interface Manifest {
  schemaVersion: 1;
  createdAt: string;
  hostname: string;
  host: { kind: Host['kind']; root: string; exec: ExecMode };
  caps: { fileBytes: number; totalBytes: number };
  scrubbing: string;
  entries: ManifestEntry[];
  /** What could not be read, and why. */
  missing: { source: string; why: string }[];
}

interface Bundle {
  archive: Buffer;
  manifest: Manifest;
}

interface Item {
  path: string;
  source: string;
  text: string;
  scrub: ScrubKind;
  /** Logs keep their end when cut. */
  tail?: boolean;
  /** Already cut to the cap when read (the journal's end). */
  cut?: boolean;
}

/** Regular files of a tree, depth-first in name order; links and special files are skipped. */
function walk(host: Host, t: FileTree, missing: Manifest['missing']): string[] {
  const out: string[] = [];
  const visit = (dir: string, depth: number) => {
    for (const name of host.readDir(dir).sort()) {
      if (out.length >= TREE_FILES_MAX) return;
      const p = `${dir}/${name}`;
      const kind = host.lstat(p);
      const wanted = !t.match || t.match.test(name);
      if (kind === 'file' && wanted) out.push(p);
      else if (kind === 'dir' && depth > 0) visit(p, depth - 1);
      else if (kind === 'symlink' && wanted)
        missing.push({ source: p, why: 'a symbolic link: not followed' });
    }
  };
  if (host.lstat(t.dir) === 'dir') visit(t.dir, t.depth);
  if (out.length >= TREE_FILES_MAX)
    missing.push({ source: t.dir, why: `more than ${TREE_FILES_MAX} files: the rest left out` });
  return out;
}

function readFiles(host: Host, o: BundleOptions, missing: Manifest['missing']): Item[] {
  const items: Item[] = [];
  for (const t of fileTrees(o.kubeletRoot)) {
    for (const p of walk(host, t, missing)) {
      const r = host.readTextOrError(p);
      if ('error' in r) missing.push({ source: p, why: r.error });
      else items.push({ path: `files${p}`, source: p, text: r.value, scrub: t.scrub });
    }
  }
  return items;
}

/** The journal's end, at most the per-file cap (read in one bounded piece from its end). */
function readJournalTail(host: Host, o: BundleOptions, cap: number, missing: Manifest['missing']): Item[] {
  const path = `${o.stateDir}/${JOURNAL_FILE}`;
  const info = host.entryInfo(path);
  if (info?.kind !== 'file') {
    missing.push({
      source: path,
      why: info ? `a ${info.kind}, not a regular file` : 'no journal (nothing was ever run)',
    });
    return [];
  }
  const want = Math.min(cap, info.size);
  const chunk = host.readChunk?.(path, Math.max(0, info.size - want), want);
  const text = chunk ? chunk.data.toString('utf8') : host.readText(path);
  if (text === undefined) {
    missing.push({ source: path, why: 'unreadable' });
    return [];
  }
  return [{ path: JOURNAL_FILE, source: path, text, scrub: 'text', tail: true, cut: info.size > want }];
}

/** Commands reach the node itself only on the node, through nsenter/chroot, or in the simulator. */
function commandsReachNode(host: Host, exec: ExecMode): boolean {
  return host.kind !== 'root' || exec !== 'direct';
}

async function runCommands(host: Host, o: BundleOptions, missing: Manifest['missing']): Promise<Item[]> {
  const items: Item[] = [];
  for (const c of COMMANDS) {
    const source = c.argv.join(' ');
    if (!commandsReachNode(host, o.exec)) {
      missing.push({
        source,
        why: 'a --root tree with --exec direct: commands would run on this machine, not the node',
      });
      continue;
    }
    const r = await host.run(c.argv, { timeoutMs: COMMAND_TIMEOUT_MS });
    if (r.spawnError || r.timedOut || r.exitCode !== 0) {
      const why = r.spawnError ?? (r.timedOut ? 'timed out' : `exit ${r.exitCode}`);
      missing.push({ source, why: `${why}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n')[0]}` : ''}` });
      if (!r.stdout) continue;
    }
    const text = c.lines
      ? r.stdout
          .split('\n')
          .filter((l) => c.lines!.test(l))
          .join('\n')
      : r.stdout;
    items.push({ path: `commands/${c.name}`, source, text, scrub: c.scrub, tail: c.lines !== undefined });
  }
  return items;
}

/** udev's records of the iSCSI disks and the multipath maps over them. */
function readUdev(host: Host, majMins: readonly string[], missing: Manifest['missing']): Item[] {
  const items: Item[] = [];
  for (const mm of [...new Set(majMins)].sort()) {
    const p = `${UDEV_DATA_DIR}/b${mm}`;
    const r = host.readTextOrError(p);
    if ('error' in r) missing.push({ source: p, why: r.error });
    else items.push({ path: `udev/b${mm}`, source: p, text: r.value, scrub: 'text' });
  }
  return items;
}

function scrubItem(s: Scrubber, it: Item): { text: string; masked: number } | undefined {
  switch (it.scrub) {
    case 'records':
      return s.records(it.text);
    case 'session-detail':
      return s.sessionDetail(it.text);
    case 'json':
      return s.json(it.text);
    default:
      return { text: it.text, masked: 0 };
  }
}

/** Builds the bundle. Never writes to the node; commands are read-only ones. */
export async function buildBundle(host: Host, o: BundleOptions): Promise<Bundle> {
  const fileCap = o.fileCap ?? BUNDLE_FILE_CAP;
  const totalCap = o.totalCap ?? BUNDLE_TOTAL_CAP;
  const missing: Manifest['missing'] = [];
  const snap = takeSnapshot(host, { kubeletRoot: o.kubeletRoot });
  await addMultipathTopology(host, snap, commandsReachNode(host, o.exec));
  const doctor = await runDoctor(host, { kubeletRoot: o.kubeletRoot, exec: o.exec });
  const iscsiDevices = snap.sessions.flatMap((x) => x.devices.map((d) => d.majMin ?? '')).filter(Boolean);
  const maps = snap.multipath.map((m) => m.majMin ?? '').filter(Boolean);
  const items: Item[] = [
    {
      path: 'status.json',
      source: 'iscsi-console status --json',
      text: `${statusJson(snap)}\n`,
      scrub: 'text',
    },
    {
      path: 'doctor.json',
      source: 'iscsi-console doctor --json',
      text: `${JSON.stringify(doctor)}\n`,
      scrub: 'text',
    },
    ...readJournalTail(host, o, fileCap, missing),
    ...readFiles(host, o, missing),
    ...(await runCommands(host, o, missing)),
    ...readUdev(host, [...iscsiDevices, ...maps], missing),
  ];
  // Two passes: the first finds every secret where it is kept, the second masks them anywhere else.
  const scrubber = new Scrubber();
  const first: { it: Item; text: string; masked: number }[] = [];
  for (const it of items) {
    const r = scrubItem(scrubber, it);
    if (!r)
      missing.push({
        source: it.source,
        why: 'not JSON: left out (where a secret sits in it cannot be told)',
      });
    else first.push({ it, ...r });
  }
  const mtime = Math.floor(host.now() / 1000);
  const entries: TarEntry[] = [];
  const manifest: Manifest = {
    schemaVersion: 1,
    createdAt: isoTime(host.now()),
    hostname: host.hostname(),
    host: { kind: host.kind, root: host.root, exec: o.exec },
    caps: { fileBytes: fileCap, totalBytes: totalCap },
    scrubbing:
      'CHAP usernames and secrets (node.session.auth.*, discovery.sendtargets.auth.*, session -P 3 CHAP lines, credential keys of driver JSON) replaced by ********, and every value found masked in every other member',
    entries: [],
    missing,
  };
  let total = 0;
  for (const f of first) {
    const second = scrubber.everywhere(f.text);
    let data = Buffer.from(second.text, 'utf8');
    const truncated = data.length > fileCap || f.it.cut === true;
    if (truncated) data = f.it.tail ? data.subarray(data.length - fileCap) : data.subarray(0, fileCap);
    const path = `${o.top}/${f.it.path}`;
    const bad = tarNameProblem(path);
    if (bad) {
      missing.push({ source: f.it.source, why: `archive name ${bad}` });
      continue;
    }
    if (total + data.length > totalCap) {
      missing.push({ source: f.it.source, why: `left out: the bundle reached its ${totalCap} byte cap` });
      continue;
    }
    total += data.length;
    entries.push({ name: path, data, mode: 0o600, mtime });
    const e: ManifestEntry = {
      path: f.it.path,
      source: f.it.source,
      bytes: data.length,
      masked: f.masked + second.masked,
    };
    if (truncated) e.truncated = true;
    manifest.entries.push(e);
  }
  // The manifest quotes paths and command errors: searched for the secrets like every member.
  const manifestData = Buffer.from(
    scrubber.everywhere(`${JSON.stringify(manifest, null, 2)}\n`).text,
    'utf8',
  );
  entries.unshift({ name: `${o.top}/manifest.json`, data: manifestData, mode: 0o600, mtime });
  return { archive: tarGz(entries), manifest };
}
