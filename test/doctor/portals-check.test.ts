/** doctor's `sessions.portals` check on the simulator: the snapshot's outage rule, as a check. */
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/engine/doctor/index.js';
import type { DoctorCheck } from '../../src/engine/doctor/types.js';
import { openSimHost } from '../../src/sim/index.js';

type Opened = Awaited<ReturnType<typeof openSimHost>>;
let opened: Opened | undefined;
afterEach(async () => {
  await opened?.close?.();
  opened = undefined;
});

async function portalsCheck(
  scenario: string,
  tweak?: (o: Opened) => void,
): Promise<{ c: DoctorCheck; ok: boolean }> {
  opened = await openSimHost({ scenario, clock: 'manual' });
  tweak?.(opened);
  const r = await runDoctor(opened.host, { kubeletRoot: '/var/lib/kubelet', exec: 'direct' });
  const c = r.checks.find((x) => x.id === 'sessions.portals');
  if (!c) throw new Error('sessions.portals is not registered');
  return { c, ok: r.summary.ok };
}

describe('doctor sessions.portals', () => {
  it('healthy: passes, counting sessions and portals', async () => {
    const { c } = await portalsCheck('healthy');
    expect(c.status).toBe('pass');
    expect(c.evidence).toMatch(/^\d+ sessions up on \d+ portals?$/);
  });

  it('outage: fails with the portal, its sessions and kernel states; the report is not ok (exit 3)', async () => {
    // Five sessions on 10.0.0.10: four volumes (LUN 1 each) and scratch-old's hand login (LUN 0 and 1).
    const { c, ok } = await portalsCheck('outage');
    expect(c.status).toBe('fail');
    expect(c.evidence).toMatch(
      /^portal 10\.0\.0\.10:3260 down: 5 sessions FAILED \(sessions 1, 2, 3, 4, 5; connections 5 failed; devices 6 blocked; first seen /,
    );
    expect(c.hint).toMatch(/do not clean them up/);
    expect(c.title).toBe('portal down');
    expect(ok).toBe(false);
  });

  it('one session down while its portal is up: a warning naming it', async () => {
    const { c } = await portalsCheck('healthy', (o) => {
      const k = o.host.sim.kernel;
      const first = [...k.sessions.values()].sort((a, b) => a.sid - b.sid)[0]!;
      k.failSession(first);
    });
    expect(c.status).toBe('warn');
    expect(c.evidence).toMatch(/^1 session down while its portal is up: 1 iqn\.\S+ @ \S+ FAILED$/);
  });

  it('no sessions: passes', async () => {
    const { c } = await portalsCheck('empty');
    expect(c).toMatchObject({ status: 'pass', evidence: 'no iSCSI sessions' });
  });

  it('outage past recovery_tmo: the line says first that the kernel fails I/O, and since when in UTC', async () => {
    const { c } = await portalsCheck('outage', (o) => o.host.sim.advance(130_000));
    expect(c.status).toBe('fail');
    expect(c.title).toBe('recovery_tmo expired: the kernel fails I/O on 10.0.0.10:3260');
    expect(c.evidence).toMatch(
      /^portal 10\.0\.0\.10:3260 down: 5 sessions FREE; recovery_tmo expired: the kernel fails I\/O \(sessions 1, 2, 3, 4, 5; connections 5 failed; devices 6 transport-offline; recovery_tmo expired on all; first seen down just now, at \d\d:\d\d UTC\)$/,
    );
  });
});
