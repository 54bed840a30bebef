/**
 * The journal read back as untrusted lines (journal-read.ts): one malformed line is that line's
 * problem, never the journal's (a bad `at`, `__proto__`, an object id, `steps` of the wrong shape),
 * and a million-entry journal is read from its end, bounded, with the entries not shown counted.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  JOURNAL_TAIL_BYTES,
  JOURNAL_TAIL_ENTRIES,
  readJournal,
  readJournalTail,
} from '../../src/engine/actions/journal-read.js';
import { FsHost } from '../../src/engine/host/fs-host.js';
import type { Host } from '../../src/engine/host/host.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function rootWith(lines: string): { host: FsHost; root: string } {
  const root = fs.mkdtempSync(join(tmpdir(), 'journal-read-'));
  roots.push(root);
  fs.mkdirSync(join(root, 'state'), { recursive: true });
  fs.writeFileSync(join(root, 'state/journal.jsonl'), lines, { mode: 0o600 });
  return { host: new FsHost({ root, runner: { mode: 'direct' } }), root };
}

const good = (id: string, phase: 'begin' | 'end' = 'begin') =>
  JSON.stringify({
    id,
    phase,
    at: '2026-11-30T04:00:00.000Z',
    who: { uid: 0, user: 'root' },
    host: 'node-a',
    hostKind: 'real',
    action: 'cleanup',
    subject: 'session 4',
    ...(phase === 'end' ? { ok: true, steps: [{ id: 'logout', status: 'done', commands: [] }] } : {}),
  });

describe('journal lines are validated one by one', () => {
  it('each malformed line is a problem of its own; the good lines are all read', () => {
    const bad = [
      good('x').replace('2026-11-30T04:00:00.000Z', 'yesterday'), // a bad `at`
      good('x').replace('"id":"x"', '"id":{"toString":1}'), // an object id
      good('x', 'end').replace('"steps":[{', '"steps":{"0":{').replace('}]}', '}}}'), // steps not a list
      '{"__proto__":{"phase":"begin"},"id":"p"}', // a prototype key, and no entry behind it
      '{"torn":',
    ];
    const text = [good('a'), ...bad, good('a', 'end'), ''].join('\n');
    const { host } = rootWith(text);
    const tail = readJournalTail(host, '/state');
    expect(tail.entries.map((e) => `${e.id} ${e.phase}`)).toEqual(['a begin', 'a end']);
    expect(tail.problems.map((p) => p.line)).toEqual([2, 3, 4, 5, 6]);
    expect(tail.problems[0]!.reason).toMatch(/at: not a time/);
    expect(tail.problems[1]!.reason).toMatch(/^not a journal entry: id:/);
    expect(tail.problems[2]!.reason).toMatch(/^not a journal entry: steps:/);
    expect(tail.problems[4]!.reason).toMatch(/not JSON/);
    expect(tail.older).toBeUndefined();
    // Parsed objects are plain copies: nothing reached a prototype.
    expect(Object.getPrototypeOf(tail.entries[0])).toBe(Object.prototype);
    expect(({} as { phase?: unknown }).phase).toBeUndefined();
    // The whole-file reader applies the same rule.
    const skipped: number[] = [];
    expect(readJournal(host, '/state', (n) => skipped.push(n)).map((e) => e.phase)).toEqual(['begin', 'end']);
    expect(skipped).toEqual([2, 3, 4, 5, 6]);
  });

  it('a 1,000,000-entry journal is read from its end, bounded, and says how many are not shown', () => {
    const block = `${Array.from({ length: 10_000 }, (_, i) => good(`e${i}`)).join('\n')}\n`;
    const root = fs.mkdtempSync(join(tmpdir(), 'journal-read-big-'));
    roots.push(root);
    fs.mkdirSync(join(root, 'state'));
    const fd = fs.openSync(join(root, 'state/journal.jsonl'), 'w', 0o600);
    for (let i = 0; i < 100; i++) fs.writeSync(fd, block);
    fs.writeSync(fd, `${good('newest', 'end')}\n`);
    fs.closeSync(fd);
    const size = fs.statSync(join(root, 'state/journal.jsonl')).size;
    expect(size).toBeGreaterThan(64 * 1024 * 1024); // beyond what the whole-file read may take

    const fsHost = new FsHost({ root, runner: { mode: 'direct' } });
    let chunkBytes = 0;
    let wholeReads = 0;
    // The same Host, counting what the read asks of it.
    const host = new Proxy(fsHost, {
      get(t, prop) {
        if (prop === 'readChunk')
          return (p: string, o: number, l: number) => {
            const r = t.readChunk(p, o, l);
            chunkBytes += r?.data.length ?? 0;
            return r;
          };
        if (prop === 'readText' || prop === 'readTextOrError') wholeReads++;
        const v = Reflect.get(t, prop);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    }) as Host;
    const tail = readJournalTail(host, '/state');
    expect(wholeReads).toBe(0);
    expect(chunkBytes).toBeLessThanOrEqual(JOURNAL_TAIL_BYTES + 1024 * 1024);
    expect(tail.entries).toHaveLength(JOURNAL_TAIL_ENTRIES);
    expect(tail.entries.at(-1)!.id).toBe('newest');
    expect(tail.problems).toEqual([]);
    const notShown = 1_000_001 - JOURNAL_TAIL_ENTRIES;
    expect(tail.older!.entries).toBeGreaterThan(notShown * 0.95);
    expect(tail.older!.entries).toBeLessThan(notShown * 1.05);
  }, 60_000);
});
