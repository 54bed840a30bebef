/**
 * The `status` text's CSI section (docs/csi-drivers.md): the same volumes, paths, pods, claim states and
 * sessions as `status --json`'s `csi`; node-sourced names made printable; CHAP from connector and
 * tracking files never in it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatStatus } from '../../src/cli/commands/status-text.js';
import { csiClaimState } from '../../src/engine/snapshot/csi/describe.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { DEMO_DRIVER_SECRET } from '../../src/sim/csi-node.js';
import type { SimEnv } from '../actions/helpers.js';
import { mkHostDir } from '../helpers/materialize-sysfs.js';
import { IQN1, KROOT, P1 } from '../snapshot/fixture-root.js';
import { testNodes } from './helpers.js';

const plain = (t: string) => t;
const nodes = testNodes();
let env: SimEnv;

/** The lines between a section's header and the next blank-line-separated header. */
function section(text: string, header: string): string {
  const start = text.indexOf(`\n${header} (`);
  expect(start).toBeGreaterThanOrEqual(0);
  return text.slice(start + 1, text.indexOf('\n\n', start + 1) + 1 || undefined);
}

describe('status text on --demo csi', () => {
  it('lists every CSI volume as status --json has it: driver, PV, handle, paths, pods, claim state, sessions', async () => {
    env = await nodes.sim('csi');
    const s = env.snap();
    const text = formatStatus(s, plain);
    const table = section(text, 'CSI VOLUMES');
    expect(table.split('\n')[0]).toBe(`CSI VOLUMES (${s.csi!.volumes.length})`);
    for (const v of s.csi!.volumes) {
      const head = text.split('\n').find((l) => l.startsWith(`CSI volume ${v.pv} (`))!;
      expect(head).toContain(csiClaimState(v).text);
      const block = text.slice(text.indexOf(head), text.indexOf('\nCSI volume ', text.indexOf(head) + 1));
      if (v.volumeHandle) expect(block).toContain(`  - volume handle ${v.volumeHandle}`);
      if (v.stagingPath) expect(block).toContain(`  - staging ${v.stagingPath} (`);
      for (const p of v.publish) expect(block).toContain(`  - publish ${p.path} → pod ${p.podUid} (`);
      for (const sid of v.sessions) {
        const x = s.sessions.find((y) => y.sid === sid)!;
        expect(block).toContain(
          `  - session ${sid} ${x.targetIqn} @ ${x.portal} (${x.verdict}, ${x.health})`,
        );
      }
    }
    const row = (pv: string) =>
      table
        .split('\n')
        .find((l) => l.includes(` ${pv} `))!
        .split(/\s{2,}/);
    expect(row('pv-csi-web')).toEqual([
      'csi-driver-iscsi',
      'pv-csi-web',
      'csi-web-handle',
      'fs',
      'yes',
      '1',
      '1',
      'in-use',
    ]);
    expect(row('pv-csi-queue').at(-1)).toBe('claimed');
    expect(row('pv-csi-gone').slice(4)).toEqual(['no', '-', '1', 'no-session']);
    expect(text).toContain(
      'CSI volume pv-csi-gone (csi-driver-iscsi: iscsi.csi.k8s.io, filesystem): not mounted, no iSCSI session of it on this node',
    );
    expect(text).toMatch(
      /a leftover\? `iscsi-console cleanup \/var\/lib\/kubelet\/plugins\/kubernetes.io\/csi\/iscsi.csi.k8s.io\/[0-9a-f]{64}\/globalmount`/,
    );
    expect(section(text, 'CSI DRIVERS')).toContain(
      'csi.trident.netapp.io (Trident): registered; node plugin running: trident_orchestrator --csi_role=node (pid 1301)',
    );
    const files = section(text, 'CSI DRIVER FILES');
    expect(files).toContain(
      'csi-driver-iscsi connector, target iqn.2026-01.lab.example:csi-web @ 10.0.0.10:3260, LUN 1',
    );
    expect(files).toContain('CHAP configured (never shown)');
    // No secret, no CHAP user name from the connector or the tracking files.
    for (const secret of [DEMO_DRIVER_SECRET, 'node-user', 'trident-node', 'trident-target']) {
      expect(text).not.toContain(secret);
      expect(JSON.stringify(s)).not.toContain(secret);
    }
  });
});

describe('status text on a --root tree', () => {
  it('a node without CSI has no CSI section', () => {
    const f = nodes.root();
    expect(formatStatus(takeSnapshot(f.host(), { kubeletRoot: KROOT }), plain)).not.toContain('CSI ');
  });

  it('node-sourced names are made printable; CHAP from a connector never appears', () => {
    const f = nodes.root();
    // A PV dir name with an escape sequence and no vol_data.json: the name comes from the path.
    const pv = 'pv-\u001b[2Jevil';
    mkHostDir(
      f.root,
      `${KROOT}/pods/5f6e7d8c-0000-4000-8000-000000000001/volumes/kubernetes.io~csi/${pv}/mount`,
    );
    const handle = 'vol-0001';
    const st = `${KROOT}/plugins/kubernetes.io/csi/iscsi.csi.k8s.io/${createHash('sha256').update(handle).digest('hex')}`;
    f.write(`${st}/vol_data.json`, JSON.stringify({ driverName: 'iscsi.csi.k8s.io', volumeHandle: handle }));
    mkHostDir(f.root, `${st}/globalmount`);
    f.write(
      `/var/run/iscsi.csi.k8s.io/iscsi-${handle}.json`,
      JSON.stringify({
        target_iqn: IQN1,
        target_portal: [P1],
        lun: 1,
        session_secrets: { userName: 'chap-user-x', password: 'chap-pass-x', passwordIn: 'chap-in-x' },
        discovery_secrets: { userName: 'disc-user-x', password: 'disc-pass-x' },
      }),
    );
    const text = formatStatus(takeSnapshot(f.host(), { kubeletRoot: KROOT }), plain);
    expect(text).toContain('CSI volume pv-\\x1b[2Jevil (driver unknown, filesystem)');
    expect(text).not.toContain('\u001b');
    for (const secret of ['chap-user-x', 'chap-pass-x', 'chap-in-x', 'disc-user-x', 'disc-pass-x'])
      expect(text).not.toContain(secret);
    expect(text).toContain(
      `csi-driver-iscsi connector, target ${IQN1} @ ${P1}, LUN 1, volume ${handle}, CHAP configured (never shown)`,
    );
  });
});
