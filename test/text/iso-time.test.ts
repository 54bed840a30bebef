import { describe, expect, it } from 'vitest';
import { isoTime, utcStamp } from '../../src/engine/text/time.js';

// The reference is the platform's own Date.prototype.toISOString: isoTime must be that string.
describe('isoTime', () => {
  const times = [
    0,
    1,
    999,
    Date.UTC(2026, 11, 3, 15, 28, 29, 42),
    Date.UTC(2026, 0, 1, 0, 0, 0, 5),
    Date.UTC(1999, 11, 31, 23, 59, 59, 999),
    Date.UTC(2024, 1, 29, 12, 0, 0, 100),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    -1,
    -62_167_219_200_000, // 0000-01-01
    1_764_000_000_123.7, // a fraction of a millisecond is dropped, as toISOString drops it
  ];
  it.each(times)('%d gives what toISOString gives', (ms) => {
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('years outside 0000–9999 keep the extended form', () => {
    expect(isoTime(Date.UTC(10000, 0, 1))).toBe('+010000-01-01T00:00:00.000Z');
    expect(isoTime(-62_167_219_200_001)).toBe('-000001-12-31T23:59:59.999Z');
  });

  it('a time that is not one throws as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it('utcStamp, built on it, is unchanged', () => {
    expect(utcStamp(Date.UTC(2026, 11, 3, 15, 28, 29, 42))).toBe('2026-12-03 15:28:29 UTC');
  });
});
