/**
 * A symbolic link planted in kubelet's tree (`iface-default/<vol>` → /etc/x) never moves a change
 * out of it: cleanup and attach refuse before consent (the planners' path guard walks the path
 * without following links), and even a forced apply touches nothing where the link points.
 */
import * as fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import type { Plan } from '../../src/engine/actions/types.js';
import { fakeTime } from '../helpers/fake-time.js';
import { type SimEnv, simEnv } from './helpers.js';

const T1 = 'iqn.2026-01.lab.example:storage.target1';
const ATTACH = { portal: ['127.0.0.1:3260'], iqn: T1, lun: '1', 'volume-name': 'pv1' };
const GP = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${T1}-lun-1`;
const ISCSI_JSON = `${JSON.stringify({ volName: 'pv1', portals: ['127.0.0.1:3260'], iqn: T1, lun: '1', iface: 'default' })}\n`;

let env: SimEnv;
afterEach(async () => {
  await env?.close();
});

/** `/etc/x` with a file in it, and GP a link to it; returns what /etc/x holds. */
function plantLink(e: SimEnv): () => Record<string, string> {
  const root = e.host.root;
  fs.mkdirSync(`${root}/etc/x`, { recursive: true });
  fs.writeFileSync(`${root}/etc/x/iscsi.json`, ISCSI_JSON);
  fs.writeFileSync(`${root}/etc/x/keep`, 'admin data\n');
  fs.mkdirSync(`${root}${GP.slice(0, GP.lastIndexOf('/'))}`, { recursive: true });
  fs.symlinkSync('/etc/x', `${root}${GP}`);
  return () =>
    Object.fromEntries(
      fs.readdirSync(`${root}/etc/x`).map((n) => [n, fs.readFileSync(`${root}/etc/x/${n}`, 'utf8')]),
    );
}

/** A plan with its path-escape refusals removed, as if a planner had forgotten the check. */
function plantedPlan(e: SimEnv, id: string, positionals: string[], options: Record<string, unknown>): Plan {
  const plan = e.plan(id, positionals, options);
  plan.refusals = plan.refusals.filter((r) => r.id !== 'path-escape');
  return plan;
}

function expectLinkRefusal(refusals: { id: string; reason: string; overridable: boolean }[]): void {
  const r = refusals.filter((x) => x.id === 'path-escape');
  expect(r.length, JSON.stringify(refusals)).toBeGreaterThan(0);
  expect(r[0]!.reason).toMatch(/symbolic link/);
  expect(r[0]!.reason).toContain(GP);
  expect(r.every((x) => !x.overridable)).toBe(true);
}

describe('a symlink inside kubelet tree', () => {
  it('cleanup of the linked global dir refuses before consent; forced, it unlinks and removes nothing', async () => {
    env = await simEnv('empty');
    const contents = plantLink(env);
    const before = contents();
    const plan = env.plan('cleanup', [GP]);
    expectLinkRefusal(plan.refusals);
    const { result } = await env.run('cleanup', [GP], {}, { force: true });
    expect(result.ok).toBe(false);
    expect(result.steps.every((s) => s.status === 'skipped')).toBe(true);
    expect(contents()).toEqual(before);
    expect(fs.lstatSync(`${env.host.root}${GP}`).isSymbolicLink()).toBe(true);
  });

  it('attach onto the linked global dir refuses before consent; forced, nothing is made or written there', async () => {
    env = await simEnv('empty');
    const contents = plantLink(env);
    fs.rmSync(`${env.host.root}/etc/x/iscsi.json`);
    const before = contents();
    const plan = env.plan('attach', [], ATTACH);
    expectLinkRefusal(plan.refusals);
    const { result } = await env.run('attach', [], ATTACH, { force: true });
    expect(result.ok).toBe(false);
    expect(contents()).toEqual(before);
    expect(env.snap().mounts.some((m) => m.mountPoint === GP || m.mountPoint === '/etc/x')).toBe(false);
  });

  it("with the planner's refusal taken out, the Host still refuses to go through the link (ELOOP)", async () => {
    env = await simEnv('empty');
    const contents = plantLink(env);
    fs.rmSync(`${env.host.root}/etc/x/iscsi.json`);
    const before = contents();
    const cleanup = plantedPlan(env, 'cleanup', [GP], {});
    const attach = plantedPlan(env, 'attach', [], ATTACH);
    for (const plan of [cleanup, attach]) {
      const result = await applyPlan(plan, env.ctx, fakeTime());
      expect(result.ok).toBe(false);
      expect(contents()).toEqual(before);
    }
    // Only kubelet's file there, so the cleanup's own preconditions pass and the unlink reaches the Host.
    fs.rmSync(`${env.host.root}/etc/x/keep`);
    fs.writeFileSync(`${env.host.root}/etc/x/iscsi.json`, ISCSI_JSON);
    const again = plantedPlan(env, 'cleanup', [GP], {});
    const r = await applyPlan(again, env.ctx, fakeTime());
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/ELOOP|symbolic link/);
    expect(fs.readFileSync(`${env.host.root}/etc/x/iscsi.json`, 'utf8')).toBe(ISCSI_JSON);
    expect(fs.lstatSync(`${env.host.root}${GP}`).isSymbolicLink()).toBe(true);
  });

  it('the same dir without the link: cleanup removes it (the test can fail)', async () => {
    env = await simEnv('empty');
    const root = env.host.root;
    fs.mkdirSync(`${root}${GP}`, { recursive: true });
    fs.writeFileSync(`${root}${GP}/iscsi.json`, ISCSI_JSON);
    const plan = env.plan('cleanup', [GP]);
    expect(plan.refusals.filter((r) => r.id === 'path-escape')).toEqual([]);
    const { result } = await env.run('cleanup', [GP]);
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(fs.existsSync(`${root}${GP}`)).toBe(false);
  });
});
