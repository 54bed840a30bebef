import type { RunOptions, RunResult, TcpConnectResult } from '../engine/host/host.js';
import type { Clock } from './clock.js';
import type { Faults } from './faults.js';
import type { NodeDb } from './iscsid/node-db.js';
import type { Kernel } from './kernel/kernel.js';
import type { MountTable } from './kernel/mounts.js';
import type { San } from './san.js';
import type { Tree } from './tree.js';

/** What a simulated tool sees of the node: the pieces it may read and change. */
export interface SimContext {
  readonly tree: Tree;
  readonly kernel: Kernel;
  readonly db: NodeDb;
  readonly san: San;
  readonly mounts: MountTable;
  readonly faults: Faults;
  readonly clock: Clock;
  /** Daemons the node runs (their /proc entries exist while true). */
  readonly daemons: { iscsid: boolean; multipathd: boolean };
  /** Re-materialise /proc/<pid>/mountinfo etc. after a mount change. */
  mountsChanged(): void;
}

/**
 * What the Host seam over the simulated node (sim-host.ts) asks of the simulator: its tree's root,
 * the read faults, and its tools. The simulator implements it; sim-host.ts names no Simulator, so the
 * simulator can build the Host its kubelet acts through without an import cycle.
 */
export interface SimNode extends SimContext {
  readonly root: string;
  readonly hostname: string;
  /** Fires armed vanish faults before a read. */
  beforeRead(path: string): void;
  /** The errno a read of `path` fails with right now (a down connection's ENOTCONN), if any. */
  readError(path: string): string | undefined;
  run(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
  /** A TCP connect from the node, as the SAN answers it (Host.connectTcp). */
  connectTcp(address: string, port: number): TcpConnectResult;
  /** The kernel log as `/dev/kmsg` records, oldest first. */
  readonly kmsg: readonly string[];
}

/** A simulated program's answer. `hang` = it never returns (multipath -ll on blocked paths). */
export type ToolResult = { exitCode: number; stdout: string; stderr: string } | { hang: true };

export const ok = (stdout = '', stderr = ''): ToolResult => ({ exitCode: 0, stdout, stderr });
export const fail = (exitCode: number, stderr: string, stdout = ''): ToolResult => ({
  exitCode,
  stdout,
  stderr,
});

/** A simulated program: argv without the program name. */
export type Tool = (ctx: SimContext, args: readonly string[]) => ToolResult;
