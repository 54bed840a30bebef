import { describe, expect, it } from 'vitest';
import { positionText } from '../../bench/lib/cursor-text.js';

// What Ink wrote to a pty for these moves (captured while writing bench/measure-console.ts): a
// status line is rewritten from its first changed character.
describe('positionText', () => {
  it('is the new position from its first changed character', () => {
    expect(positionText(1, 2)).toBe('2 of ');
    expect(positionText(14, 15)).toBe('5 of ');
    expect(positionText(19, 20)).toBe('20 of ');
    expect(positionText(9, 10)).toBe('10 of ');
    expect(positionText(10, 9)).toBe('9 of ');
  });
});
