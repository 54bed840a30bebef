import { describe, expect, it } from 'vitest';
import { byPathLunName, byPathName, parseByPathLun, parseByPathName } from '../../src/engine/iscsi/lun.js';
import { iscsiNameKind, iscsiNameProblem, isValidIscsiName } from '../../src/engine/iscsi/names.js';
import {
  formatPortal,
  kubeletPortal,
  normalizePortal,
  parsePortal,
  portalHostMapKeys,
  stripBrackets,
} from '../../src/engine/iscsi/portal.js';

describe('portal parse/format', () => {
  it('parses every form the stack uses', () => {
    expect(parsePortal('127.0.0.1:3260')).toEqual({ address: '127.0.0.1', port: 3260, family: 'ipv4' });
    expect(parsePortal('127.0.0.1:3260,1')).toEqual({
      address: '127.0.0.1',
      port: 3260,
      tpgt: 1,
      family: 'ipv4',
    });
    expect(parsePortal('10.0.0.1')).toEqual({ address: '10.0.0.1', port: undefined, family: 'ipv4' });
    expect(parsePortal('[fd00::1]:3260')).toEqual({ address: 'fd00::1', port: 3260, family: 'ipv6' });
    expect(parsePortal('[fd00::1]')).toEqual({ address: 'fd00::1', port: undefined, family: 'ipv6' });
    expect(parsePortal('fd00::1')).toEqual({ address: 'fd00::1', port: undefined, family: 'ipv6' });
    expect(parsePortal('[fe80::1%eth0]:3260,-1')).toEqual({
      address: 'fe80::1%eth0',
      port: 3260,
      tpgt: -1,
      family: 'ipv6',
    });
    expect(parsePortal('san-a.example.com:860')).toEqual({
      address: 'san-a.example.com',
      port: 860,
      family: 'hostname',
    });
  });
  it('rejects garbage', () => {
    for (const bad of [
      '',
      '1.2.3.4:0',
      '1.2.3.4:70000',
      '[fd00::1',
      '[fd00::1]3260',
      'a b:3260',
      '1.2.3.4:x',
      '[10.0.0.1]:3260',
      'x,y',
    ]) {
      expect(parsePortal(bad), bad).toBeUndefined();
    }
  });
  it('formats with brackets for IPv6 only and normalises', () => {
    expect(formatPortal('fd00::1', 3260)).toBe('[fd00::1]:3260');
    expect(formatPortal('[fd00::1]', 3260)).toBe('[fd00::1]:3260');
    expect(formatPortal('10.0.0.1', '3260')).toBe('10.0.0.1:3260');
    expect(normalizePortal('FD00::1')).toBe('[fd00::1]:3260');
    expect(normalizePortal('10.0.0.1')).toBe('10.0.0.1:3260');
    expect(normalizePortal('not a portal')).toBe('not a portal');
    expect(stripBrackets('[::1]')).toBe('::1');
    expect(kubeletPortal('10.0.0.1')).toBe('10.0.0.1:3260');
    expect(kubeletPortal('[fd00::1]')).toBe('[fd00::1]'); // kubelet appends no port to a bracketed v6
  });
  it('gives kubelet portal→host map keys in both forms for IPv6', () => {
    expect(portalHostMapKeys('10.0.0.1', '3260')).toEqual(['10.0.0.1:3260']);
    expect(portalHostMapKeys('fd00::1', '3260')).toEqual(['fd00::1:3260', '[fd00::1]:3260']);
  });
});

describe('iSCSI names', () => {
  it('validates iqn, eui and naa', () => {
    expect(iscsiNameKind('iqn.2024-01.lab.example:storage.target1')).toBe('iqn');
    expect(iscsiNameKind('iqn.1993-08.org.debian:01:labguest0001')).toBe('iqn');
    expect(iscsiNameKind('eui.02004567A425678D')).toBe('eui');
    expect(iscsiNameKind('naa.52004567BA64678D')).toBe('naa');
    expect(iscsiNameKind('naa.60000000000000000e00000000010001')).toBe('naa');
    expect(isValidIscsiName('iqn.2024-13.x:y')).toBe(false);
    expect(isValidIscsiName('eui.123')).toBe(false);
    expect(isValidIscsiName(`iqn.2024-01.x:${'a'.repeat(230)}`)).toBe(false);
  });
  it('explains what is wrong', () => {
    expect(iscsiNameProblem('iqn.2024-01.lab.example:t')).toBeUndefined();
    expect(iscsiNameProblem('')).toMatch(/empty/);
    expect(iscsiNameProblem('iqn.24-01.x')).toMatch(/iqn\.YYYY-MM/);
    expect(iscsiNameProblem('eui.12')).toMatch(/16 hex/);
    expect(iscsiNameProblem('target1')).toMatch(/starts with iqn\., eui\. or naa\./);
    expect(iscsiNameProblem('iqn.2024-01.x y')).toMatch(/whitespace/);
  });
});

describe('by-path LUN naming (udev path_id format_lun_number)', () => {
  it('uses lun-N below 256 and the 0x form above', () => {
    expect(byPathLunName(0)).toBe('lun-0');
    expect(byPathLunName(255)).toBe('lun-255');
    expect(byPathLunName(256)).toBe('lun-0x0100000000000000');
    expect(byPathLunName(0x12345)).toBe('lun-0x2345000100000000');
    for (const n of [0, 1, 255, 256, 16383, 0x12345]) expect(parseByPathLun(byPathLunName(n))).toBe(n);
    expect(parseByPathLun('lun-x')).toBeUndefined();
  });
  it('builds and parses the whole link name (IPv6 unbracketed, as sysfs shows it)', () => {
    const iqn = 'iqn.2024-01.lab.example:storage.target1';
    expect(byPathName('127.0.0.1', 3260, iqn, 1)).toBe(`ip-127.0.0.1:3260-iscsi-${iqn}-lun-1`);
    // Target LUN 300 is kernel LUN 16684: the link is built from the kernel's number.
    expect(byPathName('[fd00::1]', 3260, iqn, 16684)).toBe(
      `ip-fd00::1:3260-iscsi-${iqn}-lun-0x412c000000000000`,
    );
    expect(parseByPathName(`ip-fd00::1:3260-iscsi-${iqn}-lun-0x412c000000000000`)).toEqual({
      address: 'fd00::1',
      port: 3260,
      iqn,
      lun: 16684,
    });
    expect(parseByPathName(`pci-0000:00:00.0-ip-10.0.0.1:3260-iscsi-${iqn}-lun-2-part1`)).toEqual({
      pci: 'pci-0000:00:00.0',
      address: '10.0.0.1',
      port: 3260,
      iqn,
      lun: 2,
      partition: 1,
    });
    expect(parseByPathName('virtio-pci-0000:00:05.0')).toBeUndefined();
  });
});
