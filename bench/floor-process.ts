/**
 * `floor-process.mjs ROOT` — the independent floor as a whole process (bench/lib/independent-floor.ts):
 * reads the facts a session → connection → LUN → device → map → mount listing needs from ROOT and
 * prints them as JSON, as `status --json --root ROOT` prints the snapshot. bench/measure-snapshot.ts
 * times the two alternately as whole processes; this file is all the floor process loads.
 */
import { readFloorFacts } from './lib/independent-floor.js';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: floor-process.mjs ROOT\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(readFloorFacts(root))}\n`);
