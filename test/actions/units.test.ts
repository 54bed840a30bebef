/** Pure parts of the action engine: formats, parsers, manifests, plans, exit-code mapping. */
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { iscsiJson, planAttach } from '../../src/engine/actions/attach.js';
import { combinePlans } from '../../src/engine/actions/combine.js';
import { formatPlan } from '../../src/engine/actions/format.js';
import { commandError, runCommand } from '../../src/engine/actions/iscsiadm.js';
import { attachFromManifest, chapFromSecret } from '../../src/engine/actions/manifest.js';
import { EMPTY_BLAST } from '../../src/engine/actions/plan-kit.js';
import { ACTIONS, findAction } from '../../src/engine/actions/registry.js';
import type { ActionContext, Plan, PlanStep } from '../../src/engine/actions/types.js';
import { UserError } from '../../src/engine/errors.js';
import type { Host, RunResult } from '../../src/engine/host/host.js';
import { parseDiscovery } from '../../src/engine/iscsiadm/discovery.js';
import { ifaceCloneParams, parseRecord, transportName } from '../../src/engine/iscsiadm/record.js';
import type { Snapshot } from '../../src/engine/model.js';
import { snapshot } from '../watchers/build-snapshot.js';
import { attachInput } from './helpers.js';

/** No multipath maps: the combined plans here are checked for step order, not for map paths. */
const NO_MAPS = { multipath: [], sessions: [] };

/** stdout of a capture file (`$ cmd` / `--- stdout ---` / `--- stderr ---` / `--- exit: N ---`). */
function capture(name: string): { stdout: string; stderr: string; exit: number } {
  const t = fs.readFileSync(`test/fixtures/captures/${name}`, 'utf8');
  const stdout = t.split('--- stdout ---\n')[1]!.split('--- stderr ---\n')[0]!;
  const stderr = t.split('--- stderr ---\n')[1]!.split('--- exit:')[0]!;
  return { stdout, stderr, exit: Number(/--- exit: (\d+) ---/.exec(t)![1]) };
}

function emptySnapshot(): Snapshot {
  return snapshot({
    node: { hostname: 'node-a', root: '/', kind: 'root', kubeletRoot: '/var/lib/kubelet', iscsiLoaded: true },
  });
}

const ctx = (write = true): ActionContext => ({
  // The planners' path guard lstats the kubelet paths they plan: an empty node has none of them.
  host: { lstat: () => undefined } as unknown as Host,
  kubeletRoot: '/var/lib/kubelet',
  stateDir: '/state',
  write,
  takeSnapshot: emptySnapshot,
});

const input = attachInput;

describe('iscsi.json', () => {
  it('is byte-identical to what kubelet wrote in the public demo (docs/kubelet-iscsi.md#iscsijson)', () => {
    expect(
      iscsiJson({
        volName: 'pv1',
        portals: ['178.104.163.35:3260'],
        iqn: 'iqn.2020-09.com.test:lv1',
        lun: 0,
        initIface: 'default',
        iface: 'default',
      }),
    ).toBe(
      '{"VolName":"pv1","Portals":["178.104.163.35:3260"],"Iqn":"iqn.2020-09.com.test:lv1","Lun":"0","InitIface":"default","Iface":"default","InitiatorName":"","MetricsProvider":null}\n',
    );
  });
});

describe('iscsiadm output parsers (captures)', () => {
  it('iface record: transport and kubelet clone params', () => {
    const { stdout } = capture('iface-default-show.txt');
    expect(transportName(stdout)).toBe('tcp');
    expect(transportName('iface.transport_name = <empty>\n')).toBe('tcp');
    expect(transportName('nothing')).toBe('');
    const params = ifaceCloneParams(stdout);
    expect(params.has('iface.iscsi_ifacename')).toBe(false);
    expect(params.get('iface.transport_name')).toBe('tcp');
    expect(params.get('iface.vlan_id')).toBe('0');
    expect([...params.values()].includes('<empty>')).toBe(false);
    expect(() => ifaceCloneParams('iface.bad = a b\n')).toThrow(/invalid iface setting/);
    expect(parseRecord(stdout).get('iface.initiatorname')).toBe('');
  });

  it('discovery output, IPv4 from the capture and IPv6 from kubernetes#110687', () => {
    expect(parseDiscovery(capture('discoverydb-discover-kubelet-style.txt').stdout)).toEqual([
      { portal: '127.0.0.1:3260', tpgt: 1, iqn: 'iqn.2024-01.lab.example:storage.target1' },
      { portal: '127.0.0.1:3260', tpgt: 1, iqn: 'iqn.2024-01.lab.example:storage.target2' },
    ]);
    expect(parseDiscovery('[2001:db8:0:f101::1]:3260,1 iqn.2003-01.io.k8s:jsafrane\n')).toEqual([
      { portal: '[2001:db8:0:f101::1]:3260', tpgt: 1, iqn: 'iqn.2003-01.io.k8s:jsafrane' },
    ]);
  });
});

function fakeRun(results: Partial<RunResult>[]): { host: Host; calls: string[][] } {
  const calls: string[][] = [];
  const host = {
    run: async (argv: readonly string[]) => {
      calls.push([...argv]);
      const r = results.shift() ?? { exitCode: 0 };
      return { argv: [...argv], exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1, ...r };
    },
  } as unknown as Host;
  return { host, calls };
}

describe('iscsiadm wrapper', () => {
  it('names every failure from the captures with its code name and hint', async () => {
    const chap = capture('err-login-chap-wrong-password.txt');
    const { host } = fakeRun([{ exitCode: chap.exit, stderr: chap.stderr }]);
    const r = await runCommand(host, ['iscsiadm', '-m', 'node', '--login']);
    const e = commandError(r);
    expect(e.exitName).toBe('ISCSI_ERR_LOGIN_AUTH_FAILED');
    expect(e.message).toMatch(/exit 24 ISCSI_ERR_LOGIN_AUTH_FAILED .*initiator reported error \(24/);
    expect(e.hint).toMatch(/CHAP/);
    expect(e.exitCode).toBe(4);
    const down = capture('err-discovery-without-iscsid.txt');
    const d = commandError(
      await runCommand(fakeRun([{ exitCode: down.exit, stderr: down.stderr }]).host, [
        'iscsiadm',
        '-m',
        'discovery',
      ]),
    );
    expect(d.exitName).toBe('ISCSI_ERR_ISCSID_NOTCONN');
    expect(d.message).not.toMatch(/systemd/);
    const t = commandError(
      await runCommand(fakeRun([{ exitCode: null, timedOut: true }]).host, ['iscsiadm', '-m', 'node']),
    );
    expect(t.exitCode).toBe(5);
    const n = commandError(
      await runCommand(fakeRun([{ exitCode: null, spawnError: 'ENOENT' }]).host, ['iscsiadm']),
    );
    expect(n.message).toMatch(/could not be started/);
  });

  it('retries exit 6 with backoff; 15/21 accepted only where declared', async () => {
    const { host, calls } = fakeRun([{ exitCode: 6 }, { exitCode: 6 }, { exitCode: 0 }]);
    const waits: number[] = [];
    const r = await runCommand(host, ['iscsiadm', '-m', 'node', '-o', 'delete'], {
      sleep: async (ms) => void waits.push(ms),
    });
    expect(r.ok).toBe(true);
    expect(r.attempts).toBe(3);
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([200, 400]);
    expect(
      (await runCommand(fakeRun([{ exitCode: 21 }]).host, ['iscsiadm'], { okExitCodes: [21, 2] })).idempotent,
    ).toBe(true);
    expect((await runCommand(fakeRun([{ exitCode: 21 }]).host, ['iscsiadm'])).ok).toBe(false);
    expect((await runCommand(fakeRun([{ exitCode: 6 }]).host, ['multipath', '-f', 'x'])).attempts).toBe(1);
  });
});

describe('manifests', () => {
  const pv = `apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-a }
spec:
  volumeMode: Block
  iscsi:
    targetPortal: "[fd00::1]"
    portals: ["10.0.0.2:3260"]
    iqn: iqn.2024-01.lab.example:t1
    lun: 300
    initiatorName: iqn.2024-01.lab.example:init
    chapAuthSession: true
    secretRef: { name: chap, namespace: ns }
`;
  it('PV → attach input (block, portals, initiator name, CHAP flags)', () => {
    const m = attachFromManifest(pv, 'pv.yaml');
    expect(m.secretName).toBe('chap');
    expect(m.input).toMatchObject({
      volName: 'pv-a',
      portals: ['[fd00::1]', '10.0.0.2:3260'],
      lun: 300,
      mode: 'block',
      mount: false,
      initiatorName: 'iqn.2024-01.lab.example:init',
      chapSession: true,
      chapDiscovery: false,
      fsType: 'ext4',
      initIface: 'default',
    });
  });

  it('Pod with several iSCSI volumes needs --volume-name; JSON works too', () => {
    const pod = JSON.stringify({
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        volumes: [
          { name: 'a', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2024-01.x.y:a', lun: 0 } },
          {
            name: 'b',
            iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2024-01.x.y:b', lun: 1, readOnly: true },
          },
          { name: 'c', emptyDir: {} },
        ],
      },
    });
    expect(() => attachFromManifest(pod, 'pod.json')).toThrow(/several iSCSI volumes: a, b/);
    expect(attachFromManifest(pod, 'pod.json', 'b').input).toMatchObject({
      volName: 'b',
      readOnly: true,
      lun: 1,
    });
  });

  it('invalid manifests give a path-only error (no values echoed)', () => {
    const bad = pv.replace('lun: 300', 'lun: "s3cr3t-value"');
    let err: unknown;
    try {
      attachFromManifest(bad, 'pv.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/spec\.iscsi\.lun/);
    expect((err as Error).message).not.toContain('s3cr3t-value');
    expect(() => attachFromManifest('kind: Service\n', 's.yaml')).toThrow(/no iSCSI volume/);
    expect(() => attachFromManifest('{ bad', 'x.yaml')).toThrow(/not valid YAML/);
  });

  it('Secret: base64 data and stringData, only CHAP keys, never echoed', () => {
    const s = `kind: Secret
metadata: { name: chap }
data:
  node.session.auth.username: ${Buffer.from('u1').toString('base64')}
  node.session.auth.password: ${Buffer.from('p@ss').toString('base64')}
  unrelated: ${Buffer.from('x').toString('base64')}
stringData:
  discovery.sendtargets.auth.password: plain
`;
    expect(chapFromSecret(s, 's.yaml', 'chap')).toEqual({
      'node.session.auth.username': 'u1',
      'node.session.auth.password': 'p@ss',
      'discovery.sendtargets.auth.password': 'plain',
    });
    expect(() => chapFromSecret(s, 's.yaml', 'other')).toThrow(/no Secret named other/);
  });
});

describe('attach plan (kubelet AttachDisk, docs/kubelet-iscsi.md#attachdisk)', () => {
  it('steps and argv in kubelet order; node.startup without -I; secrets masked', () => {
    const plan = planAttach(
      input({
        chapDiscovery: true,
        chapSession: true,
        secretKeys: [
          'node.session.auth.username',
          'node.session.auth.password',
          'discovery.sendtargets.auth.password',
        ],
      }),
      emptySnapshot(),
      ctx(),
    );
    const argv = plan.steps.filter((s) => s.argv).map((s) => s.argv!.join(' '));
    const d = 'iscsiadm -m discoverydb -t sendtargets -p 10.0.0.1:3260 -I default';
    const n = 'iscsiadm -m node -p 10.0.0.1:3260 -T iqn.2024-01.lab.example:t1 -I default';
    expect(argv).toEqual([
      'iscsiadm -m iface -I default -o show',
      `${d} -o new`,
      `${d} -o update -n discovery.sendtargets.auth.authmethod -v CHAP`,
      // `-o new`: discovery adds records but never rewrites ones that existed (usr/idbm.c idbm_add_node).
      `${d} --discover -o new`,
      `${n} -o update -n node.session.scan -v manual`,
      `${n} -o update -n node.session.auth.authmethod -v CHAP`,
      `${n} --login`,
      'iscsiadm -m node -p 10.0.0.1:3260 -T iqn.2024-01.lab.example:t1 -o update -n node.startup -v manual',
      'iscsiadm -m node -p <portal> -T <each unused discovered target> -o delete -I default',
      'mount -t ext4 -o defaults <device> /var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.1:3260-iqn.2024-01.lab.example:t1-lun-1',
    ]);
    // CHAP values go into the record file (no argv carries them), one step per record, after authmethod.
    expect(plan.steps.some((s) => s.secretArgs)).toBe(false);
    const creds = plan.steps.filter((s) => s.dynamic?.kind === 'record-secrets').map((s) => s.dynamic);
    expect(creds).toEqual([
      {
        kind: 'record-secrets',
        scope: 'discovery',
        iqn: 'iqn.2024-01.lab.example:t1',
        portal: '10.0.0.1:3260',
        iface: 'default',
        keys: ['discovery.sendtargets.auth.password'],
      },
      {
        kind: 'record-secrets',
        scope: 'node',
        iqn: 'iqn.2024-01.lab.example:t1',
        portal: '10.0.0.1:3260',
        iface: 'default',
        keys: ['node.session.auth.username', 'node.session.auth.password'],
      },
    ]);
    const ids = plan.steps.map((s) => s.id);
    expect(ids.indexOf('session-credentials:10.0.0.1:3260')).toBe(
      ids.indexOf('session-authmethod:10.0.0.1:3260') + 1,
    );
    expect(ids.indexOf('session-credentials:10.0.0.1:3260')).toBeLessThan(ids.indexOf('login:10.0.0.1:3260'));
    expect(plan.steps.find((s) => s.id.startsWith('login:'))?.okExitCodes).toEqual([15]);
    expect(plan.steps.find((s) => s.id.startsWith('discover:'))?.onFailure?.[0]?.argv.join(' ')).toBe(
      `${d} -o delete`,
    );
    expect(plan.steps.find((s) => s.id === 'write-iscsi-json')?.fs?.data).toMatch(
      /^\{"VolName":"pv1".*\}\n$/,
    );
    expect(plan.warnings.join('\n')).toMatch(/no discovery.sendtargets.auth.username/);
    expect(plan.lockKeys).toEqual(['iqn.2024-01.lab.example:t1']);
  });

  it("LUN ≥ 256 scans and waits for the kernel's number (16684) and warns that kubelet cannot; hostname portals get resolved and warned", () => {
    const plan = planAttach(input({ lun: 300, portals: ['san-a.example.com'] }), emptySnapshot(), ctx());
    expect(plan.steps.find((s) => s.wait?.path)?.wait?.path).toBe(
      '/dev/disk/by-path/ip-san-a.example.com:3260-iscsi-iqn.2024-01.lab.example:t1-lun-0x412c000000000000',
    );
    expect(plan.steps.find((s) => s.id.startsWith('scan-lun:'))?.write?.data).toBe('0 0 16684');
    expect(plan.warnings.join('\n')).toMatch(/kubelet cannot attach LUN 300 itself: it scans "0 0 300"/);
    expect(plan.steps[0]!.argv).toEqual(['getent', 'hosts', 'san-a.example.com']);
    expect(plan.warnings.join('\n')).toMatch(/hostname/);
  });

  it('already logged-in portals skip the login; bad input is a UserError; read-only is refused', () => {
    const s = emptySnapshot();
    s.portalHostMap = { 'iqn.2024-01.lab.example:t1': { '10.0.0.1:3260': 4 } };
    const plan = planAttach(input(), s, ctx(false));
    expect(plan.steps.some((x) => x.id.startsWith('login:'))).toBe(false);
    expect(plan.steps.find((x) => x.id.startsWith('scan-lun:'))?.write).toEqual({
      path: '/sys/class/scsi_host/host4/scan',
      data: '0 0 1',
    });
    expect(plan.refusals.map((r) => r.id)).toEqual(['read-only']);
    expect(() => planAttach(input({ iqn: 'not-an-iqn' }), s, ctx())).toThrow(UserError);
    expect(() => planAttach(input({ portals: ['10.0.0.1:99999'] }), s, ctx())).toThrow(/invalid portal/);
    expect(() => planAttach(input({ volName: '../x' }), s, ctx())).toThrow(/invalid volume name/);
  });
});

describe('registry, combine, format', () => {
  it('has the eleven actions with unique keys and documented usage', () => {
    expect(ACTIONS.map((a) => a.id)).toEqual([
      'attach',
      'scan',
      'rescan',
      'unmount',
      'flush',
      'delete-device',
      'online',
      'logout',
      'forget',
      'cleanup',
      'restore',
    ]);
    expect(new Set(ACTIONS.map((a) => a.key)).size).toBe(ACTIONS.length);
    for (const a of ACTIONS) {
      expect(a.usage.startsWith(a.id)).toBe(true);
      expect(a.examples.length).toBeGreaterThan(0);
    }
    expect(() => findAction('nope')).toThrow(UserError);
  });

  it('combines plans: shared steps once, union of locks/expectations, typed confirmation names the node', () => {
    const step: PlanStep = {
      id: 'flush:dm-0',
      why: 'x',
      argv: ['multipath', '-f', '/dev/dm-0'],
      effect: { kind: 'flush-map', map: 'wwid-0' },
      preconditions: [],
    };
    const mk = (n: string): Plan => ({
      action: 'delete-device',
      title: 'Delete',
      subject: n,
      steps: [
        step,
        {
          id: `delete:${n}`,
          why: 'y',
          write: { path: `/sys/block/${n}/device/delete`, data: '1' },
          effect: { kind: 'remove-device', device: n, path: `/sys/block/${n}/device/delete` },
          preconditions: [],
        },
      ],
      refusals: [],
      warnings: [],
      blastRadius: { ...structuredClone(EMPTY_BLAST), devices: [n], maps: ['dm-0'] },
      risk: 'high',
      confirm: 'typed',
      confirmToken: n,
      undo: [],
      before: [n],
      lockKeys: [`iqn.x:${n}`],
      expect: [{ id: 'device-absent', text: n, subject: n }],
    });
    const c = combinePlans([mk('sdb'), mk('sdc')], 'node-a', NO_MAPS);
    expect(c.steps.map((s) => s.id)).toEqual(['1.flush:dm-0', '1.delete:sdb', '2.delete:sdc']);
    expect(c.confirmToken).toBe('node-a');
    expect(c.lockKeys).toEqual(['iqn.x:sdb', 'iqn.x:sdc']);
    expect(c.expect).toHaveLength(2);
    expect(c.blastRadius.maps).toEqual(['dm-0']);
    expect(c.parts).toHaveLength(2);
  });

  it('formats a plan with exact argv, refusals and hints', () => {
    const plan = planAttach(input(), emptySnapshot(), ctx(false));
    const text = formatPlan(plan);
    expect(text).toMatch(
      /REFUSED:\n {2}\[read-only\] read-only: changes to the node are not enabled\n {4}hint: add --write/,
    );
    expect(text).toContain(
      'iscsiadm -m node -p 10.0.0.1:3260 -T iqn.2024-01.lab.example:t1 -I default --login',
    );
    expect(text).toContain("echo '0 0 1' > /sys/class/scsi_host/host<N>/scan");
  });
});
