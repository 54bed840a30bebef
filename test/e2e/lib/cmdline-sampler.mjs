// Samples every process's command line (/proc/<pid>/cmdline) every 20 ms, in one process, until the
// flag file is removed. A shell loop forks cat/tr/sleep on every pass and, under QEMU TCG, managed one
// pass a second or so, too slow to ever see a short iscsiadm. Each distinct argv is appended to OUT
// (NULs as spaces); OUT.samples gets the number of passes, OUT.ready marks that sampling started.
// Usage: node cmdline-sampler.mjs OUT FLAG
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const [out, flag] = process.argv.slice(2);
const seen = new Set();
let passes = 0;
writeFileSync(out, '');
function pass() {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || pid === String(process.pid)) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      continue; // the process ended between the listing and the read
    }
    const line = argv.replace(/\0/g, ' ').trim();
    if (line !== '' && !seen.has(line)) {
      seen.add(line);
      appendFileSync(out, `${line}\n`);
    }
  }
  passes += 1;
}
pass();
writeFileSync(`${out}.ready`, '');
const timer = setInterval(() => {
  if (existsSync(flag)) return pass();
  clearInterval(timer);
  writeFileSync(`${out}.samples`, String(passes));
}, 20);
