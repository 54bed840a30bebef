import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildBundle, type Manifest } from '../../src/engine/bundle/index.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import { FixtureNode, SECRET, TARGET } from '../doctor/fixture-node.js';
import { captureOutput } from '../helpers/capture-output.js';

/** One distinct secret per place a CHAP user or secret can live on a node. */
const SECRETS = {
  recordUser: 'rec-user-7f3a1',
  recordPass: 'rec-pass-Q9x2LmZ',
  recordUserIn: 'rec-user-in-5k2',
  recordPassIn: 'rec-pass-in-W8v',
  discoveryUser: 'disc-user-3j9',
  discoveryPass: 'disc-pass-H4n7',
  confPass: 'conf-pass-Z1a9',
  confDiscoveryPass: 'conf-disc-pass-P0q',
  commentedConfPass: 'commented-pass-K5',
  connectorUser: 'conn-user-L2m',
  connectorPass: 'conn-pass-"quoted\\x',
  connectorDiscoveryPass: 'conn-disc-pass-R7',
  tridentUser: 'trident-user-V6',
  tridentInitiatorSecret: 'trident-init-secret-B3',
  tridentTargetSecret: 'trident-target-secret-N8',
  kubeletChap: 'kubelet-chap-T4',
  journalLeak: 'rec-pass-Q9x2LmZ', // a record's secret that also appears in a journal line
  notJson: 'not-json-secret-Y2',
  fixtureRecord: SECRET,
} as const;

let node: FixtureNode;
let out: string;
beforeEach(() => {
  node = new FixtureNode();
  out = mkdtempSync(join(tmpdir(), 'bundle-out-'));
  node.nodeRecord(TARGET, '10.0.0.5,3260,1', {
    'node.tpgt': '1',
    'node.startup': 'manual',
    'node.session.auth.authmethod': 'CHAP',
    'node.session.auth.username': SECRETS.recordUser,
    'node.session.auth.password': SECRETS.recordPass,
    'node.session.auth.username_in': SECRETS.recordUserIn,
    'node.session.auth.password_in': SECRETS.recordPassIn,
  });
  node.write(
    '/etc/iscsi/send_targets/10.0.0.5,3260/st_config',
    `# BEGIN RECORD 2.1.8\ndiscovery.startup = manual\ndiscovery.type = sendtargets\ndiscovery.sendtargets.address = 10.0.0.5\ndiscovery.sendtargets.auth.authmethod = CHAP\ndiscovery.sendtargets.auth.username = ${SECRETS.discoveryUser}\ndiscovery.sendtargets.auth.password = ${SECRETS.discoveryPass}\n# END RECORD\n`,
  );
  node.write(
    '/etc/iscsi/iscsid.conf',
    `node.startup = manual\nnode.session.auth.password = ${SECRETS.confPass}\ndiscovery.sendtargets.auth.password=${SECRETS.confDiscoveryPass}\n#node.session.auth.password_in = ${SECRETS.commentedConfPass}\n`,
  );
  node.write(
    '/run/iscsi.csi.k8s.io/pv-a.json',
    JSON.stringify({
      volume_name: 'pv-a',
      target_iqn: TARGET,
      target_portal: ['10.0.0.5:3260'],
      session_secrets: { userName: SECRETS.connectorUser, password: SECRETS.connectorPass },
      discovery_secrets: { userName: '', password: SECRETS.connectorDiscoveryPass },
    }),
  );
  node.write('/run/iscsi.csi.k8s.io/broken.json', `{"session_secrets": {"password": "${SECRETS.notJson}"`);
  node.write(
    '/var/lib/trident/tracking/pvc-1.json',
    JSON.stringify({
      publishedTargetPaths: {},
      volumePublishInfo: {
        iscsiTargetIqn: TARGET,
        IscsiChapInfo: {
          useCHAP: true,
          IscsiUsername: SECRETS.tridentUser,
          IscsiInitiatorSecret: SECRETS.tridentInitiatorSecret,
          IscsiTargetUsername: SECRETS.tridentUser,
          IscsiTargetSecret: SECRETS.tridentTargetSecret,
        },
      },
    }),
  );
  node.write(
    `/var/lib/kubelet/plugins/kubernetes.io/iscsi/iface-default/10.0.0.5:3260-${TARGET}-lun-1/iscsi.json`,
    JSON.stringify({
      Portals: ['10.0.0.5:3260'],
      Iqn: TARGET,
      Lun: '1',
      Iface: 'default',
      chapSecret: SECRETS.kubeletChap,
    }),
  );
  node.write(
    '/var/log/iscsi-console/journal.jsonl',
    `{"note":"an entry that quotes ${SECRETS.journalLeak} (never written by the console; the bundle must still mask it)"}\n`,
  );
});
afterEach(() => {
  node.cleanup();
  rmSync(out, { recursive: true, force: true });
});

function extract(file: string): string {
  const dir = mkdtempSync(join(out, 'x-'));
  execFileSync('tar', ['-xzf', file, '-C', dir]);
  const [top] = readdirSync(dir);
  return join(dir, top!);
}

describe('iscsi-console bundle on a --root tree', () => {
  it('no planted secret in the archive, compressed or not; every manifest entry present; what was left out says why', async () => {
    const file = join(out, 'case.tar.gz');
    const o = captureOutput();
    const code = await main(['bundle', '--root', node.root, '--output', file], o);
    expect(o.err).toBe('');
    expect(code).toBe(0);
    expect(o.out).toMatch(/^\/.*case\.tar\.gz: \d+ files, \d+ bytes; \d+ not read \(see manifest\.json\)\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const gz = readFileSync(file);
    const tar = gunzipSync(gz);
    for (const [where, secret] of Object.entries(SECRETS)) {
      for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
        expect(gz.includes(form), `${where} in the compressed archive`).toBe(false);
        expect(tar.includes(form), `${where} in the archive`).toBe(false);
      }
    }
    const top = extract(file);
    const manifest = JSON.parse(readFileSync(join(top, 'manifest.json'), 'utf8')) as Manifest;
    for (const e of manifest.entries) {
      expect(existsSync(join(top, e.path)), e.path).toBe(true);
      expect(statSync(join(top, e.path)).size).toBe(e.bytes);
    }
    const paths = manifest.entries.map((e) => e.path);
    for (const p of [
      'status.json',
      'doctor.json',
      'journal.jsonl',
      'files/etc/iscsi/iscsid.conf',
      'files/etc/iscsi/initiatorname.iscsi',
      `files/etc/iscsi/nodes/${TARGET}/10.0.0.5,3260,1/default`,
      'files/etc/iscsi/send_targets/10.0.0.5,3260/st_config',
      'files/run/iscsi.csi.k8s.io/pv-a.json',
      'files/var/lib/trident/tracking/pvc-1.json',
    ])
      expect(paths).toContain(p);
    const masked = Object.fromEntries(manifest.entries.map((e) => [e.path, e.masked]));
    expect(masked[`files/etc/iscsi/nodes/${TARGET}/10.0.0.5,3260,1/default`]).toBe(4);
    expect(masked['files/etc/iscsi/iscsid.conf']).toBe(3);
    expect(masked['journal.jsonl']).toBe(1);
    const record = readFileSync(join(top, `files/etc/iscsi/nodes/${TARGET}/10.0.0.5,3260,1/default`), 'utf8');
    expect(record).toContain('node.session.auth.password = ********\n');
    expect(record).toContain('node.session.auth.authmethod = CHAP\n');
    expect(manifest.missing).toContainEqual({
      source: '/run/iscsi.csi.k8s.io/broken.json',
      why: 'not JSON: left out (where a secret sits in it cannot be told)',
    });
    expect(manifest.missing).toContainEqual({
      source: 'iscsiadm -m session -P 3',
      why: 'a --root tree with --exec direct: commands would run on this machine, not the node',
    });
    expect(manifest.caps).toEqual({ fileBytes: 8 * 1024 * 1024, totalBytes: 64 * 1024 * 1024 });
  });

  it('an existing --output file is not replaced (exit 2, file unchanged, no temp file left)', async () => {
    const file = join(out, 'exists.tar.gz');
    writeFileSync(file, 'mine');
    const o = captureOutput();
    const code = await main(['bundle', '--root', node.root, '--output', file], o);
    expect(code).toBe(2);
    expect(o.err).toContain('it exists already (not replaced)');
    expect(readFileSync(file, 'utf8')).toBe('mine');
    expect(readdirSync(out)).toEqual(['exists.tar.gz']);
  });

  it('caps: a member over the per-file cap is cut (the journal keeps its end), past the total cap files are left out — the manifest says which', async () => {
    node.write('/var/log/iscsi-console/journal.jsonl', `${'x'.repeat(5000)}END\n`);
    const host = new FsHost({ root: node.root, runner: { mode: 'direct' }, hostname: 'fixture-node' });
    const b = await buildBundle(host, {
      kubeletRoot: '/var/lib/kubelet',
      exec: 'direct',
      stateDir: '/var/log/iscsi-console',
      top: 'b',
      fileCap: 1000,
      totalCap: 4000,
    });
    const journal = b.manifest.entries.find((e) => e.path === 'journal.jsonl');
    expect(journal).toMatchObject({ bytes: 1000, truncated: true });
    const tar = gunzipSync(b.archive);
    expect(tar.includes('END\n')).toBe(true);
    expect(b.manifest.missing.some((m) => m.why === 'left out: the bundle reached its 4000 byte cap')).toBe(
      true,
    );
    expect(b.manifest.entries.reduce((n, e) => n + e.bytes, 0)).toBeLessThanOrEqual(4000);
  });
});

describe('iscsi-console bundle --demo', () => {
  it('the simulated node: commands answered by the simulator, every manifest entry present, default name in the current directory', async () => {
    const cwd = process.cwd();
    process.chdir(out);
    try {
      const o = captureOutput();
      const code = await main(['bundle', '--demo', 'incident'], o);
      expect(code).toBe(0);
      const [file] = readdirSync(out).filter((f) => f.endsWith('.tar.gz'));
      expect(file).toMatch(/^iscsi-console-bundle-[A-Za-z0-9._-]+-\d{8}T\d{6}Z\.tar\.gz$/);
      const top = extract(join(out, file!));
      const manifest = JSON.parse(readFileSync(join(top, 'manifest.json'), 'utf8')) as Manifest;
      for (const e of manifest.entries) expect(existsSync(join(top, e.path)), e.path).toBe(true);
      const paths = manifest.entries.map((e) => e.path);
      expect(paths).toContain('commands/iscsiadm-m-session-P3.txt');
      expect(paths).toContain('commands/multipathd-show-maps-json.txt');
      expect(paths.some((p) => p.startsWith('udev/b'))).toBe(true);
      expect(manifest.host.kind).toBe('sim');
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('scrubbing iscsiadm -m session -P 3 (the real capture, with CHAP users set)', () => {
  it('usernames masked, passwords stay masked as iscsiadm prints them, <empty> kept', async () => {
    const { Scrubber } = await import('../../src/engine/bundle/scrub.js');
    const capture = readFileSync(join(process.cwd(), 'test/fixtures/captures/single-session-P3.txt'), 'utf8');
    const withUsers = capture
      .replace(/username: <empty>/, 'username: alice-chap-user')
      .replace(/username_in: <empty>/, 'username_in: target-chap-user');
    expect(withUsers).toContain('alice-chap-user');
    const s = new Scrubber();
    const r = s.sessionDetail(withUsers);
    expect(r.masked).toBe(2);
    expect(r.text).not.toContain('alice-chap-user');
    expect(r.text).not.toContain('target-chap-user');
    expect(r.text).toContain('\t\tusername: ********\n');
    expect(r.text).toContain('\t\tpassword: ********\n');
    expect(s.everywhere('journal: alice-chap-user logged in').text).toBe('journal: ******** logged in');
  });
});

describe("scrubbing open-iscsi's shipped iscsid.conf (test/fixtures/iscsid-conf)", () => {
  it('its commented-out placeholders are masked there and leave every key name elsewhere intact', async () => {
    const { Scrubber } = await import('../../src/engine/bundle/scrub.js');
    const text = readFileSync(join(process.cwd(), 'test/fixtures/iscsid-conf/iscsid.conf'), 'utf8');
    const s = new Scrubber();
    const r = s.records(text);
    expect(r.masked).toBe(8);
    expect(r.text).toContain('#node.session.auth.password = ********\n');
    expect(r.text).toContain('#discovery.sendtargets.auth.username_in = ********\n');
    const record = 'node.session.auth.username = ********\nnode.session.auth.password = ********\n';
    expect(s.everywhere(record).text).toBe(record);
  });
});
