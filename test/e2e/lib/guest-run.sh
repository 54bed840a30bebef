#!/bin/bash
# guest-run.sh — in the guest: set the node up once, run each scenario in its own bash with a
# timeout, reset the node after it, and leave per-scenario results on the writable results share.
#
# Usage (guest): guest-run.sh [--no-setup] [SCENARIO ...]   (default: $ONLY, comma-separated, or all)
# Result files: $RESULTS/<name>.log (everything the scenario printed) and $RESULTS/<name>.result:
#   status=PASS|FAIL|SKIP  rc=N  seconds=S.S  reason=...   (one key=value per line; the host reads them)
# A scenario exits 0 (passed), 77 (skipped, reason in $RESULTS/<name>.skip) or anything else (failed).
set -u
: "${PROJECT:?}" "${CACHE:?}"
LIB="$PROJECT/test/e2e/lib"
RESULTS="${E2E_RESULTS:-$CACHE/results}"
SCEN_TIMEOUT="${E2E_SCENARIO_TIMEOUT:-900}"
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

failed=0
for n in "${names[@]}"; do
  n=${n%.sh}; f="$PROJECT/test/e2e/scenarios/$n.sh"
  if [ ! -f "$f" ]; then write_result "$n" FAIL 2 0 "no such scenario $f"; failed=1; continue; fi
  rm -f "$RESULTS/$n.skip" /run/e2e-dirty
  _say "scenario $n: start"
  t=$(_ts)
  # setsid + timeout: a hung iscsiadm/multipath inside a scenario is killed with its whole group.
  E2E_SCENARIO="$n" timeout -k 10 "$SCEN_TIMEOUT" setsid bash "$f" > "$RESULTS/$n.log" 2>&1 </dev/null
  rc=$?
  secs=$(_since "$t")
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
  t=$(_ts)
  { echo "--- reset after $n ---"; e2e_reset_node; } >> "$RESULTS/$n.log" 2>&1
  _say "reset after $n: $(_since "$t")s"
done
exit $failed
