import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SimHost } from '../../src/sim/index.js';
import { SimHost as Host } from '../../src/sim/index.js';
import { Simulator } from '../../src/sim/simulator.js';
import type { TargetSpec } from '../../src/sim/types.js';

/** The lab of the captures (test/fixtures/captures/README.md): target1 LUN1 64 MiB + LUN2 32 MiB, target2 LUN1 16 MiB. */
export const LAB_INITIATOR = 'iqn.1993-08.org.debian:01:labguest0001';
export const T1 = 'iqn.2024-01.lab.example:storage.target1';
export const T2 = 'iqn.2024-01.lab.example:storage.target2';
const MiB = 1024 * 1024;

export function labTargets(portals1: string[] = ['127.0.0.1:3260']): TargetSpec[] {
  return [
    {
      iqn: T1,
      portals: portals1,
      luns: [
        { lun: 1, sizeBytes: 64 * MiB },
        { lun: 2, sizeBytes: 32 * MiB },
      ],
    },
    { iqn: T2, portals: ['127.0.0.1:3260'], luns: [{ lun: 1, sizeBytes: 16 * MiB }] },
  ];
}

export interface TestSim {
  sim: Simulator;
  host: SimHost;
  close: () => void;
}

/** A manual-clock simulator with the captures' lab (initiator name, targets), nothing logged in. */
export function labSim(targets: TargetSpec[] = labTargets()): TestSim {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'sim-test-'));
  const sim = new Simulator({
    dir,
    clock: 'manual',
    seed: 1,
    initiatorName: LAB_INITIATOR,
    hostname: 'lab-guest',
  });
  for (const t of targets) sim.addTarget(t);
  return {
    sim,
    host: new Host(sim),
    close: () => {
      sim.clock.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs iscsiadm and returns stdout, stderr and exit code. */
export async function iscsiadm(host: SimHost, ...args: string[]) {
  const r = await host.run(['iscsiadm', ...args]);
  return { stdout: r.stdout, stderr: r.stderr, exit: r.exitCode };
}

/** A capture file `$ cmd / --- stdout --- / --- stderr --- / --- exit: N ---`, split. */
/** `iscsiadm -m node -T <iqn> -p <portal> -o update -n <key> -v <value>`, as kubelet sets up records. */
export function nodeUpdate(host: SimHost, iqn: string, portal: string, key: string, value: string) {
  return iscsiadm(host, '-m', 'node', '-T', iqn, '-p', portal, '-o', 'update', '-n', key, '-v', value);
}

export function capture(name: string): { cmd: string; stdout: string; stderr: string; exit: number } {
  const text = fs.readFileSync(
    path.join(import.meta.dirname, '..', 'fixtures', 'sim', 'iscsiadm', name),
    'utf8',
  );
  const m = /^\$ (.*)\n--- stdout ---\n([\s\S]*?)--- stderr ---\n([\s\S]*?)--- exit: (\d+) ---\n?$/.exec(
    text,
  );
  if (!m) throw new Error(`bad capture ${name}`);
  return { cmd: m[1]!, stdout: m[2]!, stderr: m[3]!, exit: Number(m[4]) };
}
