/**
 * One error → exit-code mapping. The CLI's one exit point (src/cli/main.ts) leaves with
 * `exitCodeOf(e)`; a plan that fails inside applyPlan reports `toFailure(e).exitCode`, which the
 * action commands and the console show. Both must give the code README.md documents for that failure:
 * before, a file operation the node refused (HostIoError) was exit 4 from a plan and exit 1
 * "internal error" from main. The expected codes are read from README's exit-code line, not the code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toFailure } from '../../src/engine/actions/apply.js';
import {
  BugError,
  ExternalCommandError,
  exitCodeOf,
  hintOf,
  InterruptedError,
  RefusedError,
  TimeoutError,
  UserError,
} from '../../src/engine/errors.js';
import { HostIoError } from '../../src/engine/host/host.js';

/** README's "Exit codes (stable)" paragraph: code → what it says. */
function documented(): Map<number, string> {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const para = /Exit codes \(stable\):([\s\S]*?)\n\n/.exec(readme)?.[1] ?? '';
  const out = new Map<number, string>();
  for (const m of para.matchAll(/\*\*(\d+)\*\* ([^·]+)/g))
    out.set(Number(m[1]), m[2]!.replace(/\s+/g, ' ').trim());
  return out;
}

/** The documented code whose text says `words`. */
function codeFor(words: RegExp): number {
  const hits = [...documented()].filter(([, text]) => words.test(text));
  expect(hits, `one README exit code says ${words}`).toHaveLength(1);
  return hits[0]![0];
}

describe('one exit-code mapping, as README documents it', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'a file operation the node refused (EBUSY)',
      new HostIoError('write', '/sys/block/sdb/device/delete', 'EBUSY'),
      /file operation on the node failed/,
    ],
    [
      'a full disk',
      new HostIoError('append', '/var/log/iscsi-console/journal.jsonl', 'ENOSPC'),
      /file operation on the node failed/,
    ],
    [
      'a failed command',
      new ExternalCommandError('iscsiadm failed', ['iscsiadm'], 21, 'ISCSI_ERR_NO_OBJS_FOUND', '', false),
      /external command/,
    ],
    [
      'a timed-out command',
      new ExternalCommandError('iscsiadm timed out', ['iscsiadm'], null, undefined, '', true),
      /timed out/,
    ],
    ['a wait that never ended', new TimeoutError('no device'), /timed out/],
    ['a refusal', new RefusedError('in use'), /refused by a precondition/],
    ['bad input', new UserError('invalid IQN'), /usage/],
    ['an interrupt', new InterruptedError(), /interrupted/],
    ['a bug', new BugError('unreachable'), /bug/],
    ['an error outside the taxonomy', new TypeError('x is undefined'), /bug/],
  ];

  it.each(cases)('%s: the exit point and a plan failure give the documented code', (_name, e, words) => {
    const code = codeFor(words);
    expect(exitCodeOf(e)).toBe(code);
    expect(toFailure(e).exitCode).toBe(code);
  });

  it('a plan failure carries the hint the exit point prints', () => {
    const e = new HostIoError('rmdir', '/var/lib/kubelet/plugins/x', 'EBUSY');
    expect(hintOf(e)).toMatch(/busy/);
    expect(toFailure(e).hint).toBe(hintOf(e));
    expect(toFailure(e).exitName).toBe('EBUSY');
  });

  it('README documents every code the CLI can leave with', () => {
    expect([...documented().keys()]).toEqual([0, 1, 2, 3, 4, 5, 129, 130]);
  });
});
