/**
 * Opens the machine behind the one Host seam: the real node, a `--root` tree, or the `--demo`
 * simulator. Every command starts here (src/cli/main.ts), the console included.
 */
import { FsHost } from '../engine/host/fs-host.js';
import type { Host } from '../engine/host/host.js';
import { assertNodeRoot } from '../engine/host/node-root.js';
import type { ExecMode } from '../engine/host/runner.js';

/** The global flags that choose the machine (`--root`, `--exec`, `--demo`). */
interface HostChoice {
  root: string;
  exec: ExecMode;
  /** Scenario name when running on the simulated node. */
  demo?: string;
}

interface OpenedHost {
  host: Host;
  /** Releases what the host holds (the simulator's temp tree and clock). */
  close?: () => Promise<void>;
  /** A demo scenario's word to its user: what it serves (portals, lab credentials). */
  note?: string;
}

/** Picks the machine behind the Host seam from the global flags. */
export async function openHost(globals: HostChoice): Promise<OpenedHost> {
  if (globals.demo) {
    // Loaded lazily: a real node never pays for the simulator.
    const { openSimHost } = await import('../sim/index.js');
    return openSimHost({ scenario: globals.demo });
  }
  const host = new FsHost({
    root: globals.root,
    runner: { mode: globals.exec, chrootDir: globals.root },
  });
  assertNodeRoot(host);
  return { host };
}
