import { posix } from 'node:path';
import { describe, expect, test } from 'vitest';
import { relativeLink } from '../../src/sim/tree.js';

describe('relativeLink: symlink targets relative like sysfs makes them', () => {
  const cases: [string, string][] = [
    ['/sys/class/iscsi_host/host0', '/sys/devices/platform/host0/iscsi_host/host0'],
    ['/sys/devices/platform/host0/iscsi_host/host0/device', '/sys/devices/platform/host0'],
    ['/sys/block/sda', '/sys/devices/platform/host0/session1/target0:0:0/0:0:0:1/block/sda'],
    [
      '/sys/devices/virtual/block/dm-0/slaves/sda',
      '/sys/devices/platform/host0/session1/target0:0:0/0:0:0:1/block/sda',
    ],
    ['/a/b/link', '/a/b/c/d'],
    ['/a/b/link', '/a/b/t'],
    ['/a/b/c/link', '/a/x'],
  ];
  test.each(cases)('%s -> %s equals path.relative + join', (from, to) => {
    const expected = posix.join(posix.relative(posix.dirname(from), posix.dirname(to)), posix.basename(to));
    expect(relativeLink(from, to)).toBe(expected);
  });

  test('a link to an ancestor names it, never ends in ..', () => {
    expect(
      relativeLink('/sys/devices/platform/host0/scsi_host/host0/device', '/sys/devices/platform/host0'),
    ).toBe('../../../host0');
  });
});
