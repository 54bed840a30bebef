// TEMPORARY scratch (replaced once test/helpers/generate-fixture-root.ts lands)
import { mkdirSync, renameSync } from 'node:fs';
import { materializeSysfs } from '../test/helpers/materialize-sysfs.js';

const [dir, sessions, luns] = process.argv.slice(2);
const tmp = `${dir}.tmp`;
mkdirSync(tmp, { recursive: true });
materializeSysfs('mp-sysfs.json', tmp);
renameSync(tmp, dir!);
void sessions;
void luns;
