#!/bin/bash
# Scenario 1 — `status --json` on a real node matches the kernel's own view.
# A single-path login (target s1, 2 LUNs, one of them formatted and mounted outside the kubelet
# root), then a two-portal multipath login (target mp) beside it, then the multipath map mounted.
# At each step the console's sessions, devices, holders, mountpoints, multipath maps and the
# portal→host map are compared with `iscsiadm -m session -P 3`, `lsblk -J` and `multipath -ll`
# taken at the same moment (compare-status.mjs), plus the verdict/health the node's state implies.
# E2E_FAULT=status-wrong-host: compare-status.mjs shifts every host number iscsiadm reported by one.
# fault status-wrong-host: A-single: status --json differs from the kernel's view
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2
OUT="$RESULTS/$SCEN"   # the real outputs, kept for the report and for fixing the simulator
mkdir -p "$OUT"

# compare STEP [--expect ...]: status --json vs iscsiadm / lsblk / multipath -ll, right now
compare() {
  local step=$1; shift
  udevadm settle --timeout=30
  if ! run_cli "status-$step" status --json; then bad "$step: status --json exited $(cat "$WORK/status-$step.rc")"; return; fi
  cp "$WORK/status-$step.out" "$OUT/$step-status.json"
  iscsiadm -m session -P 3 > "$OUT/$step-session-P3.txt" 2>&1
  lsblk -J -b -o NAME,KNAME,TYPE,SIZE,HCTL,TRAN,MAJ:MIN,MOUNTPOINTS > "$OUT/$step-lsblk.json"
  # multipath -ll can block on a path in recovery: never without a timeout
  timeout 30 multipath -ll > "$OUT/$step-multipath-ll.txt" 2>&1
  echo "--- $step: compare with the kernel's view"
  if "$NODE" "$LIB/compare-status.mjs" --status "$OUT/$step-status.json" --session-p3 "$OUT/$step-session-P3.txt" \
      --lsblk "$OUT/$step-lsblk.json" --multipath "$OUT/$step-multipath-ll.txt" "$@" > "$WORK/cmp-$step.txt"; then
    cat "$WORK/cmp-$step.txt"; ok "$step: status --json matches iscsiadm, lsblk and multipath -ll"
  else
    sed 's/^/  /' "$WORK/cmp-$step.txt"   # indented: the scenario's first FAIL line stays the one below
    bad "$step: status --json differs from the kernel's view ($(grep -c '^FAIL' "$WORK/cmp-$step.txt") mismatches)"
  fi
}

target_new 11 s1 64 32 || { bad "tgt: target s1"; finish; }
target_new 12 mp 48 || { bad "tgt: target mp"; finish; }
S1=$(iqn s1) MP=$(iqn mp)

# --- A: single path, LUN 1 formatted and mounted outside the kubelet root -> foreign
t=$(_ts)
discover "$P1" && login s1 "$P1" || bad "login s1 via $P1"
check "wait_disk s1 $P1 1 && wait_disk s1 $P1 2" "s1: both LUNs have an sd device and a by-path link"
log "single-path login to by-path links: $(_since "$t")s"
D1=$(disk_of s1 "$P1" 1)
mkfs.ext4 -F -q "/dev/$D1" && mkdir -p "$E2E_MNT/s1" && mount "/dev/$D1" "$E2E_MNT/s1" || bad "mount $D1"
compare A-single --expect "$S1|$P1=foreign/ok"
show "cat $WORK/status-A-single.err"

# --- B: plus target mp through two portals under multipathd -> one dm map with two paths
t=$(_ts)
discover "$P2" || bad "discovery via $P2"
login mp "$P1" && login mp "$P2" || bad "login mp via both portals"
check "wait_disk mp $P1 1 && wait_disk mp $P2 1" "mp: one sd device per portal"
A=$(disk_of mp "$P1" 1) B=$(disk_of mp "$P2" 1)
check "wait_for '[ -n \"\$(dm_of $A)\" ] && [ \"\$(dm_of $A)\" = \"\$(dm_of $B)\" ]' 60" "mp: $A and $B held by one dm map"
log "multipath login to dm map: $(_since "$t")s"
DM=$(dm_of "$A"); ALIAS=$(cat "/sys/block/$DM/dm/name" 2>/dev/null)
log "mp paths $A $B -> $DM ($ALIAS)"
compare B-multipath --expect "$S1|$P1=foreign/ok" --expect "$MP|$P1=stale/ok" --expect "$MP|$P2=stale/ok"

# --- C: the multipath map mounted: both paths' sessions become foreign, mounts seen through holders
mkfs.ext4 -F -q "/dev/mapper/$ALIAS" && mkdir -p "$E2E_MNT/mp" && mount "/dev/mapper/$ALIAS" "$E2E_MNT/mp" || bad "mount $ALIAS"
compare C-mp-mounted --expect "$S1|$P1=foreign/ok" --expect "$MP|$P1=foreign/ok" --expect "$MP|$P2=foreign/ok"

# the human table works on the same node
run_cli table status >/dev/null
check "[ \"\$(cat $WORK/table.rc)\" = 0 ] && grep -q \"$MP\" $WORK/table.out" "status (table) exits 0 and lists target mp"
finish
