import { describe, expect, it } from 'vitest';
import { lazyModule } from '../../src/engine/lazy-module.js';

describe('lazyModule', () => {
  it('imports once on first load, and get() throws until then', async () => {
    let imports = 0;
    const m = lazyModule('the test module', async () => {
      imports += 1;
      return { answer: 42 };
    });
    expect(imports).toBe(0);
    expect(() => m.get()).toThrow('the test module is not loaded yet');
    const [a, b] = await Promise.all([m.load(), m.load()]);
    expect(a).toBe(b);
    expect(imports).toBe(1);
    expect(m.get().answer).toBe(42);
  });
});
