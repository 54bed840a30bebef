import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { planAttach } from '../../src/engine/actions/attach.js';
import { listPortalTargets } from '../../src/engine/actions/discover.js';
import { runCommand } from '../../src/engine/actions/iscsiadm.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { findAction } from '../../src/engine/actions/registry.js';
import type { StepProgress } from '../../src/engine/actions/types.js';
import { fakeTime } from '../helpers/fake-time.js';
import { attachArgs, type SimEnv, STATE_DIR, simEnv } from './helpers.js';

const LAB = 'iqn.2026-01.lab.example';
const T1 = `${LAB}:storage.target1`;
const T2 = `${LAB}:storage.target2`;
const SECURE = `${LAB}:secure-volume`;
const P = '127.0.0.1:3260';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('attach: the node records discovery creates', () => {
  it('the plan lists them (the wizard discovered first) and says what happens to them', async () => {
    env = await simEnv('empty');
    const def = findAction('attach');
    const s = env.snap();
    const input = def.inputFromCli([], attachArgs(), s) as Parameters<typeof planAttach>[0];
    const plan = planAttach(
      {
        ...input,
        discovered: [
          { portal: P, iqn: T1 },
          { portal: P, iqn: T2 },
          { portal: P, iqn: SECURE },
        ],
      },
      s,
      env.ctx,
    );
    expect(plan.blastRadius.nodeRecords).toEqual([
      `${T1} @ ${P} (default) (used: node.startup=manual, node.session.scan=manual)`,
      `${T2} @ ${P} (default) (created by discovery, deleted after login)`,
      `${SECURE} @ ${P} (default) (created by discovery, deleted after login)`,
    ]);
    const tidy = plan.steps.find((x) => x.id === 'tidy-discovered');
    expect(tidy?.why).toContain(`${T2} @ ${P}, ${SECURE} @ ${P}`);
    expect(plan.warnings.some((w) => w.startsWith('on failure:'))).toBe(true);
    // The CLI plan (no discovery beforehand) still names the step and its rule.
    const cli = env.plan('attach', [], attachArgs());
    expect(cli.steps.find((x) => x.id === 'tidy-discovered')?.why).toContain(`every other target ${P} lists`);
    expect(cli.steps.find((x) => x.id.startsWith('discover:'))?.argv?.slice(-3)).toEqual([
      '--discover',
      '-o',
      'new',
    ]);
  });

  it('afterwards no record is automatic: unused ones deleted, the used one manual, all journaled', async () => {
    env = await simEnv('empty');
    const { result } = await env.run('attach', [], attachArgs());
    expect(result.error).toBeUndefined();
    const recs = env.snap().nodeRecords;
    expect(recs.map((r) => `${r.targetIqn}|${r.portal}|${r.startup}|${r.scan}`)).toEqual([
      `${T1}|${P}|manual|manual`,
    ]);
    const end = readJournal(env.host, STATE_DIR).find((e) => e.phase === 'end')!;
    const tidy = end.steps!.find((x) => x.id === 'tidy-discovered')!;
    expect(tidy.status).toBe('done');
    expect(tidy.detail).toBe(`deleted ${SECURE} @ ${P}; deleted ${T2} @ ${P}`);
    expect(tidy.commands.map((c) => c.argv!.join(' ')).sort()).toEqual([
      `iscsiadm -m node -p ${P} -T ${SECURE} -o delete -I default`,
      `iscsiadm -m node -p ${P} -T ${T2} -o delete -I default`,
    ]);
    const discover = end.steps!.find((x) => x.id === `discover:${P}`)!;
    expect(discover.detail).toContain('3 targets listed');
  });

  it('records that existed before the attach are not touched', async () => {
    env = await simEnv('empty');
    // An admin's own discovery earlier: three records, node.startup=automatic from iscsid.conf.
    await runCommand(env.host, ['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', P]);
    await runCommand(env.host, [
      'iscsiadm',
      '-m',
      'node',
      '-p',
      P,
      '-T',
      T2,
      '-o',
      'update',
      '-n',
      'node.session.scan',
      '-v',
      'auto',
    ]);
    const before = env.snap().nodeRecords.filter((r) => r.targetIqn !== T1);
    const { result } = await env.run('attach', [], attachArgs());
    expect(result.error).toBeUndefined();
    const after = env.snap().nodeRecords;
    expect(after.filter((r) => r.targetIqn !== T1)).toEqual(before);
    expect(after.find((r) => r.targetIqn === T1)?.startup).toBe('manual');
    const end = readJournal(env.host, STATE_DIR).find((e) => e.phase === 'end')!;
    expect(end.steps!.find((x) => x.id === 'tidy-discovered')?.detail).toBe(
      'discovery created no other record',
    );
  });

  it('hostname portal: the reply lists 127.0.0.1 and [::1]; the [::1] record is deleted, the used one is manual', async () => {
    env = await simEnv('empty');
    const iqn = `${LAB}:dual-stack`;
    env.host.sim.addTarget({
      iqn,
      portals: [P, '[::1]:3260'],
      advertise: ['[::1]:3260'],
      luns: [{ lun: 1, sizeBytes: 1 << 30 }],
    });
    env.host.sim.faults.respond((a) => a[0] === 'getent', {
      exitCode: 0,
      stdout: '127.0.0.1       localhost\n',
    });
    const { result } = await env.run('attach', [], { ...attachArgs(), portal: ['localhost:3260'], iqn });
    expect(result.error).toBeUndefined();
    const recs = env.snap().nodeRecords;
    expect(recs.map((r) => `${r.targetIqn}|${r.portal}|${r.startup}|${r.scan}`)).toEqual([
      `${iqn}|${P}|manual|manual`,
    ]);
    expect(recs.some((r) => r.startup === 'automatic')).toBe(false);
  });
});

describe("the wizard's discovery listing", () => {
  it('lists what the portal offers and writes no record (-o nonpersistent)', async () => {
    env = await simEnv('empty');
    const found = await listPortalTargets(env.host, P);
    expect(found.map((t) => t.iqn)).toEqual([SECURE, T1, T2]);
    const s = env.snap();
    expect(s.nodeRecords).toEqual([]);
    expect(env.host.lstat('/etc/iscsi/send_targets/127.0.0.1,3260')).toBeUndefined();
  });
});

describe('attach: a failure rolls back what it created', () => {
  it('wrong LUN: progress counts the wait, the error names the LUN, session+records are rolled back', async () => {
    env = await simEnv('empty');
    const progress: StepProgress[] = [];
    const { plan, result } = await env.run('attach', [], attachArgs({ lun: '7' }), {
      onProgress: (p) => progress.push(p),
    });
    expect(plan.steps.find((x) => x.id === `wait-device:${P}`)).toBeDefined();
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(new RegExp(`LUN 7 not found on ${T1} at ${P}`));
    expect(result.error?.exitCode).toBe(5);
    expect(
      progress.some((p) => p.stepId === `wait-device:${P}` && /^waiting \d+s of 30s$/.test(p.detail ?? '')),
    ).toBe(true);
    expect(result.rollback?.kept).toBe(false);
    expect(result.rollback?.left).toEqual([]);
    expect(result.rollback?.removed.some((x) => x.startsWith('session '))).toBe(true);
    expect(result.error?.message).toContain('rolled back: session');
    const s = env.snap();
    expect(s.sessions).toEqual([]);
    expect(s.nodeRecords).toEqual([]);
    const end = readJournal(env.host, STATE_DIR).find((e) => e.phase === 'end')!;
    const rb = end.steps!.find((x) => x.id === 'rollback')!;
    expect(rb.commands.map((c) => c.argv!.join(' '))).toContain(
      `iscsiadm -m node -p ${P} -T ${T1} --logout -I default`,
    );
  });

  it('wrong LUN with a CHAP session and an iface clone: all three rolled back', async () => {
    env = await simEnv('empty');
    const iface = `${P}:pvs`;
    const def = findAction('attach');
    const input = def.inputFromCli(
      [],
      attachArgs({
        iqn: SECURE,
        lun: '9',
        'volume-name': 'pvs',
        'chap-session': true,
        'initiator-name': `${LAB}:custom-initiator`,
      }),
      env.snap(),
    ) as Parameters<typeof planAttach>[0];
    input.secretKeys = ['node.session.auth.username', 'node.session.auth.password'];
    const plan = planAttach(input, env.snap(), env.ctx);
    const result = await applyPlan(plan, env.ctx, {
      ...fakeTime(),
      secrets: { 'node.session.auth.username': 'labuser', 'node.session.auth.password': 'labsecret123' },
    });
    expect(result.steps.find((x) => x.stepId === `login:${P}`)?.status).toBe('done');
    expect(result.error?.message).toMatch(/LUN 9 not found/);
    expect(result.error?.message).not.toContain('labsecret123');
    const s = env.snap();
    expect(s.sessions).toEqual([]);
    expect(s.nodeRecords).toEqual([]);
    expect(s.ifaces.some((i) => i.name === iface)).toBe(false);
  });

  it('--keep-on-failure keeps the session, records and iface, and says so', async () => {
    env = await simEnv('empty');
    const iface = `${P}:pvk`;
    const { plan, result } = await env.run(
      'attach',
      [],
      attachArgs({
        lun: '7',
        'volume-name': 'pvk',
        'initiator-name': `${LAB}:custom-initiator`,
        'keep-on-failure': true,
      }),
    );
    expect(plan.warnings).toContain(
      `on failure: --keep-on-failure leaves its sessions, the node records it created, iface ${iface} and the kubelet dir it made on the node for inspection`,
    );
    expect(result.ok).toBe(false);
    expect(result.rollback?.kept).toBe(true);
    expect(result.error?.message).toContain('kept on the node (--keep-on-failure): session');
    const s = env.snap();
    expect(s.sessions.filter((x) => x.targetIqn === T1)).toHaveLength(1);
    expect(s.nodeRecords.some((r) => r.targetIqn === T1 && r.iface === iface)).toBe(true);
    expect(s.ifaces.some((i) => i.name === iface)).toBe(true);
  });

  it('an interrupt after login rolls nothing back: it says what it left', async () => {
    env = await simEnv('empty');
    const stop = new AbortController();
    const { result } = await env.run('attach', [], attachArgs(), {
      signal: stop.signal,
      onProgress: (p) => {
        if (p.stepId === `login:${P}` && p.status === 'done') stop.abort();
      },
    });
    expect(result.error?.kind).toBe('interrupted');
    expect(result.rollback).toMatchObject({ removed: [], kept: false });
    expect(result.error?.message).toContain(`left on the node: session`);
    expect(env.snap().sessions.filter((x) => x.targetIqn === T1)).toHaveLength(1);
  });

  it('a failure after mkdir removes the kubelet dir and iscsi.json it wrote (a read-only unformatted volume)', async () => {
    env = await simEnv('empty');
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/${P}-${T1}-lun-2`;
    const { result } = await env.run('attach', [], {
      ...attachArgs({ lun: '2', 'read-only': true }),
      'no-mount': false,
    });
    expect(result.error?.message).toMatch(/unformatted and the volume is read-only/);
    expect(result.rollback?.removed).toContain(`kubelet dir ${gp}`);
    expect(env.host.lstat(gp)).toBeUndefined();
    expect(env.snap().sessions).toEqual([]);
  });
});
