#!/bin/bash
# run.sh — `npm run test:e2e`: the console against a real Linux kernel, iSCSI initiator and target.
#
# Boots Debian's stock kernel under QEMU (TCG: KVM aborts or hangs on these machines) with the host
# root shared read-only over virtio-9p and a tmpfs overlay; the guest runs the project's own build
# (dist/cli.js) with the host's node, open-iscsi, tgt, multipath-tools and udev. The guest has no
# network device (-nic none): initiator and target talk over the guest's loopback only.
#
# Usage: test/e2e/run.sh [--only NAME[,NAME...]] [--shell] [--no-build]
#   --only 01-status      run only these scenarios (file names under test/e2e/scenarios, no .sh)
#   --shell               interactive root shell in the guest on this terminal (node already set up)
#   --no-build            reuse dist/cli.js as it is
# Env: E2E_TIMEOUT (hard QEMU limit, s, default 3600), E2E_SCENARIO_TIMEOUT (per scenario, s, 900),
#      E2E_MEM (MiB, 2048), E2E_SMP (2), E2E_FAULT (break one check on purpose, see README),
#      E2E_RESULTS (host dir for this run's results and console log, default .cache/e2e/results).
set -euo pipefail
E2E="$(cd "$(dirname "$0")" && pwd)"
PROJECT="$(cd "$E2E/../.." && pwd)"
CACHE="$(cd "$PROJECT/.cache/e2e" && pwd -P)"
# E2E_RESULTS: this run's own results dir (the guest's one writable share), so two harness users
# (the e2e suite and bench:vm) never empty each other's; default .cache/e2e/results.
RESULTS="${E2E_RESULTS:-$CACHE/results}"
ONLY="" MODE=run BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="$2"; shift 2 ;;
    --only=*) ONLY="${1#--only=}"; shift ;;
    --shell) MODE=shell; shift ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$PROJECT" in *' '*) echo "the project path must not contain spaces (kernel command line)" >&2; exit 2 ;; esac
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
T0=$(now)

t=$(now)
bash "$E2E/lib/prepare.sh"
echo "[e2e] prepare: $(since "$t")s"
if [ $BUILD = 1 ]; then
  t=$(now)
  # The single executable too: the guest runs it with an empty PATH, as on a node without Node.js.
  (cd "$PROJECT" && npm run --silent build && npm run --silent build:binary)
  echo "[e2e] build: $(since "$t")s"
fi
[ -f "$PROJECT/dist/cli.js" ] || { echo "[e2e] dist/cli.js missing: run npm run build" >&2; exit 2; }

rm -rf "$RESULTS"; mkdir -p "$RESULTS"
KVER="$(cat "$CACHE/KVER")"
TIMEOUT="${E2E_TIMEOUT:-3600}"
# Scenario names, for the summary (and to notice the ones a dead guest never reported).
SCEN=()
if [ -n "$ONLY" ]; then IFS=, read -r -a SCEN <<<"$ONLY"
else for f in "$E2E"/scenarios/*.sh; do n=${f##*/}; SCEN+=("${n%.sh}"); done; fi

# The kernel command line carries the paths and options into the guest (no network, no env).
# modprobe.blacklist keeps q35's SATA/SMBus drivers out, so iSCSI sessions get host0, host1, ...
APPEND="console=ttyS0 panic=-1 quiet loglevel=4 modprobe.blacklist=ahci,ata_piix,i2c_i801,lpc_ich"
APPEND="$APPEND e2e.project=$PROJECT e2e.cache=$CACHE e2e.mode=$MODE"
[ -n "$ONLY" ] && APPEND="$APPEND e2e.only=$ONLY"
[ -n "${E2E_FAULT:-}" ] && APPEND="$APPEND e2e.fault=$E2E_FAULT"
# E2E_CLI: run another bundle than dist/cli.js (an absolute host path visible to the guest, not under /tmp)
[ -n "${E2E_CLI:-}" ] && APPEND="$APPEND e2e.cli=$E2E_CLI"
[ -n "${E2E_SCENARIO_TIMEOUT:-}" ] && APPEND="$APPEND e2e.scenario_timeout=$E2E_SCENARIO_TIMEOUT"
QEMU=(qemu-system-x86_64 -machine q35 -accel tcg,thread=multi,tb-size=512 -cpu max
  -smp "${E2E_SMP:-2}" -m "${E2E_MEM:-2048}"
  -nodefaults -no-user-config -display none -nic none -no-reboot
  -chardev stdio,id=con0,signal=off -serial chardev:con0
  -kernel "$CACHE/kernel/boot/vmlinuz-$KVER" -initrd "$CACHE/initramfs.cpio.gz" -append "$APPEND"
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
  -virtfs "local,path=$RESULTS,mount_tag=results,security_model=none,multidevs=remap")

if [ $MODE = shell ]; then
  echo "[e2e] interactive guest (serial console); 'exit' powers it off"
  "${QEMU[@]}"
  exit $?
fi

CONSOLE="$RESULTS/console.log"
echo "[e2e] booting $KVER under QEMU TCG (hard limit ${TIMEOUT}s); console: $CONSOLE"
t=$(now)
set +e
# The guest's own lines ([guest ...], E2E-*) are shown live; the whole console goes to the log.
timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>&1 | tee "$CONSOLE" | grep --line-buffered -E '^\[guest|^E2E-|Kernel panic|^\[initramfs\]'
qrc=${PIPESTATUS[0]}
set -e
echo "[e2e] qemu exited rc=$qrc after $(since "$t")s"
[ "$qrc" = 124 ] && echo "[e2e] QEMU killed at the hard limit of ${TIMEOUT}s"
ready=$(grep -o 'E2E-GUEST-READY uptime=[0-9.]*' "$CONSOLE" | cut -d= -f2 || true)
[ -n "$ready" ] && echo "[e2e] guest userspace ready at ${ready} guest uptime"
[ -f "$RESULTS/_setup.result" ] && echo "[e2e] node set-up: $(cut -d= -f2 "$RESULTS/_setup.result")"

# Summary: one row per scenario, then the plain count line CI reads.
pass=0 fail=0 skip=0
printf '\n%-22s %-5s %4s %8s  %s\n' SCENARIO RESULT RC SECONDS "REASON / LOG"
for n in "${SCEN[@]}"; do
  r="$RESULTS/$n.result"
  if [ -f "$r" ]; then
    st=$(sed -n 's/^status=//p' "$r"); rc=$(sed -n 's/^rc=//p' "$r")
    secs=$(sed -n 's/^seconds=//p' "$r"); why=$(sed -n 's/^reason=//p' "$r")
  else
    st=FAIL rc=- secs=- why="no result: the guest stopped before this scenario finished (see $CONSOLE)"
  fi
  case $st in PASS) pass=$((pass+1)) ;; SKIP) skip=$((skip+1)) ;; *) fail=$((fail+1)) ;; esac
  [ -z "$why" ] && why="$RESULTS/$n.log"
  printf '%-22s %-5s %4s %8s  %s\n' "$n" "$st" "$rc" "$secs" "$why"
done
# Failed scenarios: show the tail of their log right here, CI logs are all anyone will see.
for n in "${SCEN[@]}"; do
  if ! grep -qx 'status=PASS\|status=SKIP' "$RESULTS/$n.result" 2>/dev/null && [ -f "$RESULTS/$n.log" ]; then
    echo; echo "---- last lines of $n.log ----"; tail -n 40 "$RESULTS/$n.log"
  fi
done
if [ "$qrc" != 0 ] && [ "$fail" = 0 ]; then
  # Every scenario reported, but the guest did not power off cleanly: still a failure.
  fail=1; echo "qemu rc=$qrc: the guest did not finish cleanly (see $CONSOLE)"
fi
echo
echo "[e2e] whole run: $(since "$T0")s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$qrc" = 0 ]
