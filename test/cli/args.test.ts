import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { GLOBAL_OPTIONS, readGlobals } from '../../src/cli/globals.js';
import { UserError } from '../../src/engine/errors.js';
import { SCENARIO_DEFS } from '../../src/sim/scenarios/index.js';

const commands = new Set(['status', 'console', 'watch']);

describe('parseArgs', () => {
  it('takes --demo with or without a scenario, before or after the command', () => {
    expect(parseArgs(['status', '--json', '--demo', 'incident'], GLOBAL_OPTIONS, commands)).toMatchObject({
      command: 'status',
      options: { json: true, demo: 'incident' },
    });
    expect(parseArgs(['--demo'], GLOBAL_OPTIONS, commands).options.demo).toBe(true);
    // A command name after --demo is the command, not a scenario.
    expect(parseArgs(['--demo', 'status'], GLOBAL_OPTIONS, commands)).toMatchObject({
      command: 'status',
      options: { demo: true },
    });
    expect(parseArgs(['--demo=outage'], GLOBAL_OPTIONS, commands).options.demo).toBe('outage');
  });

  it('rejects unknown options and missing values with a UserError', () => {
    expect(() => parseArgs(['--nope'], GLOBAL_OPTIONS, commands)).toThrow(UserError);
    expect(() => parseArgs(['--root'], GLOBAL_OPTIONS, commands)).toThrow(/needs a value/);
    expect(() => parseArgs(['--json=1'], GLOBAL_OPTIONS, commands)).toThrow(/takes no value/);
  });

  it('keeps positionals after the command', () => {
    expect(parseArgs(['status', 'x', '--', '--json'], GLOBAL_OPTIONS, commands)).toMatchObject({
      command: 'status',
      positionals: ['x', '--json'],
    });
  });
});

describe('readGlobals', () => {
  it('validates exec mode, refresh and kubelet root', () => {
    expect(() => readGlobals({ exec: 'ssh' }, {})).toThrow(/--exec/);
    expect(() => readGlobals({ refresh: '0' }, {})).toThrow(/--refresh/);
    expect(() => readGlobals({ 'kubelet-root': 'var/lib' }, {})).toThrow(/absolute/);
    expect(() => readGlobals({ demo: true, root: '/host' }, {})).toThrow(/cannot be combined/);
  });

  it('defaults to the real node, read-only, 2 s refresh, and honours NO_COLOR', () => {
    const g = readGlobals({}, { NO_COLOR: '1' });
    expect(g).toMatchObject({
      root: '/',
      kubeletRoot: '/var/lib/kubelet',
      write: false,
      refreshMs: 2000,
      noColor: true,
    });
    expect(readGlobals({ demo: true }, {}).demo).toBe('incident');
    expect(readGlobals({ 'kubelet-root': '/var/lib/origin/' }, {}).kubeletRoot).toBe('/var/lib/origin');
  });
});

describe('--demo scenarios in --help', () => {
  it('names every scenario the simulator can build, and the default', () => {
    const text = GLOBAL_OPTIONS.find((o) => o.name === 'demo')!.description;
    const named = /\(scenarios: ([^;]+);/.exec(text)?.[1]?.split(', ');
    expect(named).toEqual(SCENARIO_DEFS.map((s) => s.name));
    // The copy this list replaced had lost csi.
    expect(named).toContain('csi');
    expect(text).toMatch(/default incident\)$/);
  });
});
