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
