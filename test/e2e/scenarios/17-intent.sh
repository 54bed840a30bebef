#!/bin/bash
# Scenario 17 — one plan per intent, and unmount only of kubelet's mounts, on the real kernel.
# (a) A two-portal multipath volume kubelet left behind (pod and global dir gone, both sessions
#     and the dm map left): in the console (tmux, --write) both sessions are marked with space and
#     logged out with L. The plan is the CLI's `logout <iqn>`: `multipath -f` before either path is
#     deleted. Afterwards no dm map is left without paths, and neither session remains.
# (b) `unmount` of a running pod's own volume mount (kubelet's bind mount of the global dir into the
#     pod) is refused with exit 3 naming the pod, and the mount is still there; `unmount /proc` is
#     refused even with --force.
source "$PROJECT/test/e2e/lib/common.sh"
command -v tmux >/dev/null || { bad "tmux is not installed in the guest (lib/prepare.sh installs it)"; finish; }
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2
target_new 171 mp 32 && target_new 172 pod 32 || bad "tgt"
IQ=$(iqn mp)
bash "$LIB/kubelet-attach.sh" --portal "$P1" --portal "$P2" --iqn "$IQ" --lun 1 --volname vol-mp --pod-uid pod-mp >/dev/null || bad "kubelet-attach mp"
bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$(iqn pod)" --lun 1 --volname vol-pod --pod-uid pod-run >/dev/null || bad "kubelet-attach pod"
A=$(disk_of mp "$P1" 1) B=$(disk_of mp "$P2" 1)
DM=$(dm_of "$A")
MAPNAME=$(cat "/sys/block/$DM/dm/name" 2>/dev/null)
check "[ -n '$DM' ] && [ \"\$(dm_of $B)\" = '$DM' ]" "mp's two paths $A, $B are one map $DM"
# The pod is deleted and kubelet's detach dies before its logout: pod dir and global dir gone, both
# sessions and the map stay (stale), nothing mounted on the map.
G=$(global_fs mp "$P1" 1)
umount "$E2E_KUBELET/pods/pod-mp/volumes/kubernetes.io~iscsi/vol-mp"; rm -rf "$E2E_KUBELET/pods/pod-mp"
umount "$G"; rm -rf "$G"
S1=$(sid_of mp "$P1") S2=$(sid_of mp "$P2") K=$(sid_of pod "$P1")
check "[ -n '$S1' ] && [ -n '$S2' ] && [ -n '$K' ]" "sessions: mp $S1 + $S2 (stale), pod $K (in use)"
PODMNT="$E2E_KUBELET/pods/pod-run/volumes/kubernetes.io~iscsi/vol-pod"
check "mountpoint -q '$PODMNT'" "the running pod's volume is mounted at $PODMNT"
# Maps with no path under them (the damage the concatenated plan did: 0-path maps hang I/O).
pathless_maps() {
  local d
  for d in /sys/block/dm-*; do
    [ -e "$d/dm/uuid" ] && grep -q '^mpath-' "$d/dm/uuid" || continue
    [ -z "$(ls "$d/slaves" 2>/dev/null)" ] && echo "${d##*/}"
  done
}
show "timeout 30 multipath -ll"

# ---- (a) the console: mark both sessions of mp, L, confirm ----
T="tmux -L e2e17"
screen() { $T capture-pane -p -t con; }
wait_screen() { wait_for "screen | grep -qE -- '$1'" "$2"; }
keys() { $T send-keys -t con "$@"; sleep 0.3; }
$T new-session -d -s con -x 160 -y 45 "TERM=xterm-256color $NODE ${E2E_CLI:-$PROJECT/dist/cli.js} --write; echo CONSOLE-EXIT=\$?; sleep 600"
check "wait_screen 'stale' 90" "console opened and lists the stale sessions"
# Actions are offered once the full read is in (the status bar then says `full read … ago`).
check "wait_screen 'full (read )?[^ ]+ ago' 120" "the full read is in (actions are planned on it)"
keys '/'; keys -l "target=$IQ"; keys Enter
check "wait_for '! screen | grep -q \"$(iqn pod)\"' 30" "filter leaves only mp's two sessions"
keys Space; keys Space
check "wait_screen '2 marked' 20" "both sessions marked"
keys l
wait_screen 'Type .* to apply on|refused|cannot' 60
screen > "$WORK/screen-plan.txt"; sed 's/^/  | /' "$WORK/screen-plan.txt"
check "grep -q 'multipath -f /dev/$DM' $WORK/screen-plan.txt" "the plan flushes $DM (multipath -f)"
check "! grep -q '×2' $WORK/screen-plan.txt" "one plan (logout <iqn>), not two concatenated"
TOKEN=$(sed -nE 's/.*Type ([^ ]+) to apply on.*/\1/p' "$WORK/screen-plan.txt" | head -1)
if [ -n "$TOKEN" ]; then
  keys -l "$TOKEN"; keys Enter
  check "wait_for '[ -z \"\$(sid_of mp $P1)\" ] && [ -z \"\$(sid_of mp $P2)\" ]' 120" "both mp sessions logged out"
  check "wait_for '! screen | grep -q \"running…\"' 120" "the apply finished on screen"
  screen > "$WORK/screen-done.txt"; sed 's/^/  | /' "$WORK/screen-done.txt"
  check "grep -qE 'Log out.* succeeded' $WORK/screen-done.txt" "the console shows the logout succeeded"
  check "[ ! -e /sys/block/$DM ] && ! timeout 30 dmsetup info '$MAPNAME' >/dev/null 2>&1" "map $MAPNAME ($DM) flushed (gone from sysfs and dmsetup)"
else
  # A refusal is the other safe outcome: then nothing may have changed.
  bad "the plan asked for no confirmation (refused?): see screen-plan"
  check "[ \"\$(sid_of mp $P1)\" = $S1 ] && [ \"\$(sid_of mp $P2)\" = $S2 ] && [ -e /sys/block/$DM ]" "refused: sessions and map unchanged"
fi
check "[ -z \"\$(pathless_maps)\" ]" "no dm map with 0 paths ($(pathless_maps | tr '\n' ' '))"
show "timeout 30 dmsetup table"
show "timeout 30 multipath -ll"
check "! timeout 30 dmsetup table | grep -E ' multipath ' | grep -qE ' 0 0 *\$'" "dmsetup table: no multipath table without path groups"
check "[ \"\$(sid_of pod $P1)\" = $K ] && mountpoint -q '$PODMNT'" "the in-use pod's session and mount untouched"
keys Escape
keys q
check "wait_screen 'CONSOLE-EXIT=0' 30" "console quits with q, exit 0"
$T kill-server 2>/dev/null

# ---- (b) unmount only kubelet's mounts ----
act unmount-pod unmount "$PODMNT"
check "[ $(rc_of unmount-pod) = 3 ]" "unmount of the pod's volume mount: refused, exit 3 (got $(rc_of unmount-pod))"
# (the plan is wrapped to the terminal: joined first; a pod with no log dir is "(name unknown)")
check "tr -s ' \\n' '  ' < $WORK/unmount-pod.err | grep -q \"pod pod-run (name unknown)'s own mount\"" "the refusal names the pod"
check "mountpoint -q '$PODMNT'" "the pod's volume mount is still there"
act unmount-proc unmount /proc --force
check "[ $(rc_of unmount-proc) = 3 ]" "unmount /proc --force: refused, exit 3 (got $(rc_of unmount-proc))"
check "grep -q 'is not a kubelet volume mount' $WORK/unmount-proc.err" "the refusal says /proc is not a kubelet volume mount"
check "mountpoint -q /proc" "/proc is still mounted"
finish
