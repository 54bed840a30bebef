/**
 * CHAP secrets reach iscsiadm and nothing else: not the plan, the dry run, the CLI's stdout/stderr
 * (text and --json), errors, or the journal.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { findAction } from '../../src/engine/actions/registry.js';
import { STATE_DIR, simEnv, writeChapPv } from './helpers.js';

const USER = 'labuser';
const SECRET = 'labsecret123';
const WRONG = 'Wr0ngPassw0rd-XYZ';
const IQN = 'iqn.2026-01.lab.example:secure-volume';
const dir = fs.mkdtempSync(join(tmpdir(), 'chap-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const b64 = (s: string) => Buffer.from(s).toString('base64');
function files(password: string): { pv: string; secret: string } {
  return writeChapPv(dir, { portal: '127.0.0.1:3260', iqn: IQN, lun: 1, user: USER, password });
}

function capture(): { out: Output; text: () => string } {
  let buf = '';
  return {
    out: {
      stdout: (t) => {
        buf += t;
      },
      stderr: (t) => {
        buf += t;
      },
      isTTY: false,
      // No wrapping: the record-file line is matched whole.
      columns: 1000,
    },
    text: () => buf,
  };
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(WRONG);
  expect(text).not.toContain(USER);
  expect(text).not.toContain(b64(SECRET));
}

describe('CHAP secrets reach only the record file', () => {
  it('CLI attach (dry run, text and --json, success and auth failure) prints no secret', async () => {
    const ok = files(SECRET);
    const bad = files(WRONG);
    const runs: [string[], number][] = [
      [['attach', '--demo', 'empty', '--manifest', ok.pv, '--secret', ok.secret, '--dry-run'], 0],
      [['attach', '--demo', 'empty', '--manifest', ok.pv, '--secret', ok.secret, '--dry-run', '--json'], 0],
      [['attach', '--demo', 'empty', '--manifest', ok.pv, '--secret', ok.secret, '--write', '--yes'], 0],
      [
        [
          'attach',
          '--demo',
          'empty',
          '--manifest',
          ok.pv,
          '--secret',
          ok.secret,
          '--write',
          '--yes',
          '--json',
          '--verbose',
        ],
        0,
      ],
      [['attach', '--demo', 'empty', '--manifest', bad.pv, '--secret', bad.secret, '--write', '--yes'], 4],
      [
        [
          'attach',
          '--demo',
          'empty',
          '--manifest',
          bad.pv,
          '--secret',
          bad.secret,
          '--write',
          '--yes',
          '--json',
        ],
        4,
      ],
      [['attach', '--demo', 'empty', '--manifest', ok.pv, '--secret', ok.secret], 3],
    ];
    for (const [argv, code] of runs) {
      const c = capture();
      expect(await main(argv, c.out), `${argv.join(' ')}\n${c.text()}`).toBe(code);
      expectNoSecret(c.text());
    }
    const dry = capture();
    await main(
      ['attach', '--demo', 'empty', '--manifest', ok.pv, '--secret', ok.secret, '--dry-run'],
      dry.out,
    );
    // The credentials go into the record file, never on an iscsiadm command line.
    expect(dry.text()).toMatch(/node\.session\.auth\.password = \*{8}/);
    expect(dry.text()).not.toMatch(/-n node\.session\.auth\.(username|password)/);
  });

  it('plan, result, errors and journal hold no secret; the login still used it', async () => {
    const env = await simEnv('empty');
    try {
      const def = findAction('attach');
      const ok = files(SECRET);
      const opts = { manifest: ok.pv, secret: ok.secret };
      const s = env.snap();
      const input = def.inputFromCli([], opts, s);
      const plan = def.plan(input, s, env.ctx);
      const secrets = def.secretsFromCli!([], opts);
      expect(secrets['node.session.auth.password']).toBe(SECRET);
      expectNoSecret(JSON.stringify(plan));
      expectNoSecret(JSON.stringify(input));
      // Without the secrets the step cannot run, and says which key is missing (not a value).
      const missing = await applyPlan(plan, env.ctx);
      expect(missing.ok).toBe(false);
      const result = await applyPlan(env.plan('attach', [], opts), env.ctx, { secrets });
      expect(result.error).toBeUndefined();
      expect(env.snap().sessions.some((x) => x.targetIqn === IQN && x.state === 'LOGGED_IN')).toBe(true);
      // Where the values went: the 0600 record file (as iscsiadm keeps it), no argv, lock released.
      expect(JSON.stringify(result.steps ?? result)).not.toMatch(/"-v","(labuser|labsecret123)"/);
      const rec = env.host
        .readDir(`/etc/iscsi/nodes/${IQN}`)
        .map((e) => `/etc/iscsi/nodes/${IQN}/${e}/default`);
      expect(rec.length).toBe(1);
      expect(env.host.readText(rec[0]!)).toContain(`node.session.auth.password = ${SECRET}\n`);
      expect(env.host.lstat('/run/lock/iscsi/lock.write')).toBeUndefined();
      expectNoSecret(JSON.stringify(result));
      expectNoSecret(JSON.stringify(missing));
      const badFiles = files(WRONG);
      const badOpts = { manifest: badFiles.pv, secret: badFiles.secret };
      const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${IQN}-lun-1`;
      const cleaned = await env.run('cleanup', [gp]);
      expect(cleaned.result.error).toBeUndefined();
      expect(cleaned.result.verified).toBe(true);
      const failed = await applyPlan(env.plan('attach', [], badOpts), env.ctx, {
        secrets: def.secretsFromCli!([], badOpts),
      });
      expect(failed.error, JSON.stringify(failed, null, 1)).toMatchObject({
        exitName: 'ISCSI_ERR_LOGIN_AUTH_FAILED',
      });
      expectNoSecret(JSON.stringify(failed));
      const journal = env.host.readText(`${STATE_DIR}/journal.jsonl`) ?? '';
      expect(journal).toContain('node.session.auth.password');
      expect(journal.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(6);
      expectNoSecret(journal);
    } finally {
      await env.close();
    }
  });
});
