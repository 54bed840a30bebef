import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  blacklistEntries,
  defaultsValue,
  deviceValues,
  devnodeMatches,
  parseMultipathConf,
  tokenizeLine,
} from '../../src/engine/doctor/multipath-conf.js';

const dir = join(process.cwd(), 'test', 'fixtures', 'multipath-conf');
const fixture = (name: string) => readFileSync(join(dir, name), 'utf8');
/** The upstream templates ship every line commented out ("Uncomment the lines relevent to your environment"). */
const uncomment = (text: string) =>
  text
    .split('\n')
    .map((l) => (l.startsWith('#') && !l.startsWith('##') ? l.slice(1) : l))
    .join('\n');

describe('multipath.conf syntax (multipath.conf.5 SYNTAX)', () => {
  it('words, quoted strings with "" for a quote, comments with # and ! outside quotes', () => {
    expect(tokenizeLine('\tpath_selector\t\t"round-robin 0"  # comment').words).toEqual([
      'path_selector',
      'round-robin 0',
    ]);
    expect(tokenizeLine('product "2.5"" SSD"').words).toEqual(['product', '2.5" SSD']);
    expect(tokenizeLine('alias "a#b!c" ! trailing').words).toEqual(['alias', 'a#b!c']);
    expect(tokenizeLine('find_multipaths no!yes').words).toEqual(['find_multipaths', 'no']);
    expect(tokenizeLine('   # only a comment').words).toEqual([]);
    expect(tokenizeLine('vendor "open').unterminated).toBe(true);
  });

  it('sections, subsections, last value wins across drop-ins, problems reported with file:line', () => {
    const conf = parseMultipathConf('defaults {\n find_multipaths yes\n}\n', '/etc/multipath.conf');
    parseMultipathConf(
      'defaults {\n\tfind_multipaths no\n}\nstray value\ndevices {\n device {\n  vendor NETAPP\n  dev_loss_tmo infinity\n }\n}\n}\nblacklist {\n',
      '/etc/multipath/conf.d/99-local.conf',
      conf,
    );
    expect(defaultsValue(conf, 'find_multipaths')).toEqual({
      key: 'find_multipaths',
      value: 'no',
      at: '/etc/multipath/conf.d/99-local.conf:2',
    });
    expect(deviceValues(conf, 'dev_loss_tmo')).toEqual([
      {
        where: 'devices NETAPP',
        attr: { key: 'dev_loss_tmo', value: 'infinity', at: '/etc/multipath/conf.d/99-local.conf:8' },
      },
    ]);
    expect(conf.problems).toEqual([
      '/etc/multipath/conf.d/99-local.conf:4: stray outside any section',
      '/etc/multipath/conf.d/99-local.conf:11: } without a section',
      '/etc/multipath/conf.d/99-local.conf:12: section blacklist is not closed',
    ]);
  });
});

describe('upstream example configurations (test/fixtures/multipath-conf/README.md)', () => {
  it('multipath-tools multipath.conf.synthetic, uncommented: every section and value', () => {
    const conf = parseMultipathConf(uncomment(fixture('multipath.conf.synthetic')), 'synthetic');
    expect(conf.problems).toEqual([]);
    expect(conf.sections.map((s) => s.name)).toEqual([
      'defaults',
      'blacklist',
      'blacklist_exceptions',
      'multipaths',
      'devices',
      'overrides',
    ]);
    expect(defaultsValue(conf, 'path_selector')?.value).toBe('round-robin 0');
    expect(defaultsValue(conf, 'getuid_callout')?.value).toBe(
      '/lib/udev/scsi_id --whitelisted --device=/dev/%n',
    );
    expect(defaultsValue(conf, 'no_path_retry')?.value).toBe('fail');
    expect(deviceValues(conf, 'no_path_retry').map((d) => [d.where, d.attr.value])).toEqual([
      ['multipaths 3600508b4000156d700012000000b0000', '5'],
      ['devices COMPAQ  ', 'queue'],
      ['overrides', 'fail'],
    ]);
    expect(blacklistEntries(conf)).toEqual([
      { kind: 'wwid', value: '26353900f02796769' },
      { kind: 'devnode', value: '^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*' },
      { kind: 'devnode', value: '^hd[a-z][[0-9]*]' },
      { kind: 'device', value: 'DEC.* MSA[15]00', vendor: 'DEC.*', product: 'MSA[15]00' },
    ]);
  });

  it('multipath-tools multipath.conf.annotated, uncommented: comments inside sections skipped, its one prose line reported', () => {
    const conf = parseMultipathConf(uncomment(fixture('multipath.conf.annotated')), 'annotated');
    // Line 744 is prose behind a single `#` ("attributes and values are identical to the device
    // block"): uncommented it is a word outside any section, and the parser says so.
    expect(conf.problems).toEqual(['annotated:744: attributes outside any section']);
    expect(defaultsValue(conf, 'polling_interval')?.value).toBe('10');
    expect(defaultsValue(conf, 'no_path_retry')?.value).toBe('queue');
    expect(deviceValues(conf, 'no_path_retry').find((d) => d.where === 'overrides')?.attr.value).toBe('fail');
    expect(conf.sections.map((s) => s.name)).toContain('devices');
  });

  it('as shipped (all commented out): nothing set', () => {
    const conf = parseMultipathConf(fixture('multipath.conf.annotated'), 'annotated');
    expect(conf.sections).toEqual([]);
    expect(conf.problems).toEqual([]);
  });

  it("Longhorn's KB blacklist covers its sdX devices; the default blacklist does not", () => {
    const conf = parseMultipathConf(fixture('longhorn-kb.conf'), 'longhorn');
    const devnodes = blacklistEntries(conf).map((e) => e.value);
    expect(devnodes).toEqual(['^sd[a-z0-9]+']);
    expect(devnodeMatches(devnodes[0]!, 'sdc')).toBe(true);
    expect(devnodeMatches('^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*', 'sdc')).toBe(false);
    expect(devnodeMatches('(unclosed', 'sdc')).toBe(false);
  });

  it("Trident's node preparation: find_multipaths no, everything blacklisted but NETAPP LUN", () => {
    const conf = parseMultipathConf(fixture('trident-nodeprep.conf'), 'trident');
    expect(conf.problems).toEqual([]);
    expect(defaultsValue(conf, 'find_multipaths')?.value).toBe('no');
    expect(blacklistEntries(conf, 'blacklist_exceptions')).toEqual([
      { kind: 'device', value: 'NETAPP LUN', vendor: 'NETAPP', product: 'LUN' },
    ]);
  });
});
