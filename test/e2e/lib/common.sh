#!/bin/bash
# common.sh — sourced by every scenario (in the guest). Assertions, waits, the CLI under test, the
# fault switches and the one allowed skip, and target/initiator helpers shared by the scenarios.
# A scenario never asks the build what it offers (no `--help` parsing): it calls the documented
# interface (README.md#commands) and fails when that interface is not there.
set -u
: "${PROJECT:?run scenarios through guest-run.sh}" "${RESULTS:?}"
LIB="$PROJECT/test/e2e/lib"
# shellcheck source=guest-setup.sh
source "$LIB/guest-setup.sh"
SCEN="${E2E_SCENARIO:-$(basename "$0" .sh)}"
WORK="/tmp/e2e-$SCEN"
mkdir -p "$WORK"
NODE="$PROJECT/node_modules/.bin/node"
FAILS=0

log() { echo "[$(cut -d' ' -f1 /proc/uptime)s] $*"; }
ok() { echo "OK   $*"; }
# In a fault run (guest-run.sh, E2E_STOP_AT_FAIL=1) the first FAIL ends the scenario: that line is
# what the run is about (it must be the one the fault's declaration names), and the rest would only
# cost TCG time. EXIT traps still restore the node.
bad() {
  echo "FAIL $*"; FAILS=$((FAILS + 1))
  [ "${E2E_STOP_AT_FAIL:-0}" = 1 ] && { log "$SCEN: stopping at the first FAIL (fault run ${E2E_FAULT:-})"; exit 1; }
  return 0
}
# check 'shell condition' 'what it means'
check() { if eval "$1"; then ok "$2"; else bad "$2   [condition: $1]"; fi; }
# wait_for 'shell condition' SECONDS — polls every 0.1 s (conditions here are cheap sysfs reads)
wait_for() { _wait "$1" "$2"; }
# The scenario ends: 0 if every check held.
finish() { log "$SCEN: $FAILS failed check(s)"; [ "$FAILS" = 0 ] && exit 0; exit 1; }
# Skipped, not passed: only for an environment reason in this closed list, each one something the
# harness and CI always provide (test/e2e/README.md#skips lists them). Under CI=true the host counts a
# SKIP as a failure. Any other reason is a FAIL: "the build has no such option" is a regression, not a
# skip. guest-run.sh only resets the node after a skip if the scenario had already changed it.
declare -A E2E_SKIP_REASONS=(
  [tmux]="tmux is not installed on the host (prepare.sh and .ci/run install it)"
)
skip() { # skip REASON-ID [DETAIL]
  local id=$1; shift
  if [ -z "${E2E_SKIP_REASONS[$id]+set}" ]; then
    bad "skip for a reason that is not an allowed environment reason: '$id${*:+ $*}' (allowed: ${!E2E_SKIP_REASONS[*]})"
    finish
  fi
  echo "$id: ${E2E_SKIP_REASONS[$id]}${*:+ ($*)}" > "$RESULTS/$SCEN.skip"; echo "SKIP $id: ${E2E_SKIP_REASONS[$id]}"; exit 77
}
# require_env REASON-ID : skip unless the environment has it (the check for each allowed reason)
require_env() {
  case $1 in
    tmux) command -v tmux >/dev/null ;;
    *) false ;;
  esac || skip "$1"
}

# The CLI under test: the project's own build, on the project's pinned node.
cli() { "$NODE" "${E2E_CLI:-$PROJECT/dist/cli.js}" "$@"; }
# run_cli NAME ARGS... : stdout/stderr/exit into $WORK/NAME.{out,err,rc}, all echoed into the log.
run_cli() {
  local name=$1; shift
  local t; t=$(_ts)
  cli "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  local rc=$?
  echo "$rc" > "$WORK/$name.rc"
  echo "\$ iscsi-console $* -> exit $rc ($(_since "$t")s)"
  sed 's/^/  | /' "$WORK/$name.out" | head -n "${E2E_LOG_LINES:-60}"
  [ -s "$WORK/$name.err" ] && sed 's/^/  ! /' "$WORK/$name.err" | head -n 30
  return $rc
}
# cmdline_sampling_start NAME / cmdline_sampling_stop NAME : every process's argv (/proc/*/cmdline),
# sampled every 20 ms by lib/cmdline-sampler.mjs (one node process: a shell loop is far too slow under
# TCG to see a short iscsiadm), distinct lines into $WORK/NAME.cmdlines, the pass count in
# $WORK/NAME.cmdlines.samples. start returns non-zero if the sampler did not come up.
cmdline_sampling_start() {
  rm -f "$WORK/$1.cmdlines"*; touch "$WORK/$1.sampling"
  "$NODE" "$LIB/cmdline-sampler.mjs" "$WORK/$1.cmdlines" "$WORK/$1.sampling" &
  echo $! > "$WORK/$1.sampler-pid"
  _wait "[ -e '$WORK/$1.cmdlines.ready' ]" 60
}
cmdline_sampling_stop() {
  rm -f "$WORK/$1.sampling"; wait "$(cat "$WORK/$1.sampler-pid")" 2>/dev/null
  log "$1: $(cat "$WORK/$1.cmdlines.samples" 2>/dev/null || echo 0) cmdline samples, $(grep -c . "$WORK/$1.cmdlines" 2>/dev/null) distinct command lines"
}
# show 'command' : run a diagnostic command and put it in the log
show() { echo "\$ $1"; eval "$1" 2>&1 | sed "s/^/  | /"; }

# A deliberate fault for proving that a check can fail (E2E_FAULT=name). Every switch is declared in
# its scenario's header as `# fault NAME: ERE` (the first FAIL line the fault must produce); CI runs
# each one (guest-run.sh --faults) and fails when the scenario does not fail there.
fault() { [ "${E2E_FAULT:-}" = "$1" ] && { log "E2E_FAULT=$1 is on"; return 0; }; return 1; }

# ---- target side (tgtd) ----
IQN_PREFIX=iqn.2024-01.e2e.example
iqn() { echo "$IQN_PREFIX:$1"; }
# target_new TID NAME SIZE_MB... : target <prefix>:NAME with LUN 1..n (tgt adds LUN 0, a controller
# with no sd device). Each scenario uses its own TIDs: tgt derives the WWID from tid+lun
# (360000000000000000e0000000<tid><lun>), so distinct TIDs keep multipath's wwids apart.
target_new() {
  local tid=$1 name=$2 lun=1 size; shift 2
  touch /run/e2e-dirty
  tgtadm --lld iscsi --op new --mode target --tid "$tid" -T "$(iqn "$name")" || return 1
  for size in "$@"; do
    truncate -s "${size}M" "/tmp/e2e-t$tid-lun$lun.img"
    tgtadm --lld iscsi --op new --mode logicalunit --tid "$tid" --lun "$lun" -b "/tmp/e2e-t$tid-lun$lun.img" || return 1
    lun=$((lun + 1))
  done
  tgtadm --lld iscsi --op bind --mode target --tid "$tid" -I ALL
}
# target_gone TID : delete the target on the array, dropping its connections. tgtd refuses
# ("this logical unit is still active") while a SCSI command is queued on one of its LUNs — an ext4
# journal commit or a udev probe can be in flight — even with --force, so retry until it is gone.
target_gone() { wait_for "tgtadm --lld iscsi --op delete --mode target --tid $1 --force 2>/dev/null" 30; }
# ---- initiator side (plain iscsiadm, what an admin or kubelet would type) ----
discover() { iscsiadm -m discovery -t sendtargets -p "$1" >/dev/null; }
login() { iscsiadm -m node -T "$(iqn "$1")" -p "$2" --login >/dev/null; }
# sid_of NAME PORTAL : session id from sysfs (persistent address/port of connection 0)
sid_of() {
  local s c
  for s in /sys/class/iscsi_session/session*; do
    [ -e "$s" ] || continue
    [ "$(cat "$s/targetname")" = "$(iqn "$1")" ] || continue
    c=$(ls -d "$(readlink -f "$s/device")"/connection*/iscsi_connection/connection* 2>/dev/null | head -1)
    [ "$(cat "$c/persistent_address"):$(cat "$c/persistent_port")" = "$2" ] && { echo "${s##*session}"; return 0; }
  done
  return 1
}
# disk_of NAME PORTAL LUN : sdX of that LUN path, from sysfs
disk_of() {
  local sid b; sid=$(sid_of "$1" "$2") || return 1
  for b in "$(readlink -f /sys/class/iscsi_session/session"$sid"/device)"/target*/*:*:*:"$3"/block/*; do
    [ -e "$b" ] && { basename "$b"; return 0; }
  done
  return 1
}
by_path() { echo "/dev/disk/by-path/ip-$2-iscsi-$(iqn "$1")-lun-$3"; }
# wait_disk NAME PORTAL LUN [SECONDS] : sdX appears and udev made its by-path link
wait_disk() { wait_for "disk_of $1 $2 $3 >/dev/null && [ -e $(by_path "$1" "$2" "$3") ]" "${4:-60}"; }
# dm_of sdX : the dm-N holding it (multipath), if any
dm_of() { ls "/sys/block/$1/holders" 2>/dev/null | grep -m1 '^dm-'; }
nsessions() { ls /sys/class/iscsi_session 2>/dev/null | wc -l; }

# ---- the documented CLI surface (README.md#commands) ----
# Action commands change the node only with --write, and never prompt with --yes (README.md#commands).
act() { local name=$1; shift; run_cli "$name" "$@" --write --yes; }
# rc_of NAME : exit code of the last run_cli NAME
rc_of() { cat "$WORK/$1.rc"; }
# jq-like read of a JSON file with the project's node: jget FILE 'JS expression over d'
jget() { "$NODE" -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); const v=(0,eval)("(d)=>"+process.argv[2])(d); console.log(typeof v==="string"?v:JSON.stringify(v))' "$1" "$2"; }
# status_now NAME : `status --json` into $WORK/NAME.out
status_now() { E2E_LOG_LINES=0 run_cli "$1" status --json >/dev/null; }
# verdict/health of a session in a status document: session_field FILE SID FIELD
session_field() { jget "$1" "d.sessions.find(s=>s.sid===$2)?.$3 ?? 'absent'"; }

# ---- kubelet's layout (docs/kubelet-iscsi.md#paths) ----
PLUGIN_DIR="$E2E_KUBELET/plugins/kubernetes.io/iscsi"
global_fs() { echo "$PLUGIN_DIR/iface-${4:-default}/$2-$(iqn "$1")-lun-$3"; }        # NAME PORTAL LUN [IFACE]
global_blk() { echo "$PLUGIN_DIR/volumeDevices/iface-${4:-default}/$2-$(iqn "$1")-lun-$3"; }
# iscsi.json of a mounted FS volume lies UNDER the mount: read it through a non-recursive bind
# mount of the plugin dir, which shows the directory without the volume mounted on it (docs/kubelet-iscsi.md#iscsijson).
hidden_json() {
  local peek=/tmp/e2e-peek-$$ rel=${1#"$PLUGIN_DIR"/}
  mkdir -p "$peek" && mount --bind "$PLUGIN_DIR" "$peek" && cat "$peek/$rel/iscsi.json"
  umount "$peek"; rmdir "$peek"
}
# What kubelet writes (json.Encoder of iscsiDisk, one line): VOL PORTAL[,PORTAL] IQN LUN [IFACE]
kubelet_json() {
  local portals; portals=$(tr ',' '\n' <<<"$2" | sed 's/.*/"&"/' | paste -sd,)
  printf '{"VolName":"%s","Portals":[%s],"Iqn":"%s","Lun":"%s","InitIface":"%s","Iface":"%s","InitiatorName":"","MetricsProvider":null}\n' \
    "$1" "$portals" "$3" "$4" "${5:-default}" "${5:-default}"
}
mount_source() { findmnt -n -o MAJ:MIN --mountpoint "$1" 2>/dev/null | tr -d ' '; }
majmin() { cat "/sys/block/$1/dev" 2>/dev/null; }
record_exists() { iscsiadm -m node -T "$(iqn "$1")" -p "$2" >/dev/null 2>&1; }

# ---- comparing two runs of the console on the same node state (scenario 11, debug pod) ----
# status_same A.json B.json : the same node state in both `status --json` documents. Everything is
# compared except when and how it was read (takenAt, readMs, node.root/kind/hostname, a multipath
# topology's readAt); the first
# differences are printed as `diff <path>: <a> vs <b>`.
status_same() {
  "$NODE" -e '
    const fs = require("fs");
    const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
    for (const d of [a, b]) { delete d.takenAt; delete d.readMs; for (const k of ["root", "kind", "hostname"]) delete d.node?.[k]; for (const m of d.multipath ?? []) delete m.topology?.readAt; }
    const diffs = [];
    const walk = (x, y, p) => {
      if (JSON.stringify(x) === JSON.stringify(y)) return;
      if (x && y && typeof x === "object" && typeof y === "object")
        for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) walk(x[k], y[k], Array.isArray(x) ? `${p}[${k}]` : `${p}.${k}`);
      else diffs.push(`${p}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
    };
    walk(a, b, "");
    for (const d of diffs.slice(0, 20)) console.log(`  diff ${d}`);
    process.exit(diffs.length ? 1 : 0);' "$1" "$2"
}
# doctor_same A.json B.json : every `doctor --json` check has the same status in both (evidence may
# name different pids or namespaces); differing checks are printed with both evidences.
doctor_same() {
  "$NODE" -e '
    const fs = require("fs");
    const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")).checks);
    const byId = (l) => new Map(l.map((c) => [c.id, c]));
    const [ma, mb] = [byId(a), byId(b)];
    let bad = 0;
    for (const id of new Set([...ma.keys(), ...mb.keys()])) {
      const x = ma.get(id), y = mb.get(id);
      if (x?.status === y?.status) continue;
      bad++;
      console.log(`  diff ${id}: ${x?.status ?? "absent"} (${x?.evidence ?? ""}) vs ${y?.status ?? "absent"} (${y?.evidence ?? ""})`);
    }
    process.exit(bad ? 1 : a.length ? 0 : 1);' "$1" "$2"
}
# doctor_check FILE ID FIELD : one field (status, evidence) of one check of a `doctor --json` document
doctor_check() { jget "$1" "d.checks.find(c=>c.id==='$2')?.$3 ?? 'absent'"; }

# logout_gate: an iscsiadm wrapper in $SHIM (put it first on PATH) that, for --logout only, writes
# its pid to $GATE/started and waits for $GATE/go before it execs the real iscsiadm; every other
# call goes straight through. It makes a logout last while a scenario signals the CLI (13, 19).
# Sets SHIM, GATE and STATE (a state dir for the CLI under test).
logout_gate() {
  local real; real=$(command -v iscsiadm)
  SHIM=$WORK/shim GATE=$WORK/gate STATE=$WORK/state
  mkdir -p "$SHIM" "$GATE"
  cat > "$SHIM/iscsiadm" <<EOF
#!/bin/sh
case " \$* " in *" --logout "*)
  echo \$\$ > "$GATE/started.tmp" && mv "$GATE/started.tmp" "$GATE/started"
  while [ ! -e "$GATE/go" ]; do sleep 0.1; done ;;
esac
exec "$real" "\$@"
EOF
  chmod 755 "$SHIM/iscsiadm"
}
