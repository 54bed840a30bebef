#!/bin/bash
# guest-run.sh — in the guest: set the node up once, run each scenario in its own bash with a
# timeout, reset the node after it, and leave per-scenario results on the writable results share.
# Then, with E2E_FAULTS=after (CI) or only, the fault runs on the same booted node: each scenario's
# declared fault switches (`# fault NAME: ERE` lines), one run each with E2E_FAULT=NAME, stopping at
# the first FAIL line, which must match ERE: the switch proves that its checks can fail.
#
# Usage (guest): guest-run.sh [--no-setup] [SCENARIO ...]   (default: $ONLY, comma-separated, or all)
# Result files: $RESULTS/<name>.log (everything the scenario printed) and $RESULTS/<name>.result:
#   status=PASS|FAIL|SKIP  rc=N  seconds=S.S  reason=...   (one key=value per line; the host reads them)
# A scenario exits 0 (passed), 77 (skipped, reason in $RESULTS/<name>.skip) or anything else (failed).
# Fault runs: $RESULTS/fault-<fault>.log and fault-<fault>.result:
#   status=CAUGHT|MISSED|ELSEWHERE|TIMEOUT  scenario=  rc=  seconds=  expect=  first_fail=
set -u
: "${PROJECT:?}" "${CACHE:?}"
LIB="$PROJECT/test/e2e/lib"
RESULTS="${E2E_RESULTS:-$CACHE/results}"
SCEN_TIMEOUT="${E2E_SCENARIO_TIMEOUT:-900}"
FAULTS="${E2E_FAULTS:-off}"   # off | after | only
# node's on-disk compile cache: the bundle is parsed once per boot, not once per CLI call
# (each call otherwise costs 2-4 s of TCG time).
export NODE_COMPILE_CACHE=/tmp/node-compile-cache
export PROJECT CACHE RESULTS
# shellcheck source=guest-setup.sh
source "$LIB/guest-setup.sh"
mkdir -p "$RESULTS"

setup=1
[ "${1:-}" = --no-setup ] && { setup=0; shift; }
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  if [ -n "${ONLY:-}" ]; then IFS=, read -r -a names <<<"$ONLY"
  else for f in "$PROJECT"/test/e2e/scenarios/*.sh; do n=${f##*/}; names+=("${n%.sh}"); done; fi
fi

write_result() { # name status rc seconds reason
  printf 'status=%s\nrc=%s\nseconds=%s\nreason=%s\n' "$2" "$3" "$4" "$5" > "$RESULTS/$1.result"
}

if [ $setup = 1 ]; then
  t=$(_ts)
  if ! e2e_setup_node > "$RESULTS/_setup.log" 2>&1; then
    cat "$RESULTS/_setup.log"
    for n in "${names[@]}"; do write_result "$n" FAIL 99 0 "node set-up failed (see _setup.log)"; done
    exit 1
  fi
  cat "$RESULTS/_setup.log"
  echo "setup_seconds=$(_since "$t")" > "$RESULTS/_setup.result"
  _say "node ready in $(_since "$t")s"
fi

# run_scenario NAME LOG : the scenario in its own session under the timeout; sets rc and secs
run_scenario() {
  local t; t=$(_ts)
  # setsid + timeout: a hung iscsiadm/multipath inside a scenario is killed with its whole group.
  E2E_SCENARIO="$1" timeout -k 10 "$SCEN_TIMEOUT" setsid bash "$PROJECT/test/e2e/scenarios/$1.sh" > "$2" 2>&1 </dev/null
  rc=$?
  secs=$(_since "$t")
}
reset_after() { # NAME LOG
  local t; t=$(_ts)
  { echo "--- reset after $1 ---"; e2e_reset_node; } >> "$2" 2>&1
  _say "reset after $1: $(_since "$t")s"
}

failed=0
for n in "${names[@]}"; do
  [ "$FAULTS" = only ] && break
  n=${n%.sh}; f="$PROJECT/test/e2e/scenarios/$n.sh"
  if [ ! -f "$f" ]; then write_result "$n" FAIL 2 0 "no such scenario $f"; failed=1; continue; fi
  rm -f "$RESULTS/$n.skip" /run/e2e-dirty
  _say "scenario $n: start"
  run_scenario "$n" "$RESULTS/$n.log"
  case $rc in
    0) st=PASS; why="" ;;
    77) st=SKIP; why="$(head -1 "$RESULTS/$n.skip" 2>/dev/null)" ;;
    124|137) st=FAIL; why="timed out after ${SCEN_TIMEOUT}s"; failed=1 ;;
    *) st=FAIL; why="$(grep -m1 '^FAIL' "$RESULTS/$n.log" | cut -c1-200)"; failed=1 ;;
  esac
  write_result "$n" "$st" "$rc" "$secs" "$why"
  _say "scenario $n: $st rc=$rc ${secs}s ${why}"
  # A scenario that never set up a target (00, or a skip before any change) left nothing to reset.
  [ $st != FAIL ] && [ ! -e /run/e2e-dirty ] && continue
  reset_after "$n" "$RESULTS/$n.log"
done

# ---- fault runs: every declared switch of the selected scenarios, on this same booted node ----
[ "$FAULTS" = off ] && exit $failed
for n in "${names[@]}"; do
  n=${n%.sh}; f="$PROJECT/test/e2e/scenarios/$n.sh"
  [ -f "$f" ] || continue
  while read -r fname expect; do
    [ -n "$fname" ] || continue
    log="$RESULTS/fault-$fname.log"
    _say "fault $fname ($n): start"
    E2E_FAULT="$fname" E2E_STOP_AT_FAIL=1 run_scenario "$n" "$log"
    first=$(grep -m1 '^FAIL' "$log" | cut -c1-200)
    case $rc in
      0|77) st=MISSED ;;           # passed (or skipped) with the fault on: its checks cannot fail
      124|137) st=TIMEOUT ;;
      *) if grep -m1 '^FAIL' "$log" | grep -qE -- "$expect"; then st=CAUGHT; else st=ELSEWHERE; fi ;;
    esac
    [ $st = CAUGHT ] || failed=1
    printf 'status=%s\nscenario=%s\nrc=%s\nseconds=%s\nexpect=%s\nfirst_fail=%s\n' \
      "$st" "$n" "$rc" "$secs" "$expect" "$first" > "$RESULTS/fault-$fname.result"
    _say "fault $fname ($n): $st rc=$rc ${secs}s ${first}"
    reset_after "fault $fname" "$log" </dev/null
  done < <(sed -nE 's/^# fault ([a-z0-9-]+): (.+)$/\1 \2/p' "$f")
done
exit $failed
