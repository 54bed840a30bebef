import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import { lunListing, planListLuns } from '../../src/engine/actions/list-luns.js';
import { planListTargets } from '../../src/engine/actions/list-targets.js';
import type { Snapshot } from '../../src/engine/model.js';
import { type SimEnv, STATE_DIR, simEnv } from './helpers.js';

const LAB = 'iqn.2026-01.lab.example';
const T1 = `${LAB}:storage.target1`;
const SECURE = `${LAB}:secure-volume`;
const P = '127.0.0.1:3260';
const SECRET = 'labsecret123';
const I = 'iscsi-console-luns';

let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** What the listing must leave exactly as it was. */
function nodeState(s: Snapshot) {
  return {
    sessions: s.sessions.map((x) => x.key),
    devices: s.sessions.flatMap((x) => x.devices.map((d) => d.key)),
    records: s.nodeRecords.map((r) => `${r.targetIqn}|${r.portal}|${r.iface}|${r.startup}`),
    ifaces: s.ifaces.map((i) => i.name),
  };
}

const input = { portal: P, iqn: T1, iface: 'default', chapSession: false, secretKeys: [] };

const CHAP_KEYS = ['node.session.auth.username', 'node.session.auth.password'];

/** The listing of the CHAP target, applied with `password` as its session secret. */
async function listSecure(e: SimEnv, password: string) {
  const plan = planListLuns(
    { ...input, iqn: SECURE, chapSession: true, secretKeys: CHAP_KEYS },
    e.snap(),
    e.ctx,
  );
  const result = await applyPlan(plan, e.ctx, {
    sleep: async () => {},
    secrets: { 'node.session.auth.username': 'labuser', 'node.session.auth.password': password },
  });
  return { plan, result };
}

describe('list-luns: a temporary login that lists a target LUNs and undoes itself', () => {
  it('plans exact argv, lists every LUN with size, vendor and model, and leaves the node as it was', async () => {
    env = await simEnv('empty');
    const before = nodeState(env.snap());
    const plan = planListLuns(input, env.snap(), env.ctx);
    expect(
      plan.steps.map(
        (s) => s.argv?.join(' ') ?? (s.write ? `${s.write.data} > ${s.write.path}` : `wait ${s.wait?.what}`),
      ),
    ).toEqual([
      `iscsiadm -m iface -I ${I} -o new`,
      `iscsiadm -m node -p ${P} -T ${T1} -I ${I} -o new`,
      `iscsiadm -m node -p ${P} -T ${T1} -I ${I} -o update -n node.startup -v manual`,
      `iscsiadm -m node -p ${P} -T ${T1} -I ${I} -o update -n node.session.scan -v manual`,
      `iscsiadm -m node -p ${P} -T ${T1} -I ${I} --login`,
      '0 0 - > /sys/class/scsi_host/host<N>/scan',
      'wait the scanned LUNs',
      '1 > /sys/class/scsi_device/<H:0:0:L>/device/delete',
      `iscsiadm -m node -p ${P} -T ${T1} --logout -I ${I}`,
      `iscsiadm -m node -p ${P} -T ${T1} -o delete -I ${I}`,
      `iscsiadm -m iface -I ${I} -o delete`,
    ]);
    const result = await applyPlan(plan, env.ctx, { sleep: async () => {} });
    expect(result.error).toBeUndefined();
    const disks = result.luns!.filter((l) => l.type === 0);
    expect(disks.map((l) => [l.lun, l.sizeBytes])).toEqual([
      [1, 1024 ** 3],
      [2, 0.5 * 1024 ** 3],
    ]);
    expect(disks[0]?.vendor).toBeTruthy();
    expect(disks[0]?.model).toBeTruthy();
    expect(disks.every((l) => l.inUse === undefined)).toBe(true);
    expect(nodeState(env.snap())).toEqual(before);
    const end = readJournal(env.host, STATE_DIR).find((e) => e.phase === 'end')!;
    expect(end.action).toBe('list-luns');
    expect(end.steps!.map((s) => s.status).every((s) => s === 'done')).toBe(true);
  });

  it("kubelet's discovered record for the target is neither used nor changed", async () => {
    env = await simEnv('empty');
    // Discovery writes a record for every target the portal lists (no CHAP, iscsid.conf's startup).
    await env.host.run(['iscsiadm', '-m', 'discovery', '-t', 'sendtargets', '-p', P]);
    const before = nodeState(env.snap());
    expect(before.records.some((r) => r.startsWith(`${SECURE}|${P}|default`))).toBe(true);
    const { result } = await listSecure(env, SECRET);
    expect(result.error).toBeUndefined();
    expect(result.luns!.map((l) => l.lun)).toContain(1);
    expect(nodeState(env.snap())).toEqual(before);
  });

  it('with session CHAP: credentials go into the record file, never argv or the journal', async () => {
    env = await simEnv('empty');
    const before = nodeState(env.snap());
    const { plan, result } = await listSecure(env, SECRET);
    expect(JSON.stringify(plan)).not.toContain(SECRET);
    expect(result.error).toBeUndefined();
    expect(result.luns!.filter((l) => l.type === 0).map((l) => l.lun)).toEqual([1]);
    expect(nodeState(env.snap())).toEqual(before);
    const journal = JSON.stringify(readJournal(env.host, STATE_DIR));
    expect(journal).not.toContain(SECRET);
    for (const c of readJournal(env.host, STATE_DIR)
      .flatMap((e) => e.steps ?? [])
      .flatMap((s) => s.commands))
      expect(c.argv?.join(' ') ?? '').not.toContain(SECRET);
  });

  it('a wrong CHAP secret fails the login and rolls back the record it wrote', async () => {
    env = await simEnv('empty');
    const before = nodeState(env.snap());
    const { result } = await listSecure(env, 'wrong-secret');
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/auth/i);
    expect(result.rollback?.removed.join(' ')).toContain(`node record ${SECURE}`);
    expect(result.rollback?.removed).toContain(`iface ${I}`);
    expect(nodeState(env.snap())).toEqual(before);
  });

  it('a target the node is logged in to: listed from its sessions, marked in use, nothing runs', async () => {
    env = await simEnv('healthy');
    const s = env.snap();
    const x = s.sessions.find((x) => x.devices.some((d) => d.mountpoints.length > 0))!;
    const listing = lunListing({ ...input, iqn: x.targetIqn, portal: x.portal }, s, env.ctx);
    expect(listing.kind).toBe('known');
    if (listing.kind !== 'known') return;
    expect(listing.note).toContain(`session ${x.sid}`);
    const used = listing.luns.find((l) => l.inUse?.includes('mounted on'));
    expect(used?.inUse).toContain(`session ${x.sid}`);
    // And the planner itself refuses a second session to the target.
    const plan = planListLuns({ ...input, iqn: x.targetIqn, portal: x.portal }, s, env.ctx);
    expect(plan.refusals.map((r) => r.id)).toContain('session-exists');
  });

  it('read-only: the plan is refused and bad names are refused before planning', async () => {
    env = await simEnv('empty', false);
    const plan = planListLuns(input, env.snap(), env.ctx);
    expect(plan.refusals.map((r) => r.id)).toContain('read-only');
    expect(() => planListLuns({ ...input, iqn: '../etc' }, env!.snap(), env!.ctx)).toThrow(/target name/);
    expect(() => planListLuns({ ...input, portal: 'storage.lab:3260' }, env!.snap(), env!.ctx)).toThrow(
      /address/,
    );
  });
});

describe('list-targets: discovery CHAP without a secret on any command line, nothing stored', () => {
  const GUARDED = '127.0.0.2:3260';
  const DSECRET = 'discsecret456';
  const keys = ['discovery.sendtargets.auth.username', 'discovery.sendtargets.auth.password'];

  it('lists the guarded portal through a temporary discovery record, then deletes it', async () => {
    env = await simEnv('empty');
    const before = nodeState(env.snap());
    const plan = planListTargets(
      { portal: GUARDED, iface: 'default', secretKeys: keys },
      env.snap(),
      env.ctx,
    );
    expect(plan.steps.map((s) => s.argv?.join(' ') ?? `write ${s.write?.path}`)).toEqual([
      `iscsiadm -m discoverydb -t sendtargets -p ${GUARDED} -I default -o new`,
      `iscsiadm -m discoverydb -t sendtargets -p ${GUARDED} -I default -o update -n discovery.sendtargets.auth.authmethod -v CHAP`,
      'write /etc/iscsi/send_targets/<address>,<port>/st_config',
      `iscsiadm -m discoverydb -t sendtargets -p ${GUARDED} -I default --discover -o nonpersistent`,
      `iscsiadm -m discoverydb -t sendtargets -p ${GUARDED} -I default -o delete`,
    ]);
    const result = await applyPlan(plan, env.ctx, {
      sleep: async () => {},
      secrets: {
        'discovery.sendtargets.auth.username': 'discuser',
        'discovery.sendtargets.auth.password': DSECRET,
      },
    });
    expect(result.error).toBeUndefined();
    expect(result.targets?.map((t) => t.iqn)).toEqual([`${LAB}:guarded-volume`]);
    expect(nodeState(env.snap())).toEqual(before);
    expect(env.host.sim.db.discovery).toEqual([]);
    expect(JSON.stringify(readJournal(env.host, STATE_DIR))).not.toContain(DSECRET);
  });

  it('a wrong discovery secret fails with the authorization error and leaves no record', async () => {
    env = await simEnv('empty');
    const plan = planListTargets(
      { portal: GUARDED, iface: 'default', secretKeys: keys },
      env.snap(),
      env.ctx,
    );
    const result = await applyPlan(plan, env.ctx, {
      sleep: async () => {},
      secrets: {
        'discovery.sendtargets.auth.username': 'discuser',
        'discovery.sendtargets.auth.password': 'nope-nope',
      },
    });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/auth/i);
    expect(env.host.sim.db.discovery).toEqual([]);
  });
});
