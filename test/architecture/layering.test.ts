import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from './sources.js';

interface Import {
  spec: string;
  /** `import type` / `export type`: erased at build, no module is loaded. */
  typeOnly: boolean;
}

/** Every module a file imports (static, dynamic and re-exports), and whether only its types. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(
    /(import|export)\s(type\s)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    found.push({ spec: (m[3] ?? m[4])!, typeOnly: m[2] !== undefined });
  }
  return found;
}

/** The top-level src/ folder a relative import lands in ('engine', 'ui', ...), or undefined for packages. */
function layerOf(spec: string, file: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = relative(SRC, resolve(dirname(file), spec));
  return target.startsWith('..') ? undefined : target.split('/')[0];
}

function violations(
  layer: string,
  forbiddenPackages: RegExp,
  forbiddenLayers: readonly string[],
  /** Layers this one may import types from, and nothing else. */
  typesOnlyFrom: readonly string[] = [],
): string[] {
  return sourceFiles(join(SRC, layer)).flatMap((file) =>
    importsOf(file)
      .filter(({ spec, typeOnly }) => {
        const target = layerOf(spec, file) ?? '';
        return (
          forbiddenPackages.test(spec) ||
          forbiddenLayers.includes(target) ||
          (typesOnlyFrom.includes(target) && !typeOnly)
        );
      })
      .map(({ spec }) => `${relative(SRC, file)} imports ${spec}`),
  );
}

const UI_PACKAGES = /^(ink|react|ink-.*|react\/.*)$/;

describe('one direction of imports: node → Host → engine → watchers → app → ui', () => {
  it('the engine never imports Ink, React, the UI, the app layer, the watchers, the CLI or the simulator', () => {
    expect(violations('engine', UI_PACKAGES, ['ui', 'app', 'watchers', 'cli', 'sim', 'cli.ts'])).toEqual([]);
  });

  it('the watchers never import Ink, React, the UI, the app layer or the CLI', () => {
    expect(violations('watchers', UI_PACKAGES, ['ui', 'app', 'cli', 'cli.ts'])).toEqual([]);
  });

  it('the simulator never imports Ink, React, the UI, the app layer or the watchers', () => {
    expect(violations('sim', UI_PACKAGES, ['ui', 'app', 'watchers'])).toEqual([]);
  });

  it('the app layer never imports Ink, React, the UI or the CLI', () => {
    expect(violations('app', UI_PACKAGES, ['ui', 'cli', 'cli.ts'])).toEqual([]);
  });

  it('the UI imports the app layer, and of the engine only types; never the watchers, the CLI or the simulator', () => {
    expect(violations('ui', /^$/, ['watchers', 'cli', 'cli.ts', 'sim'], ['engine'])).toEqual([]);
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
    // A value import of the engine from the UI is caught; a type-only one is not.
    const dir = mkdtempSync(join(tmpdir(), 'ic-layering-'));
    try {
      const file = join(dir, 'x.ts');
      writeFileSync(
        file,
        "import type { Plan } from '../engine/actions/types.js';\n" +
          "import { consentFor } from '../engine/actions/consent.js';\n" +
          "export type { Snapshot } from '../engine/model.js';\n",
      );
      expect(importsOf(file)).toEqual([
        { spec: '../engine/actions/types.js', typeOnly: true },
        { spec: '../engine/actions/consent.js', typeOnly: false },
        { spec: '../engine/model.js', typeOnly: true },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
