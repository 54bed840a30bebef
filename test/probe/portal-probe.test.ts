/**
 * The probe through the simulator behind the one Host seam (the SAN answers the connect, the
 * simulated iscsiadm the SendTargets): each way a portal answers or not, the 5 s bound on a portal
 * that accepts and never answers, and the prober's rules (parallel, once per portal per interval)
 * on a manual clock.
 */
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probePortal } from '../../src/engine/probe/portal-probe.js';
import { createProber } from '../../src/engine/probe/prober.js';
import { labSim, type TestSim } from '../sim/helpers.js';

const P = '127.0.0.1:3260';
let t: TestSim;
afterEach(() => t?.close());

const now = () => t.sim.clock.now();

/** Every command the Host runs from now on (argv), for asserting that none ran. */
function recordCommands(sim: TestSim): string[][] {
  const ran: string[][] = [];
  const run = sim.host.run.bind(sim.host);
  sim.host.run = (argv, o) => {
    ran.push([...argv]);
    return run(argv, o);
  };
  return ran;
}

describe('probePortal', () => {
  it('a portal whose SendTargets answers: answers, with what it listed', async () => {
    t = labSim();
    const r = await probePortal(t.host, P, { now });
    expect(r).toMatchObject({ portal: P, answers: true, via: 'sendtargets' });
    expect(r.detail).toBe('SendTargets answered (2 targets)');
    expect(r.at).toBe(new Date(now()).toISOString());
  });

  it('stores nothing: no discovery record and no node record afterwards', async () => {
    t = labSim();
    await probePortal(t.host, P, { now });
    expect(t.sim.db.discovery).toHaveLength(0);
    expect((await t.host.run(['iscsiadm', '-m', 'node'])).exitCode).toBe(21);
  });

  it('a portal that refuses: does not answer, and no iscsiadm runs', async () => {
    t = labSim();
    t.sim.portalDown(P);
    const ran = recordCommands(t);
    const r = await probePortal(t.host, P, { now });
    expect(r).toMatchObject({ answers: false, via: 'tcp', detail: 'connection refused' });
    expect(ran).toEqual([]);
  });

  it('a portal that accepts and never answers: does not answer, given up at the 5 s bound', async () => {
    t = labSim();
    t.sim.portalBroken(P, 'silent');
    const started = now();
    const pending = probePortal(t.host, P, { now });
    await t.sim.clock.sleeping();
    t.sim.advance(5_000);
    const r = await pending;
    expect(r).toMatchObject({ answers: false, via: 'sendtargets' });
    expect(r.detail).toBe('accepted a TCP connection, no SendTargets answer within 5 s');
    expect(now() - started).toBe(5_000);
  });

  it('a portal that drops the connection: does not answer (ISCSI_ERR_TRANS)', async () => {
    t = labSim();
    t.sim.portalBroken(P, 'drops');
    const r = await probePortal(t.host, P, { now });
    expect(r.answers).toBe(false);
    expect(r.detail).toContain('ISCSI_ERR_TRANS');
  });

  it('a portal that asks for discovery CHAP answers (an authorization failure is an answer)', async () => {
    t = labSim();
    t.sim.addTarget({
      iqn: 'iqn.2024-01.lab.example:chap',
      portals: ['127.0.0.2:3260'],
      luns: [{ lun: 1, sizeBytes: 1 << 20 }],
      discoveryChap: { username: 'u', password: 'discovery-secret-1' },
    });
    const r = await probePortal(t.host, '127.0.0.2:3260', { now });
    expect(r).toMatchObject({ answers: true, via: 'auth' });
  });

  it('with discovery CHAP configured for the portal, only the TCP connect is sent', async () => {
    t = labSim();
    const rec = '/etc/iscsi/send_targets/127.0.0.1,3260/st_config';
    t.host.mkdir(path.dirname(rec));
    t.host.writeText(rec, 'discovery.sendtargets.auth.authmethod = CHAP\n');
    const ran = recordCommands(t);
    const r = await probePortal(t.host, P, { now });
    expect(r).toMatchObject({ answers: true, via: 'tcp' });
    expect(ran).toEqual([]);
  });
});

describe('createProber', () => {
  it('probes every portal in parallel: two silent portals take one budget, not two', async () => {
    t = labSim();
    t.sim.addTarget({ iqn: 'iqn.2024-01.lab.example:b', portals: ['127.0.0.3:3260'], luns: [] });
    t.sim.portalBroken(P, 'silent');
    t.sim.portalBroken('127.0.0.3:3260', 'silent');
    const prober = createProber({ host: t.host, now });
    const started = now();
    const pending = prober.probe([P, '127.0.0.3:3260', P]);
    await t.sim.clock.sleeping();
    t.sim.advance(5_000);
    const r = await pending;
    expect(r.map((x) => [x.portal, x.answers])).toEqual([
      [P, false],
      ['127.0.0.3:3260', false],
    ]);
    expect(now() - started).toBe(5_000);
  });

  it('never probes a portal twice within the interval; again once it has passed', async () => {
    t = labSim();
    let discoveries = 0;
    const run = t.host.run.bind(t.host);
    t.host.run = (argv, o) => {
      if (argv.includes('discovery')) discoveries++;
      return run(argv, o);
    };
    const prober = createProber({ host: t.host, now, intervalMs: 30_000 });
    const [a, b] = await Promise.all([prober.probe([P]), prober.probe([P])]);
    expect(discoveries).toBe(1);
    expect(b).toEqual(a);
    t.sim.advance(29_999);
    await prober.probe([P]);
    expect(discoveries).toBe(1);
    t.sim.advance(1);
    await prober.probe([P]);
    expect(discoveries).toBe(2);
    expect(prober.last(P)?.at).toBe(new Date(now()).toISOString());
  });
});
