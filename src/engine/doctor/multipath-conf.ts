/**
 * multipath.conf as multipath-tools reads it (multipath/multipath.conf.5.in, SYNTAX; the reader is
 * libmultipath/parser.c): `<section> {` on one line, `<attribute> <value>` lines, `}` alone on a
 * line; a value is one word or one double-quoted string (`""` is a quote inside it); outside quotes
 * `#` and `!` start a comment. Drop-in files in /etc/multipath/conf.d/*.conf (the man page's
 * @CONFIGDIR@) are read after the main file in name order, and a keyword repeated in the same
 * section takes the last value. The file is untrusted: parsed bounded, never evaluated.
 */
import type { Host } from '../host/host.js';

export const MULTIPATH_CONF = '/etc/multipath.conf';
const MULTIPATH_CONF_DIR = '/etc/multipath/conf.d';

interface MpAttr {
  key: string;
  value: string;
  /** `file:line` where it was set. */
  at: string;
}

interface MpSection {
  name: string;
  attrs: MpAttr[];
  children: MpSection[];
  at: string;
}

export interface MultipathConf {
  /** Top-level sections in the order read (every file's). */
  sections: MpSection[];
  /** Lines that are not the syntax above, with where: reported, never guessed at. */
  problems: string[];
  /** The files read, in order. */
  files: string[];
}

/** Deeper nesting than `devices { device { … } }` is not multipath.conf; it bounds a hostile file. */
const MAX_DEPTH = 4;

/** The words of one line: bare words and quoted strings, up to a comment. */
export function tokenizeLine(line: string): { words: string[]; unterminated: boolean } {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' || c === '!') break;
    if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= line.length) return { words: [...words, value], unterminated: true };
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += line[i];
        i++;
      }
      words.push(value);
      continue;
    }
    let word = '';
    while (i < line.length && !/[\s"#!]/.test(line[i]!)) word += line[i++];
    words.push(word);
  }
  return { words, unterminated: false };
}

/** Parses one file's text into `into`. */
export function parseMultipathConf(text: string, file: string, into?: MultipathConf): MultipathConf {
  const conf = into ?? { sections: [], problems: [], files: [] };
  conf.files.push(file);
  const stack: MpSection[] = [];
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const at = `${file}:${n + 1}`;
    const { words, unterminated } = tokenizeLine(lines[n]!);
    if (unterminated) conf.problems.push(`${at}: unterminated quoted string`);
    if (words.length === 0) continue;
    if (words[0] === '}') {
      if (words.length > 1) conf.problems.push(`${at}: text after }`);
      if (stack.pop() === undefined) conf.problems.push(`${at}: } without a section`);
      continue;
    }
    if (words[words.length - 1] === '{') {
      if (words.length !== 2) {
        conf.problems.push(`${at}: a section line is "<name> {"`);
      }
      const section: MpSection = { name: words[0]!, attrs: [], children: [], at };
      if (stack.length >= MAX_DEPTH) {
        conf.problems.push(`${at}: sections nested deeper than ${MAX_DEPTH}`);
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(section);
      else conf.sections.push(section);
      stack.push(section);
      continue;
    }
    const top = stack[stack.length - 1];
    if (!top) {
      conf.problems.push(`${at}: ${words[0]} outside any section`);
      continue;
    }
    if (words.length > 2) conf.problems.push(`${at}: ${words[0]} has more than one value (quote it)`);
    top.attrs.push({ key: words[0]!, value: words[1] ?? '', at });
  }
  for (const s of stack) conf.problems.push(`${s.at}: section ${s.name} is not closed`);
  return conf;
}

/** /etc/multipath.conf and its drop-ins, or undefined when neither exists. */
export function readMultipathConf(host: Host): MultipathConf | undefined {
  const conf: MultipathConf = { sections: [], problems: [], files: [] };
  const main = host.readText(MULTIPATH_CONF);
  if (main !== undefined) parseMultipathConf(main, MULTIPATH_CONF, conf);
  for (const name of host
    .readDir(MULTIPATH_CONF_DIR)
    .filter((n) => n.endsWith('.conf'))
    .sort()) {
    const text = host.readText(`${MULTIPATH_CONF_DIR}/${name}`);
    if (text !== undefined) parseMultipathConf(text, `${MULTIPATH_CONF_DIR}/${name}`, conf);
  }
  return conf.files.length > 0 ? conf : undefined;
}

/** Every top-level section of that name, in reading order. */
function sectionsNamed(conf: MultipathConf, name: string): MpSection[] {
  return conf.sections.filter((s) => s.name === name);
}

/** The effective value of a `defaults` attribute (the last one read), or undefined when unset. */
export function defaultsValue(conf: MultipathConf, key: string): MpAttr | undefined {
  let found: MpAttr | undefined;
  for (const s of sectionsNamed(conf, 'defaults')) for (const a of s.attrs) if (a.key === key) found = a;
  return found;
}

/**
 * Every place an attribute is set for some devices (`devices { device { … } }`, `multipaths {
 * multipath { … } }`, `overrides { … }`): these win over `defaults` for the devices they match.
 */
export function deviceValues(conf: MultipathConf, key: string): { where: string; attr: MpAttr }[] {
  const out: { where: string; attr: MpAttr }[] = [];
  for (const s of conf.sections) {
    if (s.name === 'overrides')
      for (const a of s.attrs) if (a.key === key) out.push({ where: 'overrides', attr: a });
    if (s.name !== 'devices' && s.name !== 'multipaths') continue;
    for (const child of s.children) {
      const label =
        child.attrs.find((a) => a.key === 'vendor' || a.key === 'wwid' || a.key === 'alias')?.value ??
        child.name;
      for (const a of child.attrs) if (a.key === key) out.push({ where: `${s.name} ${label}`, attr: a });
    }
  }
  return out;
}

/** Blacklist entries (`devnode`, `wwid`, `property`, `protocol`, and `device` subsections). */
interface BlacklistEntry {
  kind: string;
  value: string;
  /** For `device`: vendor and product. */
  vendor?: string;
  product?: string;
}

export function blacklistEntries(conf: MultipathConf, section = 'blacklist'): BlacklistEntry[] {
  const out: BlacklistEntry[] = [];
  for (const s of sectionsNamed(conf, section)) {
    for (const a of s.attrs) out.push({ kind: a.key, value: a.value });
    for (const c of s.children) {
      const vendor = c.attrs.find((a) => a.key === 'vendor')?.value;
      const product = c.attrs.find((a) => a.key === 'product')?.value;
      const entry: BlacklistEntry = { kind: c.name, value: [vendor, product].filter(Boolean).join(' ') };
      if (vendor !== undefined) entry.vendor = vendor;
      if (product !== undefined) entry.product = product;
      out.push(entry);
    }
  }
  return out;
}

/**
 * Whether a device name matches a `devnode` regex as multipath-tools does (POSIX ERE, not anchored,
 * case-sensitive: multipath.conf.5 "Note on regular expressions"). JavaScript's RegExp is close
 * enough for the patterns seen in practice; a pattern it cannot compile matches nothing.
 */
export function devnodeMatches(pattern: string, device: string): boolean {
  try {
    return new RegExp(pattern).test(device);
  } catch {
    return false;
  }
}
