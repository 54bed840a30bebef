/**
 * Strict names on every attach input path — flags, Pod/PV manifests, Secrets, the wizard — and the
 * path-containment guard behind them: a bad name is a clear usage error (exit 2) with nothing
 * planned; a plan whose kubelet paths would leave the plugin dir is refused.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { applyPlan } from '../../src/engine/actions/apply.js';
import { planAttach } from '../../src/engine/actions/attach.js';
import { attachInputProblems, validateAttachInput } from '../../src/engine/actions/attach-input.js';
import type { AttachInput } from '../../src/engine/actions/attach-types.js';
import { refuseEscapingPaths } from '../../src/engine/actions/path-guard.js';
import { UserError } from '../../src/engine/errors.js';
import { ifaceNameProblem, iscsiNameProblem } from '../../src/engine/iscsi/names.js';
import { portalProblem } from '../../src/engine/iscsi/portal.js';
import { pluginPathProblem } from '../../src/engine/kubelet/paths.js';
import { validateWizard } from '../../src/ui/wizard/wizard-state.js';
import { captureOutput } from '../helpers/capture-output.js';
import { attachInput, KUBELET_ROOT, simEnv } from './helpers.js';

const dir = fs.mkdtempSync(join(tmpdir(), 'input-names-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes a manifest (JSON is YAML) into the test dir; returns its path. */
function manifest(name: string, doc: object): string {
  const path = join(dir, name);
  fs.writeFileSync(path, JSON.stringify(doc));
  return path;
}

const GOOD = 'iqn.2026-01.lab.example:data';
const TRAVERSAL = 'iqn.2026-01.lab.example:x/../../../../etc/evil';
/** Names that must never build a path or an argv: `/`, `..`, spaces, controls, 300 bytes. */
const BAD_IQNS: [string, RegExp][] = [
  [TRAVERSAL, /no '\/'/],
  ['iqn.2026-01.lab.example:a..b', /no '\.\.'/],
  ['iqn.2026-01.lab.example:with space', /whitespace/],
  ['iqn.2026-01.lab.example:x\x1b]0;t\x07', /control/],
  ['iqn.2026-01.lab.example:x\nforged', /control/],
  ['iqn.2026-01.lab.example:x\u202Eevil', /control or format/],
  ['iqn.2026-01.lab.example:under_score', /letters, digits/],
  [`iqn.2026-01.lab.example:${'a'.repeat(300 - 24)}`, /at most 223 bytes/],
];

const input = (o: Partial<AttachInput> = {}) => attachInput({ iqn: GOOD, portals: ['10.0.0.10:3260'], ...o });

describe('strict iSCSI names', () => {
  it('accepts the RFC 3720 forms (upper case folds) and refuses the rest with a reason', () => {
    for (const ok of [
      GOOD,
      'iqn.1993-08.org.debian:01:labguest0001',
      'iqn.2000-01.com.synology:DS918.Target-1.abc',
      'eui.02004567A425678D',
      'naa.60000000000000000e00000000010001',
      `iqn.2026-01.lab.example:${'a'.repeat(223 - 24)}`,
    ])
      expect(iscsiNameProblem(ok), ok).toBeUndefined();
    for (const [bad, why] of BAD_IQNS) expect(iscsiNameProblem(bad), JSON.stringify(bad)).toMatch(why);
  });

  it('portals: IPv4, IPv6 bracketed, hostnames, port 1-65535, nothing else', () => {
    for (const ok of ['10.0.0.1', '10.0.0.1:3260', '[fd00::1]:3260', 'fd00::1', 'san-a.example.com:3261'])
      expect(portalProblem(ok), ok).toBeUndefined();
    expect(portalProblem('10.0.0.1:0')).toMatch(/1-65535/);
    expect(portalProblem('10.0.0.1:65536')).toMatch(/1-65535/);
    expect(portalProblem('[fd00::1]:70000')).toMatch(/1-65535/);
    expect(portalProblem('10.0.0.1:3260,1')).toMatch(/no ,TPGT/);
    expect(portalProblem('[:::::]:3260')).toMatch(/not an IPv6/);
    for (const bad of ['a/b:3260', '../x', '10.0.0.1 :3260', 'host\x1b:3260', ''])
      expect(portalProblem(bad), bad).toBeDefined();
  });

  it('iface names: 1-64 characters of open-iscsi’s set, no "/" or ".."', () => {
    expect(ifaceNameProblem('default')).toBeUndefined();
    expect(ifaceNameProblem('10.0.0.1:3260:pv-a')).toBeUndefined();
    expect(ifaceNameProblem('[fd00::1]:3260:pv-a')).toBeUndefined();
    for (const bad of ['../x', 'a/b', 'a..b', 'x'.repeat(65), '', 'a b', '-x'])
      expect(ifaceNameProblem(bad), bad).toBeDefined();
  });
});

describe('every attach input path refuses bad names (exit 2, nothing planned)', () => {
  it('attach --iqn with a path traversal → exit 2, a clear error, no plan', async () => {
    const c = captureOutput();
    const argv = ['attach', '--demo', 'empty', '--portal', '127.0.0.1:3260', '--iqn', TRAVERSAL];
    expect(await main([...argv, '--lun', '1', '--volume-name', 'pv1', '--dry-run'], c)).toBe(2);
    expect(c.out).toBe('');
    expect(c.err).toContain(`invalid target name "${TRAVERSAL}": an iSCSI name contains no '/'`);
    expect(c.err).toMatch(/^hint: /m);
    expect(c.err).not.toMatch(/mkdir|iscsi\.json|etc\/evil-lun/);
  });

  it('flags: every bad IQN, initiator name, portal, iface and LUN', async () => {
    const base = ['attach', '--demo', 'empty', '--dry-run', '--volume-name', 'pv1', '--lun', '1'];
    const cases: string[][] = [
      ...BAD_IQNS.map(([iqn]) => ['--portal', '127.0.0.1:3260', '--iqn', iqn]),
      ...BAD_IQNS.map(([iqn]) => ['--portal', '127.0.0.1:3260', '--iqn', GOOD, '--initiator-name', iqn]),
      ['--portal', '127.0.0.1:99999', '--iqn', GOOD],
      ['--portal', 'a/b', '--iqn', GOOD],
      ['--portal', '127.0.0.1:3260', '--iqn', GOOD, '--iface', '../../etc'],
      ['--portal', '127.0.0.1:3260', '--iqn', GOOD, '--mount-option', 'ro\nx'],
    ];
    for (const extra of cases) {
      const c = captureOutput();
      expect(await main([...base, ...extra], c), extra.join(' ')).toBe(2);
      expect(c.out).toBe('');
      expect(c.err).toMatch(/^iscsi-console: invalid /);
    }
    const lun = captureOutput();
    expect(
      await main(
        [
          'attach',
          '--demo',
          'empty',
          '--dry-run',
          '--portal',
          '127.0.0.1:3260',
          '--iqn',
          GOOD,
          '--lun',
          '16384',
          '--volume-name',
          'v',
        ],
        lun,
      ),
    ).toBe(2);
  });

  it('manifests: a PV or Pod with a bad IQN is refused by the reader, naming the file', async () => {
    for (const [iqn] of BAD_IQNS) {
      const pv = manifest('pv.yaml', {
        kind: 'PersistentVolume',
        metadata: { name: 'pv-x' },
        spec: { iscsi: { targetPortal: '127.0.0.1:3260', iqn, lun: 1 } },
      });
      const c = captureOutput();
      expect(await main(['attach', '--demo', 'empty', '--manifest', pv, '--dry-run'], c), iqn).toBe(2);
      expect(c.out).toBe('');
      expect(c.err).toContain(`${pv}: invalid target name`);
      const pod = manifest('pod.yaml', {
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { volumes: [{ name: 'v', iscsi: { targetPortal: '127.0.0.1:3260', iqn, lun: 0 } }] },
      });
      const p = captureOutput();
      expect(await main(['attach', '--demo', 'empty', '--manifest', pod, '--dry-run'], p)).toBe(2);
    }
  });

  it('Secrets: a CHAP value with a control character or over 255 bytes is refused, the value never shown', async () => {
    const pv = manifest('pv-chap.yaml', {
      kind: 'PersistentVolume',
      metadata: { name: 'pv-c' },
      spec: { iscsi: { targetPortal: '127.0.0.1:3260', iqn: GOOD, lun: 1, chapAuthSession: true } },
    });
    for (const value of ['pass\nnode.startup = automatic', 'x'.repeat(256)]) {
      const secret = manifest('secret.yaml', {
        kind: 'Secret',
        metadata: { name: 's' },
        stringData: { 'node.session.auth.username': 'u', 'node.session.auth.password': value },
      });
      const c = captureOutput();
      expect(
        await main(['attach', '--demo', 'empty', '--manifest', pv, '--secret', secret, '--dry-run'], c),
      ).toBe(2);
      expect(c.err).toContain('node.session.auth.password');
      expect(c.err).not.toContain(value.slice(0, 8));
    }
  });

  it('the wizard shows the engine’s reasons inline and its planner refuses the same names', async () => {
    const ok = { volName: 'pv-a', targetPortal: '10.0.0.5', iqn: GOOD, lun: '1', mount: 'true' };
    expect(validateWizard(ok)).toEqual({});
    for (const [iqn, why] of BAD_IQNS) {
      expect(validateWizard({ ...ok, iqn }).iqn, iqn).toMatch(why);
      expect(validateWizard({ ...ok, initiatorName: iqn }).initiatorName).toMatch(why);
    }
    expect(validateWizard({ ...ok, iscsiInterface: '../x' }).iscsiInterface).toBeDefined();
    expect(
      validateWizard({ ...ok, chapAuthSession: 'true', sessionUser: 'u', sessionSecret: 'a\x1bb' })
        .sessionUser,
    ).toMatch(/control character/);
    // The console's planAttach (live backend) is the engine's: it throws before planning anything.
    const env = await simEnv('empty');
    try {
      for (const [iqn] of BAD_IQNS)
        expect(() => planAttach(input({ iqn }), env.snap(), env.ctx)).toThrow(UserError);
    } finally {
      await env.close();
    }
  });

  it('attachInputProblems names every bad field; validateAttachInput throws the first', () => {
    const p = attachInputProblems(
      input({ iqn: TRAVERSAL, portals: ['x/y'], initIface: '../i', volName: '..', fsType: 'EXT4;' }),
    );
    expect(Object.keys(p).sort()).toEqual(['fsType', 'initIface', 'iqn', 'portals', 'volName']);
    expect(() => validateAttachInput(input({ iqn: TRAVERSAL }), 'pv.yaml')).toThrow(
      /^pv\.yaml: invalid target name/,
    );
  });
});

describe('kubelet path containment (second line of defence)', () => {
  const PLUGIN = `${KUBELET_ROOT}/plugins/kubernetes.io/iscsi`;

  it('pluginPathProblem: normalised, absolute, strictly inside the plugin dir', () => {
    expect(
      pluginPathProblem(KUBELET_ROOT, `${PLUGIN}/iface-default/10.0.0.1:3260-${GOOD}-lun-1`),
    ).toBeUndefined();
    expect(
      pluginPathProblem(KUBELET_ROOT, `${PLUGIN}/volumeDevices/iface-default/x-lun-1/iscsi.json`),
    ).toBeUndefined();
    expect(
      pluginPathProblem(KUBELET_ROOT, `${PLUGIN}/iface-default/x/${'../'.repeat(10)}etc/evil-lun-1`),
    ).toMatch(/'\.\.' component \(normalised: \/etc\/evil-lun-1\)/);
    expect(pluginPathProblem(KUBELET_ROOT, `${PLUGIN}//x`)).toMatch(/empty/);
    expect(pluginPathProblem(KUBELET_ROOT, '/etc/evil')).toMatch(/not inside the kubelet plugin dir/);
    expect(pluginPathProblem(KUBELET_ROOT, PLUGIN)).toMatch(/not inside/);
    expect(pluginPathProblem(KUBELET_ROOT, 'relative/x')).toMatch(/not an absolute path/);
  });

  it('a plan whose kubelet paths would escape is refused (not overridable) and apply changes nothing', async () => {
    const env = await simEnv('empty');
    try {
      const good = planAttach(input({ portals: ['127.0.0.1:3260'] }), env.snap(), env.ctx);
      expect(good.refusals.map((r) => r.id)).not.toContain('path-escape');
      // As if a name with "/.." had slipped past the input check: the guard still catches it.
      const outside = (p: string) => p.replace(/-lun-1$/, `/${'../'.repeat(10)}etc/evil-lun-1`);
      const bad = structuredClone(good);
      bad.refusals = [];
      for (const s of bad.steps) {
        if (s.fs)
          s.fs.path = s.fs.path.endsWith('iscsi.json')
            ? `${outside(s.fs.path.slice(0, -11))}/iscsi.json`
            : outside(s.fs.path);
        if (s.dynamic?.kind === 'format-and-mount') s.dynamic.target = outside(s.dynamic.target);
      }
      refuseEscapingPaths(bad, { host: env.host, kubeletRoot: KUBELET_ROOT });
      const refusals = bad.refusals.filter((r) => r.id === 'path-escape');
      expect(refusals.length).toBeGreaterThan(0);
      expect(refusals.every((r) => !r.overridable)).toBe(true);
      expect(refusals[0]!.reason).toMatch(/outside the kubelet plugin dir: .*normalised: \/etc\/evil-lun-1/);
      const before = env.host.readDir('/etc');
      const result = await applyPlan(bad, env.ctx, { force: true });
      expect(result.ok).toBe(false);
      expect(result.error?.exitCode).toBe(3);
      expect(result.steps.every((s) => s.status === 'skipped')).toBe(true);
      expect(env.host.readDir('/etc')).toEqual(before);
    } finally {
      await env.close();
    }
  });

  it('a --kubelet-root that is not normalised makes attach refuse with the reason (dry run exit 3)', async () => {
    const c = captureOutput();
    const argv = ['attach', '--demo', 'empty', '--kubelet-root', '/var/lib/kubelet/../../../etc', '--write'];
    const code = await main(
      [...argv, '--portal', '127.0.0.1:3260', '--iqn', GOOD, '--lun', '1', '--volume-name', 'v', '--dry-run'],
      c,
    );
    expect(code).toBe(3);
    expect(c.out).toMatch(/\[path-escape\] refusing to touch a path outside the kubelet plugin dir/);
  });
});
