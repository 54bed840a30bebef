/**
 * Node record files that hold CHAP secrets, on the simulated node (its iscsiadm keeps the DB as
 * real files, the engine writes them through the Host): a secret never lands in a world-readable
 * record, a full disk never leaves a record cut short, and a failed attach leaves a record that
 * existed before it as it was.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { findAction } from '../../src/engine/actions/registry.js';
import { nodeRecordFiles, writeRecordFields } from '../../src/engine/iscsiadm/record-secrets.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv, writeChapPv } from './helpers.js';

const IQN = 'iqn.2026-01.lab.example:secure-volume';
const PORTAL = '127.0.0.1:3260';
const USER = 'labuser';
const SECRET = 'labsecret123';
const NODES = `/etc/iscsi/nodes/${IQN}`;

let env: SimEnv;
afterEach(async () => {
  await env?.close();
});

const dir = fs.mkdtempSync(join(tmpdir(), 'record-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A PV with session CHAP and its Secret, as files, and the options and secrets the CLI takes from them. */
function chapAttach(password: string, lun = 1) {
  const { pv, secret } = writeChapPv(dir, { portal: PORTAL, iqn: IQN, lun, user: USER, password });
  const options = { manifest: pv, secret };
  return { options, secrets: findAction('attach').secretsFromCli!([], options) };
}

/** Makes the node record of IQN @ PORTAL the way an admin's discovery did, then chmods it. */
async function existingRecord(e: SimEnv, mode: number): Promise<{ path: string; real: string }> {
  const r = await e.host.run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', PORTAL]);
  expect(r.exitCode, r.stderr).toBe(0);
  const portalDir = e.host.readDir(NODES).find((n) => n.startsWith('127.0.0.1,3260'));
  expect(portalDir).toBeDefined();
  const path = `${NODES}/${portalDir}/default`;
  const real = `${e.host.root}${path}`;
  fs.chmodSync(real, mode);
  return { path, real };
}

/** The updates the attach makes before the credentials, made beforehand (they are idempotent). */
async function asTheAttachLeavesIt(e: SimEnv): Promise<void> {
  for (const [name, value] of [
    ['node.session.scan', 'manual'],
    ['node.session.auth.authmethod', 'CHAP'],
  ]) {
    const base = ['iscsiadm', '-m', 'node', '-p', PORTAL, '-T', IQN, '-I', 'default', '-o', 'update'];
    const r = await e.host.run([...base, '-n', name!, '-v', value!]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
}

const modeOf = (real: string) => fs.statSync(real).mode & 0o777;
const tempsIn = (real: string) =>
  fs.readdirSync(real.slice(0, real.lastIndexOf('/'))).filter((n) => n.endsWith('.tmp'));

describe('CHAP record files', () => {
  it('a CHAP attach into an existing 0644 record leaves it 0600, whole, with no temp file', async () => {
    env = await simEnv('empty');
    const rec = await existingRecord(env, 0o644);
    expect(modeOf(rec.real)).toBe(0o644);
    const { options, secrets } = chapAttach(SECRET);
    const plan = env.plan('attach', [], options);
    const result = await applyPlan(plan, env.ctx, { ...fakeTime(), secrets });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(modeOf(rec.real)).toBe(0o600);
    const text = fs.readFileSync(rec.real, 'utf8');
    expect(text).toMatch(/^# BEGIN RECORD /);
    expect(text.endsWith('# END RECORD\n')).toBe(true);
    expect(text).toContain(`node.session.auth.password = ${SECRET}\n`);
    expect(text).toContain(`node.name = ${IQN}\n`);
    expect(tempsIn(rec.real)).toEqual([]);
    // iscsiadm still reads it as the record of this target and portal.
    const show = await env.host.run(['iscsiadm', '-m', 'node', '-T', IQN, '-p', PORTAL, '-o', 'show']);
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain('node.session.auth.password = ********');
  });

  it('a full disk during the credentials write: the record stays whole and as it was, the error says ENOSPC', async () => {
    env = await simEnv('empty');
    const rec = await existingRecord(env, 0o600);
    await asTheAttachLeavesIt(env);
    const before = fs.readFileSync(rec.real, 'utf8');
    expect(before.endsWith('# END RECORD\n')).toBe(true);
    // Room for a few hundred bytes: the record (~2 KB) cannot be written whole.
    env.host.sim.faults.diskFull = { under: '/etc/iscsi/', freeBytes: 300 };
    const { options, secrets } = chapAttach(SECRET);
    const result = await applyPlan(env.plan('attach', [], options), env.ctx, { ...fakeTime(), secrets });
    env.host.sim.faults.diskFull = undefined;
    expect(result.ok).toBe(false);
    const failed = result.steps.find((s) => s.status === 'failed');
    expect(failed?.stepId).toMatch(/^session-credentials:/);
    expect(result.error?.message).toMatch(/ENOSPC/);
    expect(result.error?.message).toContain(rec.path);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    // Whole, the same bytes, the same mode, nothing left beside it; the rollback kept it (it existed before).
    expect(fs.readFileSync(rec.real, 'utf8')).toBe(before);
    expect(modeOf(rec.real)).toBe(0o600);
    expect(tempsIn(rec.real)).toEqual([]);
    expect(env.snap().nodeRecords.some((r) => r.targetIqn === IQN)).toBe(true);
    expect(env.snap().sessions.filter((s) => s.targetIqn === IQN)).toEqual([]);
  });

  it("a failed attach's rollback gives an existing record back its bytes from before the credentials", async () => {
    env = await simEnv('empty');
    const rec = await existingRecord(env, 0o644);
    await asTheAttachLeavesIt(env);
    const before = fs.readFileSync(rec.real, 'utf8');
    // LUN 9 is not on the target: the attach fails after the login (its session is logged out
    // again), once the credentials were written and iscsiadm rewrote the record (node.startup).
    const { options, secrets } = chapAttach(SECRET, 9);
    const result = await applyPlan(env.plan('attach', [], options), env.ctx, { ...fakeTime(), secrets });
    expect(result.ok).toBe(false);
    expect(result.steps.find((s) => s.stepId.startsWith('session-credentials:'))?.status).toBe('done');
    expect(result.steps.find((s) => s.stepId.startsWith('startup-manual:'))?.status).toBe('done');
    const text = fs.readFileSync(rec.real, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(USER);
    // Every CHAP line as before; what iscsiadm's later update set stays (node.startup).
    expect(text.split('\n').filter((l) => l.includes('.auth.'))).toEqual(
      before.split('\n').filter((l) => l.includes('.auth.')),
    );
    expect(text.endsWith('# END RECORD\n')).toBe(true);
    expect(modeOf(rec.real)).toBe(0o600);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('a node DB dir that is a link (nodes/<iqn> → /etc/x): the credentials are not written there', async () => {
    env = await simEnv('empty');
    const rec = await existingRecord(env, 0o600);
    const root = env.host.root;
    fs.renameSync(`${root}${NODES}`, `${root}/etc/x`);
    fs.symlinkSync('/etc/x', `${root}${NODES}`);
    env.host.startRead(); // the tree changed under the Host's read cache
    const files = nodeRecordFiles(env.host, IQN, PORTAL, 'default');
    expect(files).toEqual([rec.path]);
    const inX = `${root}/etc/x/${rec.path.slice(NODES.length + 1)}`;
    const before = fs.readFileSync(inX, 'utf8');
    const fields = { 'node.session.auth.password': SECRET };
    await expect(writeRecordFields(env.host, async () => {}, files, fields)).rejects.toThrow(
      new RegExp(`${NODES.replace(/\./g, '\\.')} is a symbolic link`),
    );
    expect(fs.readFileSync(inX, 'utf8')).toBe(before);
    expect(fs.readdirSync(`${root}/etc/x`).length).toBe(1);
  });
});
