/**
 * CSI node plugins recognised from /proc on --root trees (docs/csi-drivers.md "Node-plugin processes"):
 * Trident's `trident_orchestrator --csi_role=node`, Longhorn's `longhorn-manager -d csi`, democratic-csi's
 * `node bin/democratic-csi --csi-mode=node`, csi-driver-iscsi's `iscsiplugin` — and not their controllers
 * or other subcommands. The argv is never shown (it may hold secrets).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/engine/doctor/index.js';
import { takeSnapshot } from '../../src/engine/snapshot/index.js';
import { FixtureRoot, KROOT } from '../snapshot/fixture-root.js';

const fixtures: FixtureRoot[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const TRIDENT = 'csi.trident.netapp.io';
const LONGHORN = 'driver.longhorn.io';
const DEMOCRATIC = 'org.democratic-csi.iscsi';
const ISCSI = 'iscsi.csi.k8s.io';
const ARG_SECRET = '--password=hunter2-argv';

function node(...drivers: string[]): FixtureRoot {
  const f = new FixtureRoot('single-sysfs.json');
  fixtures.push(f);
  for (const d of drivers) f.write(`${KROOT}/plugins_registry/${d}-reg.sock`, '');
  return f;
}

/** A process as the kernel shows it: comm truncated to 15 characters, argv NUL-separated. */
function proc(f: FixtureRoot, pid: number, comm: string, argv: string[]): void {
  f.write(`/proc/${pid}/comm`, `${comm.slice(0, 15)}\n`);
  f.write(`/proc/${pid}/cmdline`, `${argv.join('\0')}\0`);
}

const drivers = (f: FixtureRoot) =>
  Object.fromEntries(
    takeSnapshot(f.host(), { kubeletRoot: KROOT }).csi!.drivers.map((d) => [
      d.name,
      [d.running, d.processes.join(', ')],
    ]),
  );

describe('node-plugin processes', () => {
  it('each driver’s node plugin as its manifests start it → running, named by fixed text', () => {
    const f = node(TRIDENT, LONGHORN, DEMOCRATIC, ISCSI);
    proc(f, 101, 'trident_orchestrator', [
      '/trident_orchestrator',
      '--no_persistence',
      '--csi_node_name=node-a',
      '--csi_role=node',
      ARG_SECRET,
    ]);
    proc(f, 102, 'longhorn-manager', [
      'longhorn-manager',
      '-d',
      'csi',
      '--nodeid=node-a',
      '--drivername=driver.longhorn.io',
    ]);
    proc(f, 103, 'node', [
      'node',
      '--expose-gc',
      'bin/democratic-csi',
      '--csi-name=org.democratic-csi.iscsi',
      '--csi-mode=node',
      ARG_SECRET,
    ]);
    proc(f, 104, 'iscsiplugin', ['/iscsiplugin', '--nodeid=node-a']);
    const d = drivers(f);
    expect(d).toEqual({
      [TRIDENT]: [true, 'trident_orchestrator --csi_role=node (pid 101)'],
      [LONGHORN]: [true, 'longhorn-manager csi (pid 102)'],
      [DEMOCRATIC]: [true, 'democratic-csi --csi-mode=node (pid 103)'],
      [ISCSI]: [true, 'iscsiplugin (pid 104)'],
    });
    expect(JSON.stringify(takeSnapshot(f.host(), { kubeletRoot: KROOT }))).not.toContain('hunter2');
  });

  it('controllers and other subcommands are not node plugins → not running', () => {
    const f = node(TRIDENT, LONGHORN, DEMOCRATIC);
    proc(f, 201, 'trident_orchestrator', ['/trident_orchestrator', '--csi_role=controller']);
    proc(f, 202, 'longhorn-manager', ['longhorn-manager', '-d', 'daemon', '--engine-image=x']);
    proc(f, 203, 'node', [
      'node',
      '--expose-gc',
      'bin/democratic-csi',
      '--csi-name',
      DEMOCRATIC,
      '--csi-mode=controller',
    ]);
    // Another Node.js program and a renamed binary are nobody's node plugin.
    proc(f, 204, 'node', ['node', '/srv/app.js', '--csi-mode=node', `--csi-name=${DEMOCRATIC}`]);
    proc(f, 205, 'trident_orchestrator', ['/tmp/other', '--csi_role=node']);
    expect(drivers(f)).toEqual({
      [TRIDENT]: [false, ''],
      [LONGHORN]: [false, ''],
      [DEMOCRATIC]: [false, ''],
    });
  });

  it('a democratic-csi driver installed under its own name is recognised by --csi-name', () => {
    const f = node('truenas-iscsi', 'other.csi.example.com');
    proc(f, 301, 'node', [
      '/usr/local/lib/nodejs/bin/node',
      '--expose-gc',
      '/home/csi/app/bin/democratic-csi',
      '--csi-name',
      'truenas-iscsi',
      '--csi-mode',
      'node',
    ]);
    expect(drivers(f)).toEqual({
      'truenas-iscsi': [true, 'democratic-csi --csi-mode=node (pid 301)'],
      // A driver the console knows no process of stays unknown, never "not running".
      'other.csi.example.com': [undefined, ''],
    });
  });

  it('doctor: running, NOT running (with the process it looked for), unknown', async () => {
    const f = node(TRIDENT, LONGHORN, 'other.csi.example.com');
    proc(f, 401, 'longhorn-manager', ['longhorn-manager', '-d', 'csi']);
    // A volume of Trident on the node, so its missing node plugin is a warning.
    f.write(
      `${KROOT}/plugins/kubernetes.io/csi/${TRIDENT}/${'a'.repeat(64)}/vol_data.json`,
      JSON.stringify({ driverName: TRIDENT, volumeHandle: 'h1' }),
    );
    const report = await runDoctor(f.host(), { kubeletRoot: KROOT, exec: 'direct' });
    const c = report.checks.find((x) => x.id === 'csi.drivers')!;
    expect(c.evidence).toContain(
      `${TRIDENT} (Trident): registered; node plugin NOT running (no trident_orchestrator --csi_role=node process); 1 CSI volume(s)`,
    );
    expect(c.evidence).toContain(
      `${LONGHORN} (Longhorn): registered; node plugin running: longhorn-manager csi (pid 401)`,
    );
    expect(c.evidence).toContain(
      'other.csi.example.com (other.csi.example.com): registered; node plugin process not known to the console',
    );
    expect(c.status).toBe('warn');
    expect(c.hint).toContain(`${TRIDENT}: volumes on this node but no running, registered node plugin`);
  });
});
