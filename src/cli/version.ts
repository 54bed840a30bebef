/** Replaced at build time by scripts/build.mjs from package.json; the source value is for tests. */
declare const __VERSION__: string | undefined;
export const VERSION: string = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';
