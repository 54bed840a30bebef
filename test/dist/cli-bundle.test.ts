import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../src/engine/doctor/types.js';
import { FixtureNode } from '../doctor/fixture-node.js';

const repo = process.cwd();
const cli = join(repo, 'dist', 'cli.js');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
const node22 = process.execPath; // vitest runs on the pinned node@22 (npx puts node_modules/.bin first)

function run(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env, timeout: 30_000 });
}

beforeAll(() => {
  const b = run([node22, 'scripts/build.mjs']);
  if (b.status !== 0) throw new Error(`npm run build failed:\n${b.stderr}`);
}, 120_000);

/** The files of the npm build: the entry and its code-split chunks. */
function distFiles(): string[] {
  const chunks = readdirSync(join(repo, 'dist', 'chunks')).filter((f) => f.endsWith('.js'));
  return [cli, ...chunks.map((f) => join(repo, 'dist', 'chunks', f))];
}

/** Runs the built CLI with a load hook that reports every module file it loads (one per line). */
function runTracingLoads(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const hook =
    "import{registerHooks}from'node:module';registerHooks({load(u,c,n){if(u.startsWith('file:'))process.stderr.write('LOADED '+u+'\\n');return n(u,c)}});";
  const r = run([node22, '--import', `data:text/javascript,${encodeURIComponent(hook)}`, cli, ...argv], env);
  const loaded = [...r.stderr.matchAll(/^LOADED file:\/\/(.+)$/gm)].map((m) => m[1]!);
  return { ...r, loaded };
}

describe('npm run build → dist/cli.js + dist/chunks/', () => {
  it('dist/cli.js is a small ESM entry: the shebang, then only builtins and chunks', () => {
    const text = readFileSync(cli, 'utf8');
    const [first] = text.split('\n');
    expect(first).toBe('#!/usr/bin/env node');
    // Small, so that little is compiled before the compile cache is on (was the whole 3 MB bundle).
    expect(text.length).toBeLessThan(20_000);
    expect(text).toContain('enableCompileCache');
    const statics = [...text.matchAll(/^import (?:.* from )?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
    expect(statics.filter((s) => !s.startsWith('node:') && !s.startsWith('./chunks/'))).toEqual([]);
  });

  it('the require banner is in the files that name require (the __require shim of esbuild), and only there', () => {
    const banner =
      "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";
    let withBanner = 0;
    for (const file of distFiles()) {
      const text = readFileSync(file, 'utf8');
      const rest = text.replace(banner, '');
      if (rest !== text) withBanner++;
      // A file that names require has the banner; one without it never names require.
      expect(rest !== text, file).toBe(/\brequire\b/.test(rest));
    }
    expect(withBanner).toBeGreaterThan(0);
  });

  it('dependencies are bundled: no file imports a package (only node: builtins and sibling chunks)', () => {
    for (const file of distFiles()) {
      const text = readFileSync(file, 'utf8');
      const specs = [
        ...text.matchAll(/^(?:import|export) .*?from ['"]([^'"]+)['"]|^import ['"]([^'"]+)['"]/gm),
      ].map((m) => (m[1] ?? m[2])!);
      expect(
        specs.filter((s) => !s.startsWith('node:') && !s.startsWith('./')),
        file,
      ).toEqual([]);
      expect(text, file).not.toMatch(/from ['"](ink|react|execa|zod|yaml|zustand|chokidar)['"]/);
    }
  });

  it('status --json loads only what status needs: no Ink/React, simulator, watchers, actions or doctor', () => {
    const root = mkdtempSync(join(tmpdir(), 'cli-bundle-root-'));
    // A node without iSCSI: its /sys and /proc only (a root without them is refused, exit 2).
    for (const d of ['sys/class', 'proc/1']) mkdirSync(join(root, d), { recursive: true });
    try {
      const r = runTracingLoads(['status', '--json', '--root', root]);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).schemaVersion).toBe(2);
      const names = r.loaded.map((f) => f.split('/').pop()!);
      // Three files (scripts/merge-start-chunks.mjs; esbuild's split alone made it 31): the entry,
      // the command table loaded before the compile cache is on, then the one-shot start module.
      expect(names.map((n) => n.replace(/-[0-9A-F]{8}\.js$/, ''))).toEqual(['cli.js', 'early', 'start']);
      expect(
        names.filter((n) => /^(console|run-console|console-backend|sim|watch|actions|doctor)-/.test(n)),
      ).toEqual([]);
      // Nor zod (~55 ms of CPU to load): the snapshot checks iscsi.json by hand.
      for (const f of r.loaded)
        expect(readFileSync(f, 'utf8'), f).not.toMatch(/^\/\/ node_modules\/(ink|react|zod)\//m);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a command outside the start group loads its own chunks and the merged start module', () => {
    const d = runTracingLoads(['doctor', '--json', '--demo', 'healthy']);
    expect(JSON.parse(d.stdout).schemaVersion).toBe(1);
    expect(d.loaded.some((f) => /\/doctor-[0-9A-Z]+\.js$/.test(f))).toBe(true);
    expect(d.loaded.some((f) => /\/start-[0-9A-F]{8}\.js$/.test(f))).toBe(true);
  });

  it('turns on the compile cache in a private directory, unless NODE_DISABLE_COMPILE_CACHE is set', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'cli-bundle-tmp-'));
    try {
      const env = { ...process.env, TMPDIR: tmp, NODE_COMPILE_CACHE: '' };
      const off = run([node22, cli, '--version'], { ...env, NODE_DISABLE_COMPILE_CACHE: '1' });
      expect(off.stdout).toBe(`${pkg.version}\n`);
      expect(readdirSync(tmp)).toEqual([]);
      const on = run([node22, cli, '--version'], env);
      expect(on.stdout).toBe(`${pkg.version}\n`);
      const dir = join(tmp, `iscsi-console-compile-cache-${process.getuid?.() ?? 0}`);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      // Node writes one cache file per compiled module into a per-version subdirectory at exit.
      const cached = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
      expect(cached.length).toBeGreaterThan(0);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('npm pack ships every file the CLI loads: the unpacked package runs status and help', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'cli-bundle-pack-'));
    try {
      const p = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(p.status, p.stderr).toBe(0);
      const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'))!;
      expect(run(['tar', '-xzf', join(tmp, tgz), '-C', tmp]).status).toBe(0);
      const packed = join(tmp, 'package', 'dist', 'cli.js');
      // Outside the repo, with nothing installed next to it: only the packed files.
      const s = run([node22, packed, 'status', '--json', '--demo', 'healthy']);
      expect(s.stderr).toBe('');
      expect(JSON.parse(s.stdout).sessions.length).toBeGreaterThan(0);
      const h = run([node22, packed, '--help']);
      expect(h.stdout).toContain('attach');
      expect(existsSync(join(tmp, 'package', 'dist', 'iscsi-console'))).toBe(false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 90_000);

  it('runs with node 22: --version and --help', () => {
    const v = run([node22, cli, '--version']);
    expect(v.stdout).toBe(`${pkg.version}\n`);
    expect(v.status).toBe(0);
    const h = run([node22, cli, 'doctor', '--help']);
    expect(h.status).toBe(0);
    expect(h.stdout).toContain('doctor [--json]');
  });

  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
    (p) => existsSync(p) && Number(run([p, '-p', 'process.versions.node.split(".")[0]']).stdout.trim()) < 22,
  );
  it.skipIf(!oldNode)('on Node < 22 exits 2 with a clear message instead of crashing in a dependency', () => {
    const r = run([oldNode!, cli, '--version']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^iscsi-console needs Node\.js 22 or newer \(this is v\d+/);
  });
});

describe('dist/cli.js doctor in the exec modes (real runner)', () => {
  let node: FixtureNode;
  let bin: string;
  beforeAll(() => {
    node = new FixtureNode();
    bin = join(node.root, '..', `bin-dist-${process.pid}`);
    mkdirSync(bin, { recursive: true });
    // Each fake tool records the name of the process that started it: nsenter, or the console itself.
    for (const tool of ['iscsiadm', 'iscsid']) {
      const p = join(bin, tool);
      writeFileSync(
        p,
        `#!/bin/sh\ncat /proc/$PPID/comm > "${bin}/${tool}.parent"\necho "${tool} version 2.1.8"\n`,
      );
      chmodSync(p, 0o755);
    }
  });
  afterAll(() => {
    node.cleanup();
    rmSync(bin, { recursive: true, force: true });
  });

  const canUnshare =
    process.getuid?.() === 0 &&
    spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;

  it.skipIf(!canUnshare)(
    '--exec nsenter as in a debug pod: a new PID namespace whose PID 1 is "the host"; tools run via nsenter',
    () => {
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
      const r = run(
        [
          'unshare',
          '--pid',
          '--fork',
          '--mount-proc',
          node22,
          cli,
          'doctor',
          '--root',
          node.root,
          '--exec',
          'nsenter',
          '--json',
        ],
        env,
      );
      const report = JSON.parse(r.stdout) as DoctorReport;
      expect(report.checks.find((c) => c.id === 'iscsi.versions')).toMatchObject({
        status: 'pass',
        evidence: 'iscsiadm 2.1.8, iscsid 2.1.8',
      });
      expect(readFileSync(join(bin, 'iscsiadm.parent'), 'utf8').trim()).toBe('nsenter');
      expect(r.status).toBe(0);
    },
  );

  it('--exec direct runs the tools itself (no nsenter in between)', () => {
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const r = run([node22, cli, 'doctor', '--root', node.root, '--json'], env);
    expect(JSON.parse(r.stdout).summary.ok).toBe(true);
    expect(readFileSync(join(bin, 'iscsid.parent'), 'utf8').trim()).not.toBe('nsenter');
  });

  const busybox = ['/usr/bin/busybox', '/bin/busybox'].find((p) => existsSync(p));
  const staticBusybox = busybox && /statically linked/.test(run(['file', busybox]).stdout ?? '');
  it.skipIf(process.getuid?.() !== 0 || !staticBusybox)(
    '--root <tree> --exec chroot reads files under the tree and runs the tree’s own tools via chroot',
    () => {
      mkdirSync(join(node.root, 'bin'), { recursive: true });
      copyFileSync(busybox!, join(node.root, 'bin', 'busybox'));
      chmodSync(join(node.root, 'bin', 'busybox'), 0o755);
      for (const tool of ['iscsiadm', 'iscsid']) {
        writeFileSync(join(node.root, 'bin', tool), `#!/bin/busybox sh\necho "${tool} version 2.1.8-tree"\n`);
        chmodSync(join(node.root, 'bin', tool), 0o755);
      }
      node.write('/etc/iscsi/initiatorname.iscsi', 'InitiatorName=iqn.2026-11.org.example:chroot-tree\n');
      const env = { ...process.env, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
      const r = run([node22, cli, 'doctor', '--root', node.root, '--exec', 'chroot', '--json'], env);
      const report = JSON.parse(r.stdout) as DoctorReport;
      const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
      expect(byId['iscsi.versions']?.evidence).toBe('iscsiadm 2.1.8-tree, iscsid 2.1.8-tree');
      expect(byId['initiator.name']?.evidence).toBe('iqn.2026-11.org.example:chroot-tree');
    },
  );
});
