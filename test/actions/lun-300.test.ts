/**
 * A LUN above 255 end to end on the simulator, whose kernel numbers LUNs like Linux does: tgt
 * reports LUN 300 in flat space addressing (`41 2c …`), the kernel calls it 16684.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { kernelLunOf, kubeletLunProblem, lunLabel, targetLunOf } from '../../src/engine/iscsi/lun.js';
import { kernelLunFromTgt, scsilunToInt, tgtLunField } from '../../src/sim/kernel/names.js';
import { type SimEnv, simEnv } from './helpers.js';

const IQN = 'iqn.2026-01.lab.example:big-lun';
const LINK = `/dev/disk/by-path/ip-127.0.0.1:3260-iscsi-${IQN}-lun-0x412c000000000000`;
let env: SimEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function bigLunEnv(): Promise<SimEnv> {
  const e = await simEnv('empty');
  e.host.sim.addTarget({ iqn: IQN, portals: ['127.0.0.1:3260'], luns: [{ lun: 300, sizeBytes: 1 << 24 }] });
  return e;
}

describe('target LUN ↔ kernel LUN (SAM flat space, scsilun_to_int)', () => {
  it('converts both ways and agrees with the simulated tgt + kernel byte path', () => {
    for (const l of [0, 1, 255, 256, 300, 1023]) {
      expect(kernelLunOf(l)).toBe(kernelLunFromTgt(l));
      expect(targetLunOf(kernelLunOf(l))).toBe(l);
    }
    expect(tgtLunField(300).slice(0, 2)).toEqual([0x41, 0x2c]);
    expect(kernelLunOf(300)).toBe(16684);
    expect(kernelLunOf(16383)).toBe(0x7fff);
    // `0 0 300` asks for 01 2c (peripheral addressing, bus 1): not a flat-space LUN at all.
    expect(scsilunToInt([0x01, 0x2c, 0, 0, 0, 0, 0, 0])).toBe(300);
    expect(targetLunOf(0x8000)).toBeUndefined();
    expect(targetLunOf(-1)).toBeUndefined();
    expect(lunLabel({ lun: 300, kernelLun: 16684 })).toBe('300 (kernel 16684)');
    expect(lunLabel({ lun: 3 })).toBe('3');
    expect(kubeletLunProblem(255)).toBeUndefined();
    expect(kubeletLunProblem(300)).toMatch(/"0 0 300".*16684.*lun-300.*lun-0x412c000000000000/);
  });
});

describe('LUN 300 on the simulator', () => {
  it("kubelet's `0 0 300` finds nothing; `scan <sid> 300` brings it in as H:0:0:16684", async () => {
    env = await bigLunEnv();
    const r = await env.host.run([
      'iscsiadm',
      '-m',
      'discovery',
      '-t',
      'sendtargets',
      '-p',
      '127.0.0.1:3260',
    ]);
    expect(r.exitCode).toBe(0);
    await env.host.run([
      'iscsiadm',
      '-m',
      'node',
      '-T',
      IQN,
      '-p',
      '127.0.0.1:3260',
      '-o',
      'update',
      '-n',
      'node.session.scan',
      '-v',
      'manual',
    ]);
    expect(
      (await env.host.run(['iscsiadm', '-m', 'node', '-T', IQN, '-p', '127.0.0.1:3260', '--login'])).exitCode,
    ).toBe(0);
    const x = env.snap().sessions.find((s) => s.targetIqn === IQN)!;
    env.host.writeText(`/sys/class/scsi_host/host${x.hostNumber}/scan`, '0 0 300');
    expect(env.snap().sessions.find((s) => s.targetIqn === IQN)!.devices).toEqual([]);

    const { plan, result } = await env.run('scan', [String(x.sid), '300']);
    expect(plan.steps[0]!.write).toEqual({
      path: `/sys/class/scsi_host/host${x.hostNumber}/scan`,
      data: '0 0 16684',
    });
    expect(result.ok).toBe(true);
    expect(result.verified).toBe(true);
    const d = env.snap().sessions.find((s) => s.targetIqn === IQN)!.devices[0]!;
    expect(d.hctl).toBe(`${x.hostNumber}:0:0:16684`);
    expect(d.lun).toBe(300);
    expect(d.kernelLun).toBe(16684);
    expect(d.key.endsWith('|300')).toBe(true);
    expect(d.byPath).toEqual([LINK]);
    // A second scan is recognised as a no-op (keys carry the target LUN); the kernel number is refused with a hint.
    expect(env.plan('scan', [String(x.sid), '300']).warnings.join()).toMatch(/already present/);
    expect(() => env!.plan('scan', [String(x.sid), '16684'])).toThrow(/invalid LUN 16684/);
    try {
      env.plan('scan', [String(x.sid), '16684']);
    } catch (e) {
      expect((e as { hint?: string }).hint).toMatch(/kernel's number for target LUN 300/);
    }
    // delete-device's undo line names the kernel's number too.
    expect(env.plan('delete-device', [d.name!]).undo.join()).toContain("echo '0 0 16684'");
  });

  it('attach --lun 300 (filesystem) mounts it; the -lun-300 kubelet dir matches its session; kubelet detaches it', async () => {
    env = await bigLunEnv();
    const { plan, result } = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: IQN,
      lun: '300',
      'volume-name': 'pv300',
    });
    expect(plan.warnings.join('\n')).toMatch(/kubelet cannot attach LUN 300 itself/);
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    const gp = `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/127.0.0.1:3260-${IQN}-lun-300`;
    const s = env.snap();
    const x = s.sessions.find((y) => y.targetIqn === IQN)!;
    expect(x.devices.find((d) => d.lun === 300)?.mountpoints).toEqual([gp]);
    expect(x.kubeletVolumes).toContain(gp);
    expect(x.verdict).toBe('in-use');
    // cleanup of the dir picks the LUN-300 device by its target LUN.
    const p = env.plan('cleanup', [gp]);
    expect(p.steps.some((st) => st.write?.path.endsWith('/device/delete'))).toBe(true);
    // kubelet after a restart: it knows the volume only from the iscsi.json on disk.
    env.host.sim.kubelet.volumes.set(gp, {
      opts: { portals: [], iqn: '', lun: 0, volName: 'pv300', podUIDs: [] },
      globalPath: gp,
      devicePath: result.devicePath ?? '',
      pods: new Set(),
    });
    await env.host.sim.kubeletDetach(gp, []);
    expect(env.snap().sessions.find((y) => y.targetIqn === IQN)).toBeUndefined();
  });

  it('attach --lun 300 --block waits for the lun-0x412c link', async () => {
    env = await bigLunEnv();
    const { result } = await env.run('attach', [], {
      portal: ['127.0.0.1:3260'],
      iqn: IQN,
      lun: '300',
      'volume-name': 'pv300b',
      block: true,
    });
    expect(result.ok).toBe(true);
    expect(result.devicePath).toBe(LINK);
  });
});
