/** `-v`: every command the CLI runs on stderr as it runs, masked, with its exit code and time. */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { maskChapValues } from '../../src/cli/verbose.js';
import { captureOutput } from '../helpers/capture-output.js';

// The simulated target's CHAP account (src/sim/scenarios).
const SECRET = 'labsecret123';
const USER = 'labuser';
const IQN = 'iqn.2026-01.lab.example:secure-volume';
const dir = fs.mkdtempSync(join(tmpdir(), 'verbose-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('-v shows the commands', () => {
  it('a CHAP attach prints each command as it starts, then its exit code and time; no secret', async () => {
    const pv = join(dir, 'pv.yaml');
    const secret = join(dir, 'secret.yaml');
    fs.writeFileSync(
      pv,
      `kind: PersistentVolume
metadata: { name: pv-secure }
spec:
  iscsi: { targetPortal: 127.0.0.1:3260, iqn: ${IQN}, lun: 1, fsType: ext4, chapAuthSession: true, secretRef: { name: chap } }
`,
    );
    fs.writeFileSync(
      secret,
      `kind: Secret
metadata: { name: chap }
data:
  node.session.auth.username: ${b64(USER)}
  node.session.auth.password: ${b64(SECRET)}
`,
    );
    const c = captureOutput();
    const argv = [
      'attach',
      '--demo',
      'empty',
      '--manifest',
      pv,
      '--secret',
      secret,
      '--write',
      '--yes',
      '-v',
    ];
    expect(await main(argv, c), c.err).toBe(0);
    const err = c.err;
    const lines = err.split('\n');
    // Started before it ended: the `+ [n]` line comes first, its `[n] exit` line later.
    const login = lines.findIndex((l) =>
      /^\+ \[(\d+)\] iscsiadm -m node -p 127\.0\.0\.1:3260 -T iqn\S+ -I default --login$/.test(l),
    );
    expect(login, err).toBeGreaterThanOrEqual(0);
    const id = /^\+ \[(\d+)\]/.exec(lines[login]!)![1];
    const end = lines.findIndex((l) => l.startsWith(`  [${id}] `));
    expect(end).toBeGreaterThan(login);
    expect(lines[end]).toMatch(new RegExp(`^  \\[${id}\\] exit 0 in \\d+ ms$`));
    // CHAP values go into the record file, never on a command line: only the authmethod update is a
    // command, and no value of the Secret appears anywhere.
    expect(err).toMatch(/\+ \[\d+\] iscsiadm .* -n node\.session\.auth\.authmethod -v CHAP/);
    expect(err).not.toMatch(/-n node\.session\.auth\.(password|username) /);
    for (const text of [err, c.out]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(USER);
      expect(text).not.toContain(b64(SECRET));
    }
    // Every started command has its end line.
    const started = lines.filter((l) => l.startsWith('+ [')).length;
    const ended = lines.filter((l) =>
      /^ {2}\[\d+\] (exit \d+|timed out|killed|could not start)/.test(l),
    ).length;
    expect(started).toBeGreaterThan(5);
    expect(ended).toBe(started);
  });

  it('without -v no command line is printed', async () => {
    const c = captureOutput();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write', '--yes'], c)).toBe(0);
    expect(c.err).not.toMatch(/^\+ \[/m);
    const v = captureOutput();
    expect(await main(['cleanup', '4', '--demo', 'incident', '--write', '--yes', '-v'], v)).toBe(0);
    expect(v.err).toMatch(
      /^\+ \[\d+\] iscsiadm -m node -p 10\.0\.0\.10:3260 -T iqn\.2026-01\.lab\.example:old-logs --logout -I default$/m,
    );
  });

  it('masks a value set for a CHAP key even when the caller passed no secrets', () => {
    const set = (key: string, value: string) => [
      'iscsiadm',
      '-m',
      'node',
      '-o',
      'update',
      '-n',
      key,
      '-v',
      value,
    ];
    expect(maskChapValues(set('node.session.auth.password', 'x'))).toEqual(
      set('node.session.auth.password', '********'),
    );
    expect(maskChapValues(['iscsiadm', '-n', 'node.startup', '-v', 'manual'])).toEqual([
      'iscsiadm',
      '-n',
      'node.startup',
      '-v',
      'manual',
    ]);
  });
});
