/**
 * Which CSI node plugins run on this node, recognised from `/proc/<pid>/comm` and `cmdline` as each
 * driver's own manifests start them (docs/csi-drivers.md "Node-plugin processes"):
 * - csi-driver-iscsi: `/iscsiplugin` (Dockerfile ENTRYPOINT; deploy/csi-iscsi-node.yaml);
 * - Trident: `/trident_orchestrator … --csi_role=node` (cli/k8s_client/yaml_factory.go
 *   GetCSIDaemonSetYAMLLinux; the controller runs the same binary with `--csi_role=controller`);
 * - Longhorn: `longhorn-manager -d csi --drivername=driver.longhorn.io` (longhorn-manager
 *   csi/deployment.go; the manager daemon on every node is `longhorn-manager … daemon`);
 * - democratic-csi: `node --expose-gc bin/democratic-csi --csi-name=<driver> … --csi-mode=node`
 *   (bin/democratic-csi's `env -S node` shebang; charts templates/node.yaml).
 * The argv is untrusted and may hold secrets (flags of any process on the node): only the flags
 * named here are looked at, and what is shown is fixed text, never the argv itself.
 */
import type { ProcessTable } from '../processes.js';
import { CSI_DRIVER_ISCSI, LONGHORN, TRIDENT } from './paths.js';

/** Arguments looked at per process (real node plugins have ~20). */
const MAX_ARGS = 64;
const MAX_ARG = 4096;
/** A CSI driver name (CSI spec: at most 63 characters, DNS-like). */
const DRIVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/**
 * Values of a flag as Go's flag package and yargs accept it: `--name=v`, `-name=v`, `--name v`,
 * `-name v` (the next argument, unless it is a flag). Every occurrence, in order.
 */
function flagValues(argv: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    for (const p of [`--${name}`, `-${name}`]) {
      if (a === p) {
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith('-')) out.push(next);
      } else if (a.startsWith(`${p}=`)) out.push(a.slice(p.length + 1));
    }
  }
  return out;
}

interface Recogniser {
  /** `/proc/<pid>/comm`: the kernel's 15-character task name. */
  comm: string;
  /** What the process is shown as (fixed text). */
  label: string;
  /** The driver this process serves as a node plugin, or undefined (a controller, another subcommand). */
  driverOf(argv: readonly string[]): string | undefined;
  /** Drivers whose node plugin this recogniser would have found: when it found none, they are not running. */
  knows(driver: string): boolean;
}

const RECOGNISERS: readonly Recogniser[] = [
  {
    comm: 'iscsiplugin',
    label: 'iscsiplugin',
    driverOf: () => CSI_DRIVER_ISCSI,
    knows: (d) => d === CSI_DRIVER_ISCSI,
  },
  {
    comm: 'trident_orchest',
    label: 'trident_orchestrator --csi_role=node',
    driverOf(argv) {
      if (baseName(argv[0] ?? '') !== 'trident_orchestrator') return undefined;
      // allInOne is Trident's role for a single process serving both sides (frontend/csi/plugin.go).
      const role = flagValues(argv, 'csi_role').at(-1);
      return role === 'node' || role === 'allInOne' ? TRIDENT : undefined;
    },
    knows: (d) => d === TRIDENT,
  },
  {
    comm: 'longhorn-manage',
    label: 'longhorn-manager csi',
    driverOf(argv) {
      if (baseName(argv[0] ?? '') !== 'longhorn-manager') return undefined;
      // The subcommand is the first non-flag argument (`-d` is a boolean flag).
      if (argv.slice(1).find((a) => !a.startsWith('-')) !== 'csi') return undefined;
      return flagValues(argv, 'drivername').at(-1) ?? LONGHORN;
    },
    knows: (d) => d === LONGHORN,
  },
  {
    comm: 'node',
    label: 'democratic-csi --csi-mode=node',
    driverOf(argv) {
      if (!argv.slice(1, 8).some((a) => baseName(a) === 'democratic-csi')) return undefined;
      const modes = flagValues(argv, 'csi-mode');
      // yargs' default for --csi-mode is both controller and node.
      if (modes.length > 0 && !modes.includes('node')) return undefined;
      return flagValues(argv, 'csi-name').at(-1);
    },
    knows: (d) => d.includes('democratic-csi'),
  },
];

interface NodePlugins {
  /** Processes serving each driver as a node plugin (`trident_orchestrator --csi_role=node (pid 42)`). */
  running: Map<string, string[]>;
  /**
   * Whether the console can tell this driver's node plugin is missing: its software is one of the
   * recognised ones (by name, or a recognised process named it, e.g. a democratic-csi controller).
   */
  knows(driver: string): boolean;
}

/** Scans the process table for the node plugins above. */
export function findNodePlugins(procs: ProcessTable): NodePlugins {
  const running = new Map<string, string[]>();
  const named = new Set<string>();
  for (const r of RECOGNISERS) {
    for (const pid of procs.pids(r.comm)) {
      const raw = procs.cmdline(pid);
      if (!raw || raw.length === 0) continue;
      const argv = raw.slice(0, MAX_ARGS).map((a) => (a.length > MAX_ARG ? '' : a));
      const driver = r.driverOf(argv);
      // A democratic-csi process of any mode names its driver: that driver's software is known.
      if (r.comm === 'node') {
        const n = flagValues(argv, 'csi-name').at(-1);
        if (n && DRIVER_NAME.test(n) && argv.slice(1, 8).some((a) => baseName(a) === 'democratic-csi'))
          named.add(n);
      }
      if (!driver || !DRIVER_NAME.test(driver)) continue;
      named.add(driver);
      const l = running.get(driver) ?? [];
      l.push(`${r.label} (pid ${pid})`);
      running.set(driver, l);
    }
  }
  return {
    running,
    knows: (d) => named.has(d) || RECOGNISERS.some((r) => r.knows(d)),
  };
}

/** How a driver's node plugin is recognised, for "no … process" texts; undefined when it is not. */
export function nodePluginProcess(driver: string): string | undefined {
  const r = RECOGNISERS.find((x) => x.knows(driver));
  if (!r) return undefined;
  return r.comm === 'node' ? `${r.label} --csi-name=${driver}` : r.label;
}
