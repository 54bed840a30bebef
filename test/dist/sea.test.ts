import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The single executable (npm run build:binary → dist/iscsi-console) runs where there is no Node.js:
 * it is run here with an empty PATH, so neither `node` nor any other tool can be found.
 */
const repo = process.cwd();
const binary = join(repo, 'dist', 'iscsi-console');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
const postject = join(repo, 'node_modules', 'postject', 'package.json');
// SEA is built for the platform it runs on; postject is the one devDependency it needs.
const impossible =
  process.platform !== 'linux'
    ? 'SEA test written for Linux'
    : !existsSync(postject)
      ? 'postject not installed'
      : undefined;

let buildSeconds = 0;

function runBinary(args: string[]) {
  return spawnSync(binary, args, {
    encoding: 'utf8',
    env: { PATH: '', HOME: '/nonexistent', NO_COLOR: '1' },
    timeout: 20_000,
  });
}

describe.skipIf(impossible !== undefined)(
  `single executable${impossible ? ` (skipped: ${impossible})` : ''}`,
  () => {
    beforeAll(() => {
      const started = performance.now();
      const b = spawnSync(process.execPath, ['scripts/build-binary.mjs'], {
        encoding: 'utf8',
        timeout: 110_000,
      });
      buildSeconds = (performance.now() - started) / 1000;
      if (b.status !== 0) throw new Error(`build:binary failed (${b.status}):\n${b.stdout}\n${b.stderr}`);
      process.stderr.write(
        `sea: ${b.stdout.trim().split('\n').pop()} [test measured ${buildSeconds.toFixed(1)} s]\n`,
      );
    }, 120_000);

    it('is an executable file carrying the injected blob', () => {
      const st = statSync(binary);
      expect(st.mode & 0o111).not.toBe(0);
      expect(st.size).toBeGreaterThan(50 * 1024 * 1024);
    });

    it('prints --version with an empty PATH (no node anywhere)', () => {
      const r = runBinary(['--version']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(`${pkg.version}\n`);
      expect(r.status).toBe(0);
    });

    it('leaves the compile cache off: the blob carries its own V8 code cache', () => {
      const tmp = mkdtempSync(join(tmpdir(), 'sea-tmp-'));
      try {
        const r = spawnSync(binary, ['--version'], {
          encoding: 'utf8',
          env: { PATH: '', HOME: '/nonexistent', TMPDIR: tmp },
          timeout: 20_000,
        });
        expect(r.stdout).toBe(`${pkg.version}\n`);
        expect(readdirSync(tmp)).toEqual([]);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });

    it('prints --help with an empty PATH', () => {
      const r = runBinary(['--help']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('doctor');
      expect(r.stdout).toContain('--exec');
    });

    it('runs doctor on the simulated node (bundled simulator, lazy imports work in the CommonJS build)', () => {
      const r = runBinary(['doctor', '--demo', 'healthy', '--json']);
      const report = JSON.parse(r.stdout) as {
        schemaVersion: number;
        checks: { id: string; status: string }[];
      };
      expect(report.schemaVersion).toBe(1);
      expect(report.checks.find((c) => c.id === 'iscsi.versions')?.status).toBe('pass');
    });
  },
);
