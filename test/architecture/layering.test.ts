import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

/** Every module specifier a file imports (static, dynamic and re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    found.push((m[1] ?? m[2])!);
  }
  return found;
}

/** The top-level src/ folder a relative import lands in ('engine', 'ui', ...), or undefined for packages. */
function layerOf(spec: string, file: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = relative(SRC, resolve(dirname(file), spec));
  return target.startsWith('..') ? undefined : target.split('/')[0];
}

function violations(layer: string, forbiddenPackages: RegExp, forbiddenLayers: readonly string[]): string[] {
  return sourceFiles(join(SRC, layer)).flatMap((file) =>
    importsOf(file)
      .filter((spec) => forbiddenPackages.test(spec) || forbiddenLayers.includes(layerOf(spec, file) ?? ''))
      .map((spec) => `${relative(SRC, file)} imports ${spec}`),
  );
}

const UI_PACKAGES = /^(ink|react|ink-.*|react\/.*)$/;

describe('one direction of imports: node → Host → engine → watchers → ui', () => {
  it('the engine never imports Ink, React, the UI, the watchers, the CLI or the simulator', () => {
    expect(violations('engine', UI_PACKAGES, ['ui', 'watchers', 'cli', 'sim', 'cli.ts'])).toEqual([]);
  });

  it('the watchers never import Ink, React or the UI', () => {
    expect(violations('watchers', UI_PACKAGES, ['ui'])).toEqual([]);
  });

  it('the simulator never imports Ink, React, the UI or the watchers', () => {
    expect(violations('sim', UI_PACKAGES, ['ui', 'watchers'])).toEqual([]);
  });

  it('the rule itself catches a violation', () => {
    // Guards against a regex that can never match (a test that cannot fail is a defect).
    const engineFile = join(SRC, 'engine/actions/apply.ts');
    expect(UI_PACKAGES.test('ink')).toBe(true);
    expect(UI_PACKAGES.test('inkwell')).toBe(false);
    expect(layerOf('../../ui/app.js', engineFile)).toBe('ui');
    expect(layerOf('../../sim/index.js', engineFile)).toBe('sim');
    expect(layerOf('../model.js', engineFile)).toBe('engine');
    expect(layerOf('execa', engineFile)).toBeUndefined();
  });
});
