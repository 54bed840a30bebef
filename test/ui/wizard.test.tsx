/**
 * The step-by-step attach wizard through the real engine on the simulator, keys in and frames out,
 * at 80×24 and 160×45: portal → discovery → target (with session CHAP) → the LUNs the engine's
 * listing found (a temporary login, consented to, journaled, undone by its own plan) → volume →
 * the attach plan → apply. A wizard cancelled at any step leaves the node as it was.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveBackend } from '../../src/app/console-backend.js';
import { readJournal } from '../../src/engine/actions/journal-read.js';
import type { Snapshot } from '../../src/engine/model.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import type { SimHost } from '../../src/sim/index.js';
import type { UiStore } from '../../src/ui/view-store.js';
import { SECRET_MASK } from '../../src/ui/wizard/steps.js';
import { mountDemo, DEMO_STATE_DIR as STATE_DIR } from './helpers/demo.js';
import { KEY, type Tui } from './helpers/render-tui.js';

const KUBELET = '/var/lib/kubelet';
const P = '127.0.0.1:3260';
const SECURE = 'iqn.2026-01.lab.example:secure-volume';
const SECRET = 'labsecret123';
const GUARDED = '127.0.0.2:3260';
const GUARDED_IQN = 'iqn.2026-01.lab.example:guarded-volume';
const DSECRET = 'discsecret456';
const SIZES = [
  { columns: 80, rows: 24 },
  { columns: 160, rows: 45 },
];

interface Env {
  host: SimHost;
  backend: LiveBackend;
  ui: UiStore;
  t: Tui;
  close(): Promise<void>;
}
let env: Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function open(scenario: string, size: { columns: number; rows: number }, write = true): Promise<Env> {
  const d = await mountDemo({ scenario, write, ...size });
  return { host: d.host, backend: d.backend, ui: d.ui, t: d, close: d.close };
}

/** Everything a cancelled wizard must leave as it was. */
function nodeState(host: SimHost) {
  const s: Snapshot = takeSnapshot(host, { kubeletRoot: KUBELET });
  return {
    sessions: s.sessions.map((x) => `${x.key} sid ${x.sid} ${x.state}`),
    devices: s.sessions.flatMap((x) => x.devices.map((d) => `${d.key} ${d.name ?? d.hctl}`)),
    records: s.nodeRecords.map((r) => `${r.targetIqn}|${r.portal}|${r.iface}|${r.startup}|${r.scan}`),
    ifaces: s.ifaces.map((i) => i.name),
    volumes: s.kubelet.volumes.map((v) => `${v.path} ${v.mounted}`),
    mounts: s.mounts.map((m) => `${m.source} ${m.mountPoint}`),
  };
}

/** Moves the cursor down until the focused row contains `text`. */
async function focusOn(t: Tui, text: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if (
      t
        .lastFrame()
        .split('\n')
        .some((l) => l.includes('›') && l.includes(text) && !l.includes('›', l.indexOf(text)))
    )
      return;
    await t.press(KEY.down);
  }
  throw new Error(`no row with ${text} got the cursor; last frame:\n${t.lastFrame()}`);
}

/** Portal typed (the cursor is on it), discovery run, the cursor on the CHAP target. */
async function toSecureTarget(t: Tui): Promise<void> {
  await t.type(P);
  await t.press(KEY.enter);
  await t.waitFor('[2 Discovery]');
  await t.press(KEY.enter);
  await t.waitFor((f) => f.includes('[3 Target]') && f.includes('secure-volume'));
  await focusOn(t, 'secure-volume');
}

/** Portal, discovery, the CHAP target: up to its LUN listing plan. */
async function toListingPlan(t: Tui): Promise<void> {
  await t.press('a');
  await t.waitFor('[1 Portal]');
  await toSecureTarget(t);
  await t.press(' ');
  await t.waitFor(`target ${SECURE}`);
  await focusOn(t, 'Session CHAP');
  await t.press(' ', KEY.down);
  await t.type('labuser');
  await t.press(KEY.down);
  await t.type(SECRET);
  const f = await t.waitFor(SECRET_MASK);
  expect(f).not.toContain(SECRET);
  await t.press(KEY.enter);
  await t.waitFor((x) => x.includes('[4 LUN]') && x.includes('temporary login'));
}

describe.each(SIZES)('attach wizard on the simulator at $columns×$rows', (size) => {
  it('the empty node says how to attach; the wizard lists LUNs over CHAP, picks one and attaches it', async () => {
    env = await open('empty', size);
    const { t, host } = env;
    await t.waitFor('press a to attach a volume');
    await toListingPlan(t);
    let f = await scrollUntil(t, '-o new');
    expect(f).not.toContain(SECRET);
    await t.press('y');
    f = await t.waitFor((x) => x.includes('LUN 1') && x.includes('4.0G'));
    expect(f).toMatch(/› LUN 1 +disk/);
    // The listing logged its session out and deleted its record again.
    expect(nodeState(host).sessions).toEqual([]);
    expect(nodeState(host).records).toEqual([]);
    await t.press(KEY.enter);
    await t.waitFor('[5 Volume]');
    await t.press(KEY.enter);
    f = await t.waitFor('✗ required');
    expect(f).toMatch(/› Volume name/);
    await t.type('pv-wizard');
    await t.press(KEY.enter);
    // Format+mount is asked, never assumed: ⏎ moves to it with the question; space answers yes.
    await t.waitFor('Format+mount?');
    await t.press(' ', KEY.enter);
    f = await t.waitFor('Plan: Attach');
    expect(f).not.toContain(SECRET);
    await t.press('y');
    await t.waitFor('Attach volume succeeded', 30_000);
    const s = takeSnapshot(host, { kubeletRoot: KUBELET });
    const x = s.sessions.find((x) => x.targetIqn === SECURE)!;
    expect(x.devices.map((d) => d.lun)).toContain(1);
    const v = s.kubelet.volumes.find((v) => v.iqn === SECURE)!;
    expect(v.path).toContain(`${P}-${SECURE}-lun-1`);
    expect(v.mounted).toBe(true);
    const journal = readJournal(host, STATE_DIR);
    expect(journal.map((e) => `${e.action} ${e.phase} ${e.ok ?? ''}`)).toEqual([
      'list-luns begin ',
      'list-luns end true',
      'attach begin ',
      'attach end true',
    ]);
    expect(JSON.stringify(journal)).not.toContain(SECRET);
    await t.press(KEY.enter);
    await t.waitFor(/Session \d+ /);
  }, 60_000);

  it('cancelled after listing LUNs (esc back through every step) leaves the node as it was', async () => {
    env = await open('empty', size);
    const { t, host } = env;
    const before = nodeState(host);
    await toListingPlan(t);
    await t.press('y');
    await t.waitFor('4.0G');
    await t.press(KEY.enter);
    await t.waitFor('[5 Volume]');
    for (const step of ['[4 LUN]', '[3 Target]', '[2 Discovery]', '[1 Portal]']) {
      await t.press(KEY.escape);
      await t.waitFor(step);
    }
    await t.press(KEY.escape);
    await t.waitFor('press a to attach a volume');
    expect(nodeState(host)).toEqual(before);
  }, 60_000);
  it('discovery CHAP and session CHAP on a guarded portal: both listings are plans, then LUN 2 is attached', async () => {
    env = await open('empty', size);
    const { t, host } = env;
    const before = nodeState(host);
    await t.press('a');
    await t.waitFor('[1 Portal]');
    await t.type(GUARDED);
    await t.press(KEY.enter);
    await t.waitFor('[2 Discovery]');
    await t.press(' ', KEY.down);
    await t.type('discuser');
    await t.press(KEY.down);
    await t.type(DSECRET);
    await t.waitFor(SECRET_MASK);
    await t.press(KEY.enter);
    let f = await t.waitFor('temporary discovery record');
    expect(unwrap(await scrollUntil(t, '--discover -o nonpersistent'))).not.toContain(DSECRET);
    await t.press('y');
    f = await t.waitFor((x) => x.includes('[3 Target]') && x.includes('guarded-volume'));
    expect(nodeState(host)).toEqual(before);
    await t.press(' ');
    await focusOn(t, 'Session CHAP');
    await t.press(' ', KEY.down);
    await t.type('labuser');
    await t.press(KEY.down);
    await t.type(SECRET);
    await t.press(KEY.enter);
    await t.waitFor('temporary login');
    await t.press('y');
    await t.waitFor((x) => x.includes('LUN 2') && x.includes('2.0G'));
    await focusOn(t, 'LUN 2 ');
    await t.press(KEY.enter);
    await t.waitFor('[5 Volume]');
    await t.type('pv-guarded');
    await t.press(KEY.enter);
    // Format+mount is asked, never assumed: ⏎ moves to it with the question; space answers yes.
    await t.waitFor('Format+mount?');
    await t.press(' ', KEY.enter);
    f = await t.waitFor('Plan: Attach');
    expect(f).not.toContain(DSECRET);
    await t.press('y');
    await t.waitFor('Attach volume succeeded', 30_000);
    const s = takeSnapshot(host, { kubeletRoot: KUBELET });
    const x = s.sessions.find((x) => x.targetIqn === GUARDED_IQN)!;
    expect(x.devices.map((d) => d.lun)).toEqual([2]);
    expect(s.kubelet.volumes.find((v) => v.iqn === GUARDED_IQN)?.mounted).toBe(true);
    const journal = JSON.stringify(readJournal(host, STATE_DIR));
    expect(journal).not.toContain(DSECRET);
    expect(journal).not.toContain(SECRET);
  }, 60_000);
});

describe('attach wizard: a target the node uses already, and required fields', () => {
  it('pre-filled from the selected session: its LUNs are listed from the node, in use, nothing logged out', async () => {
    env = await open('healthy', { columns: 160, rows: 45 });
    const { t, host, backend } = env;
    const before = nodeState(host);
    const x = backend.store
      .getState()
      .snapshot!.sessions.find((s) => s.devices.some((d) => d.mountpoints.length))!;
    await t.waitFor(x.targetIqn.split(':')[1]!);
    await t.press('/');
    await t.type(x.targetIqn.split(':')[1]!);
    await t.press(KEY.enter);
    await t.press('a');
    let f = await t.waitFor('pre-filled from the selected session');
    expect(f).toContain(x.portal);
    await t.press(KEY.enter);
    await t.waitFor('[2 Discovery]');
    await t.press(KEY.enter);
    await t.waitFor('[3 Target]');
    await t.press(KEY.enter);
    f = await t.waitFor('[4 LUN]');
    expect(f).toContain('logged in to this target already');
    expect(f).toMatch(/in use: session \d+ \S+ \(mounted on/);
    expect(nodeState(host)).toEqual(before);
    expect(readJournal(host, STATE_DIR)).toEqual([]);
  }, 60_000);

  it('a bad field moves the cursor to it; at 80×24 the listing plan wraps instead of cutting commands', async () => {
    env = await open('empty', { columns: 80, rows: 24 });
    const { t } = env;
    await t.press('a');
    await t.waitFor('[1 Portal]');
    await t.press(KEY.down, KEY.down);
    await t.press(KEY.enter);
    let f = await t.waitFor('✗ required');
    expect(f).toMatch(/› Target portal +█? +✗ required/);
    await t.type('10.0.0.5:99999x');
    await t.waitFor('✗ a portal');
    for (let i = 0; i < 15; i++) await t.press(KEY.backspace);
    await toListingPlanFromPortal(t);
    // Every line fits 80 columns and the login command is there whole, across wrapped lines.
    f = await scrollUntil(t, '--login');
    expect(f.split('\n').every((l) => l.length <= 80)).toBe(true);
    expect(unwrap(f)).toContain(`iscsiadm -m node -p ${P} -T ${SECURE} -I iscsi-console-luns --login`);
  }, 60_000);
});

/** The frame's text with the box drawn around it and the wrapping undone. */
function unwrap(f: string): string {
  return (
    f
      .split('\n')
      .map((l) => l.replace(/^│ ?/, '').replace(/ *│$/, '').trim())
      .join(' ')
      // A wrapped command's lines end in the shell's continuation (ui/dialogs/wrap-lines.ts).
      .replace(/ \\ /g, ' ')
  );
}

/** Scrolls the listing plan down until `text` is on screen. */
async function scrollUntil(t: Tui, text: string): Promise<string> {
  for (let i = 0; i < 60; i++) {
    if (unwrap(t.lastFrame()).includes(text)) return t.lastFrame();
    await t.press(KEY.down);
  }
  throw new Error(`${text} never came into view; last frame:\n${t.lastFrame()}`);
}

/** From an empty portal field that has the cursor. */
async function toListingPlanFromPortal(t: Tui): Promise<void> {
  await toSecureTarget(t);
  await t.press(KEY.enter);
  await t.waitFor((x) => x.includes('[4 LUN]') && x.includes('temporary login'));
}

describe('attach wizard: read-only, and a manifest', () => {
  it('read-only: nothing is asked of the node; the IQN and LUN are typed and the plan is refused', async () => {
    env = await open('empty', { columns: 80, rows: 24 }, false);
    const { t, host } = env;
    const before = nodeState(host);
    await t.press('a');
    await t.waitFor('[1 Portal]');
    await t.type(P);
    await t.press(KEY.enter);
    await t.waitFor('[2 Discovery]');
    await t.press(KEY.enter);
    let f = await t.waitFor('[3 Target]');
    expect(f).toContain('READ-ONLY');
    expect(f).toMatch(/› Target IQN/);
    await t.type('iqn.2026-01.lab.example:storage.target1');
    await t.press(KEY.enter);
    f = await t.waitFor('temporary login');
    await t.press('y');
    f = await t.waitFor('refused:');
    await t.press('m');
    f = await t.waitFor(/› LUN/);
    await t.press(KEY.enter);
    f = await t.waitFor(/› LUN +█? *✗/);
    await t.type('1');
    await t.press(KEY.enter);
    await t.waitFor('[5 Volume]');
    await t.type('pv-ro');
    await t.press(KEY.enter);
    // Format+mount is asked, never assumed: ⏎ moves to it with the question; space answers yes.
    await t.waitFor('Format+mount?');
    await t.press(' ', KEY.enter);
    f = await t.waitFor('Plan: Attach');
    expect(f).toMatch(/\[read-only/);
    expect(nodeState(host)).toEqual(before);
    expect(readJournal(host, STATE_DIR)).toEqual([]);
    // Esc on the plan goes back to the wizard's last step, values kept.
    await t.press(KEY.escape);
    f = await t.waitFor('[5 Volume]');
    expect(f).toContain('pv-ro');
  }, 60_000);

  it('ctrl-l fills every step from a Pod manifest and its Secret', async () => {
    env = await open('empty', { columns: 160, rows: 45 });
    const { t } = env;
    const dir = mkdtempSync(join(tmpdir(), 'ic-wizard-manifest-'));
    const pod = join(dir, 'pod.yaml');
    const secret = join(dir, 'secret.yaml');
    writeFileSync(
      pod,
      `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: busybox}]
  volumes:
  - name: data
    iscsi: {targetPortal: "${P}", iqn: "${SECURE}", lun: 1, fsType: xfs, chapAuthSession: true, secretRef: {name: chap}}
`,
    );
    const b64 = (v: string) => Buffer.from(v).toString('base64');
    writeFileSync(
      secret,
      `apiVersion: v1
kind: Secret
metadata: {name: chap, namespace: default}
type: kubernetes.io/iscsi-chap
data:
  node.session.auth.username: ${b64('labuser')}
  node.session.auth.password: ${b64(SECRET)}
`,
    );
    try {
      await t.press('a');
      await t.waitFor('[1 Portal]');
      await focusOn(t, 'Manifest file');
      await t.type(pod);
      await t.press(KEY.down);
      await t.type(secret);
      await t.press('\x0c');
      let f = await t.waitFor(`loaded ${pod}`);
      expect(f).toMatch(new RegExp(`Target portal +${P.replace(/\./g, '\\.')}`));
      await t.press(KEY.enter);
      await t.waitFor('[2 Discovery]');
      await t.press(KEY.enter);
      f = await t.waitFor('[3 Target]');
      // The cursor starts on the manifest's target; its CHAP came from the Secret, masked.
      expect(f).toMatch(/› iqn\.2026-01\.lab\.example:secure-volume/);
      expect(f).toContain(SECRET_MASK);
      expect(f).not.toContain(SECRET);
      await t.press(KEY.enter);
      await t.waitFor('temporary login');
      await t.press('y');
      f = await t.waitFor((x) => x.includes('4.0G'));
      expect(f).toMatch(/› LUN 1 +disk/);
      await t.press(KEY.enter);
      f = await t.waitFor('[5 Volume]');
      expect(f).toMatch(/Volume name +data/);
      expect(f).toMatch(/fsType +xfs/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
