import { describe, expect, it } from 'vitest';
import { journalEntries, journalReader } from '../../src/app/journal-entries.js';
import { combinePlans } from '../../src/engine/actions/combine.js';
import { stepAction } from '../../src/engine/actions/format.js';
import { attachFromManifest, chapFromSecret } from '../../src/engine/actions/manifest.js';
import { EMPTY_BLAST } from '../../src/engine/actions/plan-kit.js';
import { ACTIONS } from '../../src/engine/actions/registry.js';
import type { Plan } from '../../src/engine/actions/types.js';
import { parseDiscovery } from '../../src/engine/iscsiadm/discovery.js';
import { windowOffset } from '../../src/ui/components/table.js';
import { layoutColumns } from '../../src/ui/components/table-layout.js';
import { editText } from '../../src/ui/components/text-input.js';
import { compileFilter } from '../../src/ui/filter.js';
import { formatAge, padCell, truncateMiddle } from '../../src/ui/format.js';
import { completePalette, keyCollisions, parsePalette } from '../../src/ui/keymap.js';
import { COLOR_THEME, MONO_THEME, themeFor, toneColor } from '../../src/ui/theme.js';
import { SESSION_COLUMNS } from '../../src/ui/views/sessions.js';
import {
  fieldsFromInput,
  fieldsFromSecrets,
  validateWizard,
  wizardInput,
} from '../../src/ui/wizard/fields.js';

/** No multipath maps: the combined plans here are checked for step order, not for map paths. */
const NO_MAPS = { multipath: [], sessions: [] };

const row = (fields: Record<string, string>) => ({ fields });

describe('filter language', () => {
  it('matches words, alternatives, field=value, field!=value and a leading ! inversion', () => {
    const a = row({ state: 'FAILED', portal: '10.0.0.5:3260', target: 'iqn.x:db' });
    const b = row({ state: 'LOGGED_IN', portal: '10.0.0.6:3260', target: 'iqn.x:web' });
    const pick = (f: string) => [a, b].filter(compileFilter(f)).map((r) => r.fields.target);
    expect(pick('')).toEqual(['iqn.x:db', 'iqn.x:web']);
    expect(pick('state=failed')).toEqual(['iqn.x:db']);
    expect(pick('state!=failed')).toEqual(['iqn.x:web']);
    expect(pick('db|web')).toEqual(['iqn.x:db', 'iqn.x:web']);
    expect(pick('!db')).toEqual(['iqn.x:web']);
    expect(pick('portal=10.0.0.6 web')).toEqual(['iqn.x:web']);
    expect(pick('nosuchfield=x')).toEqual([]);
  });
});

describe('text helpers', () => {
  it('cuts IQNs in the middle so both ends stay readable', () => {
    const t = truncateMiddle('iqn.2003-01.org.linux-iscsi.node:pvc-1234', 20);
    expect(t).toHaveLength(20);
    expect(t.startsWith('iqn.2003-')).toBe(true);
    expect(t.endsWith('pvc-1234')).toBe(true);
    expect(padCell('abc', 5, 'right')).toBe('  abc');
    expect(formatAge(125_000)).toBe('2m05s');
  });

  it('edits text without letting control characters through', () => {
    expect(editText('ab', 'c', {})).toBe('abc');
    expect(editText('abc', '', { backspace: true })).toBe('ab');
    expect(editText('foo bar', 'w', { ctrl: true })).toBe('foo ');
    expect(editText('a', '\u001b[31m', {})).toBe('a[31m');
  });

  it('windows keep the cursor visible with minimal movement', () => {
    expect(windowOffset(0, 5, 10, 100)).toBe(0);
    expect(windowOffset(0, 12, 10, 100)).toBe(3);
    expect(windowOffset(50, 40, 10, 100)).toBe(40);
    expect(windowOffset(95, 99, 10, 100)).toBe(90);
  });

  it('hides columns on narrow terminals and gives the rest to the flex column', () => {
    const wide = layoutColumns(SESSION_COLUMNS, 140);
    const narrow = layoutColumns(SESSION_COLUMNS, 70);
    expect(wide.cols.map((c) => c.id)).toContain('iface');
    expect(narrow.cols.map((c) => c.id)).not.toContain('iface');
    const used = narrow.widths.reduce((a, b) => a + b, 0) + narrow.cols.length - 1 + 2;
    expect(used).toBeLessThanOrEqual(70);
  });
});

describe('theme', () => {
  it('has no colours without colour, and the same symbols', () => {
    expect(themeFor(true)).toBe(MONO_THEME);
    expect(themeFor(false)).toBe(COLOR_THEME);
    for (const tone of ['ok', 'warn', 'bad', 'dim', 'accent'] as const)
      expect(toneColor(MONO_THEME, tone)).toBeUndefined();
    expect(toneColor(COLOR_THEME, 'bad')).toBe('red');
  });
});

describe('keymap and palette', () => {
  it('the engine registry has no key that collides with navigation', () => {
    expect(keyCollisions(ACTIONS)).toEqual([]);
    expect(new Set(ACTIONS.map((a) => a.key)).size).toBe(ACTIONS.length);
    // Positive control: the check does see navigation's keys (asked of NAV_KEYS, not a copy).
    const taking = (key: string) => [{ ...ACTIONS[0]!, key }];
    // Every capital sorts (k9s shift-letter), so no action may sit on one; `=` is the default order.
    for (const key of ['j', 'k', 'g', 'G', 'd', 'y', '/', '?', 'q', ' ', '1', 'C', 'L', 'R', 'S', '='])
      expect(keyCollisions(taking(key)), key).toEqual([`${ACTIONS[0]!.id} uses '${key}'`]);
    expect(keyCollisions(taking('c'))).toEqual([]);
  });

  it('completes and parses commands with inline filters', () => {
    expect(completePalette('de').map((c) => c.name)).toEqual(['devices']);
    expect(completePalette('mp').map((c) => c.name)).toEqual(['devices']);
    expect(parsePalette('s /FAILED')).toMatchObject({ command: { name: 'sessions' }, rest: 'FAILED' });
    expect(parsePalette('nope')).toBeUndefined();
  });
});

const plan = (sid: number, over: Partial<Plan> = {}): Plan => ({
  action: 'logout',
  title: 'Log out',
  subject: `session ${sid}`,
  risk: 'medium',
  confirm: 'typed',
  confirmToken: String(sid),
  steps: [
    {
      id: 'logout',
      why: 'w',
      argv: ['iscsiadm', '-m', 'session', '-r', String(sid), '-u'],
      effect: { kind: 'none' as const },
      preconditions: [],
    },
  ],
  refusals: [],
  warnings: [],
  blastRadius: { ...structuredClone(EMPTY_BLAST), sessions: [`s${sid}`] },
  undo: [],
  before: [],
  ...over,
});

describe('combined plans', () => {
  it('keeps every part, unique step ids, the strongest risk, and names the node for typed consent', () => {
    const c = combinePlans([plan(1), plan(2, { risk: 'high', warnings: ['shared'] })], 'node-17', NO_MAPS);
    expect(c.steps.map((s) => s.id)).toEqual(['1.logout', '2.logout']);
    expect(c.risk).toBe('high');
    expect(c.confirmToken).toBe('node-17');
    expect(c.blastRadius.sessions).toEqual(['s1', 's2']);
    expect(c.warnings).toEqual(['session 2: shared']);
    expect(c.parts).toHaveLength(2);
    expect(combinePlans([plan(1)], 'node-17', NO_MAPS).confirmToken).toBe('1');
  });

  it("describes steps as shell lines (the engine's one rendering, the same as the CLI prints)", () => {
    expect(
      stepAction({
        id: 'x',
        why: '',
        argv: ['iscsiadm', '-T', 'a b'],
        effect: { kind: 'none' },
        preconditions: [],
      }),
    ).toBe("$ iscsiadm -T 'a b'");
    // The console used to show `write '1' > …` while the CLI printed `echo 1 > …`: one text now.
    expect(
      stepAction({
        id: 'x',
        why: '',
        write: { path: '/sys/block/sdc/device/delete', data: '1\n' },
        effect: { kind: 'none' as const },
        preconditions: [],
      }),
    ).toBe('$ echo 1 > /sys/block/sdc/device/delete');
  });
});

describe('live backend helpers', () => {
  it("the wizard's discovery uses the engine's SendTargets parser (tgt's reply for two targets)", () => {
    const out =
      '127.0.0.1:3260,1 iqn.2024-01.lab.example:storage.target1\n127.0.0.1:3260,1 iqn.2024-01.lab.example:storage.target2\n';
    expect(parseDiscovery(out)).toEqual([
      { portal: '127.0.0.1:3260', tpgt: 1, iqn: 'iqn.2024-01.lab.example:storage.target1' },
      { portal: '127.0.0.1:3260', tpgt: 1, iqn: 'iqn.2024-01.lab.example:storage.target2' },
    ]);
  });

  it('reads the journal once per node state: again when the snapshot or the actions change', () => {
    let reads = 0;
    const line = (id: string) => ({
      id,
      phase: 'begin' as const,
      at: '2026-11-30T04:00:00Z',
      who: {},
      host: 'n',
      hostKind: 'sim' as const,
      action: 'cleanup',
      subject: 'session 4',
    });
    const file = [line('a')];
    let state = { snapshot: {}, actions: [] as unknown[] };
    const read = journalReader({ getState: () => state }, () => {
      reads++;
      return { entries: file.slice(), problems: [] };
    });
    const first = read();
    expect(read()).toBe(first);
    expect(reads).toBe(1);
    file.push(line('b'));
    state = { ...state, actions: [] };
    expect(read().entries.map((e) => e.id)).toEqual(['a', 'b']);
    state = { ...state, snapshot: {} };
    read();
    expect(reads).toBe(3);
  });

  it('joins begin/end journal lines into one entry with its commands', () => {
    const who = {};
    const entries = journalEntries([
      {
        id: 'a',
        phase: 'begin',
        at: '2026-11-30T04:00:00Z',
        who,
        host: 'n',
        hostKind: 'sim',
        action: 'cleanup',
        subject: 'session 4',
      },
      {
        id: 'a',
        phase: 'end',
        at: '2026-11-30T04:00:01Z',
        who,
        host: 'n',
        hostKind: 'sim',
        action: 'cleanup',
        subject: 'session 4',
        ok: true,
        steps: [
          {
            id: 'logout',
            status: 'done',
            commands: [{ argv: ['iscsiadm', '-m', 'session', '-r', '4', '-u'], exitCode: 0 }],
          },
        ],
      },
    ]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      ok: true,
      action: 'cleanup',
      commands: [{ argv: ['iscsiadm', '-m', 'session', '-r', '4', '-u'], exitCode: 0 }],
    });
    expect(entries[0]!.at).toBe(Date.parse('2026-11-30T04:00:00Z'));
  });
});

describe('manifests (read by the engine, mapped to the wizard fields and back)', () => {
  const fieldsOf = (text: string) => fieldsFromInput(attachFromManifest(text, 'm.yaml').input);

  it('reads a PV iscsi source and a Secret (base64 data)', () => {
    const pv = `apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-db}\nspec:\n  iscsi:\n    targetPortal: "[fd00::5]:3260"\n    portals: ["10.0.0.6:3260"]\n    iqn: iqn.2024-01.lab.example:db\n    lun: 3\n    fsType: xfs\n    readOnly: true\n    chapAuthSession: true\n`;
    expect(fieldsOf(pv)).toMatchObject({
      volName: 'pv-db',
      targetPortal: '[fd00::5]:3260',
      portals: '10.0.0.6:3260',
      iqn: 'iqn.2024-01.lab.example:db',
      lun: '3',
      fsType: 'xfs',
      readOnly: 'true',
      chapAuthSession: 'true',
    });
    const secret = `kind: Secret\nmetadata: {name: chap}\ndata:\n  node.session.auth.username: ${Buffer.from('u').toString('base64')}\nstringData:\n  node.session.auth.password: pw\n`;
    expect(fieldsFromSecrets(chapFromSecret(secret, 's.yaml'))).toEqual({
      sessionUser: 'u',
      sessionSecret: 'pw',
    });
  });

  it('reads the iscsi volume of a Pod and refuses manifests without one', () => {
    const pod = `kind: Pod\nmetadata: {name: p}\nspec:\n  volumes:\n  - name: data\n    iscsi: {targetPortal: 10.0.0.5, iqn: iqn.2024-01.lab.example:x, lun: 0}\n`;
    expect(fieldsOf(pod)).toMatchObject({ volName: 'data', targetPortal: '10.0.0.5', lun: '0' });
    expect(() => fieldsOf('kind: Pod\nmetadata: {name: p}\nspec: {volumes: []}\n')).toThrow(
      'no iSCSI volume',
    );
  });

  it('fields → AttachInput → fields is the identity, and the engine rules decide (LUN up to 16383)', () => {
    const pv = `kind: PersistentVolume\nmetadata: {name: pv-big}\nspec:\n  volumeMode: Block\n  iscsi: {targetPortal: 10.0.0.5, iqn: iqn.2024-01.lab.example:x, lun: 300, iscsiInterface: iface0, initiatorName: iqn.2024-01.lab.example:me}\n`;
    const input = attachFromManifest(pv, 'm.yaml').input;
    expect(wizardInput(fieldsFromInput(input))).toEqual(input);
    // The wizard used to cap LUNs at 255 while the manifest reader took 16383: now both are the engine's.
    expect(validateWizard(fieldsFromInput(input))).toEqual({});
    expect(validateWizard({ ...fieldsFromInput(input), lun: '70000' }).lun).toBe(
      'a LUN is the target LUN, an integer 0..16383 in decimal digits',
    );
    expect(() => attachFromManifest(pv.replace('lun: 300', 'lun: 16384'), 'm.yaml')).toThrow('lun');
  });
});
