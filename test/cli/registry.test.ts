import { describe, expect, it } from 'vitest';
import type { Output } from '../../src/cli/command.js';
import {
  COMMAND_ENTRIES,
  COMMAND_NAMES,
  loadAllCommands,
  loadCommand,
} from '../../src/cli/commands/index.js';
import { formatCommandHelp, formatHelp } from '../../src/cli/help.js';
import { main, optionSpecs } from '../../src/cli/main.js';
import { ACTIONS } from '../../src/engine/actions/registry.js';
import { UserError } from '../../src/engine/errors.js';

function capture(): Output & { text: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    isTTY: false,
    text: () => out,
    err: () => err,
  };
}

describe('the lazy command registry', () => {
  it('names every command once: the core commands, then the engine action registry in its order, then help', () => {
    const names = COMMAND_ENTRIES.map((e) => e.name);
    expect(names).toEqual([
      'console',
      'status',
      'watch',
      'doctor',
      'metrics',
      'serve',
      'check',
      'bundle',
      ...ACTIONS.map((a) => a.id),
      'help',
    ]);
    expect(COMMAND_NAMES.size).toBe(names.length);
  });

  it('loads, for each entry, the command of that name', async () => {
    for (const e of COMMAND_ENTRIES) expect((await e.load()).name).toBe(e.name);
    expect((await loadAllCommands()).map((c) => c.name)).toEqual(COMMAND_ENTRIES.map((e) => e.name));
    expect(() => loadCommand('nope')).toThrow(UserError);
  });

  it('action subcommands carry the registry summary and options (help is generated from the registry)', async () => {
    for (const a of ACTIONS) {
      const c = await loadCommand(a.id);
      expect(c.summary).toBe(a.summary);
      expect(c.options.slice(0, a.cliOptions.length)).toEqual(a.cliOptions);
    }
  });

  it('the fast path parses with one command’s options exactly as the parser with every command would', async () => {
    // main parses argv with the named command's options only; that equals the full parse only if no
    // later command redefines one of those option names differently.
    const all = optionSpecs(await loadAllCommands());
    for (const c of await loadAllCommands()) {
      for (const spec of optionSpecs([c])) expect(all.find((s) => s.name === spec.name)).toEqual(spec);
    }
  });
});

describe('help and parsing through main', () => {
  it('--help is the help generated from every command, in registry order', async () => {
    const o = capture();
    expect(await main(['--help'], o)).toBe(0);
    expect(o.text()).toBe(formatHelp(await loadAllCommands()));
    const lines = o.text().split('\n');
    const listed = lines.filter((l) => /^ {2}\S/.test(l) && COMMAND_NAMES.has(l.trim().split(/\s+/)[0]!));
    expect(listed.map((l) => l.trim().split(/\s+/)[0])).toEqual(COMMAND_ENTRIES.map((e) => e.name));
  });

  it('<command> --help prints that command’s help, also after a value-taking --demo', async () => {
    for (const argv of [
      ['attach', '--help'],
      ['--demo', 'attach', '--help'],
      ['status', '-h'],
    ]) {
      const o = capture();
      expect(await main(argv, o)).toBe(0);
      const name = argv.find((a) => COMMAND_NAMES.has(a))!;
      expect(o.text()).toBe(formatCommandHelp(await loadCommand(name)));
    }
  });

  it('an option of another command is still accepted (parsed against all commands, as before)', async () => {
    // --force belongs to the action subcommands; status ignores it, as it always did.
    const o = capture();
    expect(await main(['status', '--json', '--force', '--demo', 'empty'], o)).toBe(0);
    expect(JSON.parse(o.text()).schemaVersion).toBe(2);
  });

  it('an unknown option is a usage error naming it', async () => {
    const o = capture();
    expect(await main(['status', '--bogus'], o)).toBe(2);
    expect(o.err()).toContain('unknown option --bogus');
  });
});
