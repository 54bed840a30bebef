/**
 * Filesystems stopped by the kernel, through the real read and problems rule on the simulator
 * (`--demo degraded` and a clean node): ext4's sysfs record, the kernel log line after the last
 * mount, the superblock `ro` of older kernels, and an old count that is history, not an incident.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { kernelLogEvents } from '../../src/engine/snapshot/fs-errors.js';
import { nodeProblems } from '../../src/engine/snapshot/problems.js';
import { type SimEnv, simEnv } from '../actions/helpers.js';

let e: SimEnv;
afterEach(async () => e?.close());

const pgDevice = (env: SimEnv) => {
  const s = env.snap().sessions.find((x) => x.targetIqn.endsWith(':pg-data'))!;
  return { session: s, sd: s.devices.find((d) => d.lun === 1)!.name! };
};

describe('filesystem errors', () => {
  it('--demo degraded: the ext4 the kernel stopped is failing, naming the PV and the pod', async () => {
    e = await simEnv('degraded', false);
    const { session, sd } = pgDevice(e);
    const s = e.snap();
    expect(s.fsErrors).toHaveLength(1);
    const f = s.fsErrors![0]!;
    expect(f).toMatchObject({
      device: sd,
      fsType: 'ext4',
      state: 'failing',
      errorsCount: 1,
      pods: ['db/pg-0'],
    });
    expect(f.volumes).toContain('pv-pg-data');
    expect(f.summary).toBe(
      `filesystem on ${sd} (pv-pg-data, pod db/pg-0) stopped by the kernel after an I/O error: writes fail`,
    );
    expect(f.kernelLog?.line).toBe(`EXT4-fs (${sd}): Remounting filesystem read-only`);
    expect(f.superblockReadOnly).toBe(false);
    const p = nodeProblems(s);
    expect(p.sessions.get(session.key)).toMatchObject({ severity: 'failed' });
    expect(p.sessions.get(session.key)!.reasons[0]).toBe(f.summary);
    expect(p.summary).toContain(`filesystem on ${sd} stopped: writes fail`);
  });

  it('a remount after the error makes the count history: on record, with when it last happened', async () => {
    e = await simEnv('degraded', false);
    const { sd } = pgDevice(e);
    e.host.sim.logKernel(`EXT4-fs (${sd}): mounted filesystem with ordered data mode. Quota mode: none.`, 6);
    const f = e.snap().fsErrors![0]!;
    expect(f.state).toBe('on-record');
    expect(f.summary).toMatch(
      new RegExp(
        `^filesystem on ${sd} \\(pv-pg-data, pod db/pg-0\\): 1 error on record, the last at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC \\(ext4_journal_check_start\\); not failing now$`,
      ),
    );
    expect(nodeProblems(e.snap()).summary).not.toContain('writes fail');
  });

  it('an older kernel: the superblock says ro under a rw mount', async () => {
    e = await simEnv('healthy', false);
    const s0 = e.snap();
    const x = s0.sessions.find((y) => y.targetIqn.endsWith(':postgres-data'))!;
    const sd = x.devices.find((d) => d.lun === 1)!.name!;
    e.host.sim.kmsg.length = 0;
    e.host.sim.fsError(sd, { oldKernel: true });
    e.host.sim.kmsg.length = 0; // the log unreadable or rotated: mountinfo alone must tell
    const f = e.snap().fsErrors![0]!;
    expect(f).toMatchObject({ device: sd, state: 'failing', superblockReadOnly: true });
  });

  it('kernel log: XFS shut down, and only events after the last mount count', () => {
    const ev = kernelLogEvents([
      '4,1,100,-;XFS (sdd): Mounting V5 Filesystem',
      '1,2,200,-;XFS (sdd): Filesystem has been shut down due to log error (0x2).',
      '6,3,300,-;EXT4-fs (sde): Remounting filesystem read-only',
      '6,4,400,-;EXT4-fs (sde): mounted filesystem with ordered data mode',
      'garbage without a semicolon',
    ]);
    expect(ev.get('sdd')?.kind).toBe('stop');
    expect(ev.get('sde')?.kind).toBe('mount');
  });

  it('a healthy node has none', async () => {
    e = await simEnv('healthy', false);
    expect(e.snap().fsErrors).toBeUndefined();
  });
});
