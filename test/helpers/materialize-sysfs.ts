import * as fs from 'node:fs';
import * as path from 'node:path';

/** One entry of a `*-sysfs.json` capture (format: test/fixtures/captures/README.md). */
export type SysfsEntry =
  | { t: 'd' }
  | { t: 'l'; to: string; real?: string }
  | { t: 'f'; mode?: string; v: string }
  | { t: 'f'; mode?: string; b64: string }
  | { t: 'f'; mode?: string; err: string };

export interface SysfsCapture {
  meta: Record<string, unknown>;
  entries: Record<string, SysfsEntry>;
}

/** Loads a capture from test/fixtures/captures by file name (`single-sysfs.json`). */
export function loadCapture(name: string): SysfsCapture {
  const file = path.join(import.meta.dirname, '..', 'fixtures', 'captures', name);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as SysfsCapture;
}

/**
 * Writes a capture as a real directory tree under `root` (entries are host paths `/sys/...`).
 * Symlinks keep the kernel's relative targets, so `sys/class/iscsi_session/session1` resolves
 * inside the copy as on the node. Files that could not be read on the node (`err`: write-only
 * attributes such as `delete`, EINVAL ones such as `access_state`) become empty files with the
 * captured mode. Returns the root.
 */
export function materializeSysfs(capture: SysfsCapture | string, root: string): string {
  const cap = typeof capture === 'string' ? loadCapture(capture) : capture;
  const keys = Object.keys(cap.entries).sort();
  for (const hostPath of keys) {
    const e = cap.entries[hostPath]!;
    const p = path.join(root, hostPath);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (e.t === 'd') {
      fs.mkdirSync(p, { recursive: true });
    } else if (e.t === 'l') {
      fs.symlinkSync(e.to, p);
    } else {
      const mode = e.mode ? Number.parseInt(e.mode, 8) : 0o644;
      const data = 'v' in e ? e.v : 'b64' in e ? Buffer.from(e.b64, 'base64') : '';
      fs.writeFileSync(p, data, { mode });
    }
  }
  return root;
}

/** A fresh temp dir for a fixture root. */
export function tempRoot(prefix = 'iscsi-snap-'): string {
  return fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), prefix));
}

/** Writes a text file under root at a host path, creating parents. */
export function writeHostFile(root: string, hostPath: string, text: string): void {
  const p = path.join(root, hostPath);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
}

/** Creates a directory under root at a host path. */
export function mkHostDir(root: string, hostPath: string): void {
  fs.mkdirSync(path.join(root, hostPath), { recursive: true });
}

/** Creates a symlink under root at a host path (target stored as given). */
export function linkHost(root: string, hostPath: string, target: string): void {
  const p = path.join(root, hostPath);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.symlinkSync(target, p);
}

/** The stdout section of a command capture (`$ cmd` / `--- stdout ---` / `--- stderr ---` / `--- exit: N ---`). */
export function captureStdout(name: string, index = 0): string {
  const file = path.join(import.meta.dirname, '..', 'fixtures', 'captures', name);
  const text = fs.readFileSync(file, 'utf8');
  const parts = text.split('--- stdout ---\n').slice(1);
  const part = parts[index];
  if (part === undefined) throw new Error(`${name}: no stdout section #${index}`);
  return part.slice(0, part.indexOf('--- stderr ---'));
}

/**
 * Recreates the symlinks an `ls -l <dir>/ ...` capture shows (mp-dev-links.txt, single-dev-disk.txt):
 * `<dir>:` headers followed by `lrwxrwxrwx ... name -> target` lines. Targets stay relative.
 */
export function materializeLsLinks(lsOutput: string, root: string): void {
  let dir: string | undefined;
  for (const line of lsOutput.split('\n')) {
    const header = /^(\/\S+?)\/?:$/.exec(line);
    if (header) {
      dir = header[1];
      continue;
    }
    const m = /^l\S+\s+\d+\s+\S+\s+\S+\s+\d+\s+\S+\s+\d+\s+[\d:]+\s+(\S+) -> (\S+)$/.exec(line);
    if (m && dir) linkHost(root, `${dir}/${m[1]}`, m[2]!);
  }
}
