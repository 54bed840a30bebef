import { UserError } from '../engine/errors.js';
import type { ExecMode } from '../engine/host/runner.js';
import { DEFAULT_SCENARIO, SCENARIO_CATALOGUE } from '../sim/scenarios/catalogue.js';
import type { OptionSpec, ParsedOptions } from './args.js';
import type { GlobalOptions } from './command.js';

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'demo',
    type: 'string',
    optionalValue: true,
    valueName: 'SCENARIO',
    description: `Run on the built-in simulated node (scenarios: ${SCENARIO_CATALOGUE.map((s) => s.name).join(', ')}; default ${DEFAULT_SCENARIO})`,
  },
  {
    name: 'root',
    type: 'string',
    valueName: 'DIR',
    description: 'Access host files under DIR (e.g. /host in a debug pod)',
    default: '/',
  },
  {
    name: 'kubelet-root',
    type: 'string',
    valueName: 'PATH',
    description: 'Host path of the kubelet root dir',
    default: '/var/lib/kubelet',
  },
  {
    name: 'exec',
    type: 'string',
    valueName: 'MODE',
    description: 'How host tools run: direct | nsenter (host namespaces of PID 1) | chroot (into --root)',
    default: 'direct',
  },
  { name: 'json', type: 'boolean', description: 'Machine-readable output on stdout; never prompts' },
  { name: 'write', type: 'boolean', description: 'Allow changes to the node (the console starts read-only)' },
  { name: 'dry-run', type: 'boolean', description: 'Print the plan and change nothing' },
  {
    name: 'yes',
    short: 'y',
    type: 'boolean',
    description: 'Apply without the terminal confirmation (scripts)',
  },
  {
    name: 'state-dir',
    type: 'string',
    valueName: 'DIR',
    description: 'Host dir for the journal and locks',
    default: '/var/log/iscsi-console',
  },
  { name: 'refresh', type: 'string', valueName: 'SECONDS', description: 'Watch poll interval', default: '2' },
  { name: 'no-color', type: 'boolean', description: 'No colours (NO_COLOR is honoured too)' },
  { name: 'verbose', short: 'v', type: 'boolean', description: 'Show every command run on stderr' },
  { name: 'help', short: 'h', type: 'boolean', description: 'Show help' },
  { name: 'version', type: 'boolean', description: 'Show the version' },
];

/** Where the demo's journal and locks go: the default state dir, on the simulated node. */
const DEMO_STATE_DIR = '/var/log/iscsi-console';

const EXEC_MODES: readonly ExecMode[] = ['direct', 'nsenter', 'chroot'];

function str(o: ParsedOptions, name: string, dflt: string): string {
  const v = o[name];
  return typeof v === 'string' ? v : dflt;
}

/**
 * A path option given as "" (an unset shell variable: `--root "$HOST_ROOT"`) must not fall back to
 * its default: `--root ""` meaning `/` would read (and with --write change) this machine while the
 * admin meant a mounted tree.
 */
function refuseEmptyPaths(o: ParsedOptions): void {
  for (const [name, example] of [
    ['root', '--root /host (or --root / for this machine)'],
    ['kubelet-root', '--kubelet-root /var/lib/kubelet'],
    ['state-dir', '--state-dir /var/log/iscsi-console'],
  ] as const) {
    if (typeof o[name] === 'string' && o[name].trim() === '')
      throw new UserError(
        `--${name} was given an empty path`,
        `give a directory, e.g. ${example}; an unset shell variable expands to ""`,
      );
  }
}

/** Validates and normalises the global options. */
export function readGlobals(o: ParsedOptions, env: NodeJS.ProcessEnv): GlobalOptions {
  refuseEmptyPaths(o);
  const exec = str(o, 'exec', 'direct') as ExecMode;
  if (!EXEC_MODES.includes(exec))
    throw new UserError(`--exec must be one of ${EXEC_MODES.join(', ')} (got ${exec})`);
  const refresh = Number(str(o, 'refresh', '2'));
  if (!Number.isFinite(refresh) || refresh < 0.1 || refresh > 3600) {
    throw new UserError(`--refresh takes seconds between 0.1 and 3600 (got ${str(o, 'refresh', '')})`);
  }
  const kubeletRoot = str(o, 'kubelet-root', '/var/lib/kubelet').replace(/\/+$/, '') || '/';
  if (!kubeletRoot.startsWith('/')) throw new UserError('--kubelet-root must be an absolute host path');
  const demoOpt = o.demo;
  const rawRoot = str(o, 'root', '/');
  const globals: GlobalOptions = {
    root: rawRoot.replace(/\/+$/, '') === '' ? '/' : rawRoot,
    kubeletRoot,
    exec,
    json: o.json === true,
    write: o.write === true,
    dryRun: o['dry-run'] === true,
    yes: o.yes === true,
    stateDir: str(o, 'state-dir', '/var/log/iscsi-console'),
    refreshMs: Math.round(refresh * 1000),
    noColor: o['no-color'] === true || Boolean(env.NO_COLOR),
    verbose: o.verbose === true,
  };
  if (demoOpt !== undefined) globals.demo = typeof demoOpt === 'string' ? demoOpt : DEFAULT_SCENARIO;
  if (globals.demo && globals.root !== '/') throw new UserError('--demo and --root cannot be combined');
  // The simulated node lives in a temporary tree removed on exit, and the Host seam keeps every
  // path inside it: a journal "in" DIR would silently land in that tree and vanish. Say so instead.
  if (globals.demo && o['state-dir'] !== undefined)
    throw new UserError(
      `--state-dir cannot be used with --demo: the demo keeps its journal and locks on the simulated node (${DEMO_STATE_DIR} there, gone when the demo exits)`,
      'drop --state-dir (the console shows the demo journal in view 7), or use --state-dir on a real node or with --root',
    );
  requireExecForRootWrites(globals, o.exec !== undefined);
  return globals;
}

/**
 * Under `--root DIR` the state is read from DIR, while `--exec direct` runs iscsiadm, mount and
 * blockdev on the machine the console runs on: with `--write` that would mix two machines silently
 * (read one node, change another). So changes under a root need the exec mode said out loud.
 */
function requireExecForRootWrites(globals: GlobalOptions, execGiven: boolean): void {
  if (!globals.write || globals.root === '/' || execGiven) return;
  throw new UserError(
    `--write with --root ${globals.root} needs an explicit --exec: commands would otherwise run on this machine while the state is read from ${globals.root}`,
    `add --exec nsenter (a debug pod sharing the host's PID namespace), --exec chroot (into ${globals.root}), or --exec direct if this machine is that node`,
  );
}
