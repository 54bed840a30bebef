#!/bin/bash
# Scenario 8 — the interactive console in a real terminal (tmux, 140x40) on the real node: open it
# with --write, filter to the stale session, run cleanup through its confirmation, and see the result
# on screen and on the node (session gone; the in-use session and its mounts untouched).
# Keys are read from the console's own `?` help (generated from the action registry), not hard-coded.
source "$PROJECT/test/e2e/lib/common.sh"
require_env tmux   # the console runs in a real pty
P1=$E2E_PORTAL1
target_new 81 stale 32 && target_new 82 keep 32 || bad "tgt"
for v in stale keep; do
  bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$(iqn "$v")" --lun 1 --volname "vol-$v" --pod-uid "pod-$v" >/dev/null || bad "kubelet-attach $v"
done
G=$(global_fs stale "$P1" 1)
umount "$E2E_KUBELET/pods/pod-stale/volumes/kubernetes.io~iscsi/vol-stale"; rm -rf "$E2E_KUBELET/pods/pod-stale"
umount "$G"; rm -rf "$G"
S=$(sid_of stale "$P1") K=$(sid_of keep "$P1")
mounts_before=$(awk '{print $5}' /proc/self/mountinfo | grep "$E2E_KUBELET" | sort)

T="tmux -L e2e"
screen() { $T capture-pane -p -t con; }
# wait_screen REGEX SECONDS : the regex shows up on screen
wait_screen() { wait_for "screen | grep -qE -- '$1'" "$2"; }
keys() { $T send-keys -t con "$@"; sleep 0.3; }
$T new-session -d -s con -x 140 -y 40 "TERM=xterm-256color $NODE ${E2E_CLI:-$PROJECT/dist/cli.js} --write; echo CONSOLE-EXIT=\$?; sleep 600"
check "wait_screen 'stale' 60" "console opened and lists the stale target"
screen > "$WORK/screen-open.txt"; sed 's/^/  | /' "$WORK/screen-open.txt"

# the cleanup key, from the help overlay
keys '?'
check "wait_screen '[Cc]lean ?up' 20" "the ? help is open and lists cleanup"
screen > "$WORK/screen-help.txt"; sed 's/^/  | /' "$WORK/screen-help.txt"
# help rows look like `│   C            Clean up [destructive] ...`; the footer hint like `· C cleanup ·`
KEY=$(sed -nE 's/.*[[:space:]]([[:alnum:]])[[:space:]]{2,}[Cc]lean ?up.*/\1/p' "$WORK/screen-help.txt" | head -1)
[ -n "$KEY" ] || KEY=$(sed -nE 's/.*[[:space:]]([[:alnum:]]) [Cc]lean ?up.*/\1/p' "$WORK/screen-help.txt" | head -1)
keys Escape
[ -n "$KEY" ] || { bad "no key for cleanup in the ? help"; finish; }
log "cleanup key: $KEY"

# select the stale session through the filter, then cleanup it
keys '/'; keys -l "$(iqn stale)"; keys Enter
check "wait_for '! screen | grep -q \"$(iqn keep)\"' 20" "filter leaves only the stale session on screen"
keys "$KEY"
check "wait_screen '[Cc]onfirm|[Tt]ype|y/N' 30" "the cleanup plan asks for confirmation"
screen > "$WORK/screen-plan.txt"; sed 's/^/  | /' "$WORK/screen-plan.txt"
check "grep -q 'iscsiadm' $WORK/screen-plan.txt" "the plan shows the exact commands"
# typed confirmation (sid or hostname) when the dialog asks for it, else y
if grep -qE "[Tt]ype.*$S" "$WORK/screen-plan.txt"; then keys -l "$S"; keys Enter
elif grep -qE '[Tt]ype.*e2e-guest' "$WORK/screen-plan.txt"; then keys -l e2e-guest; keys Enter
else keys y; fi
check "wait_for '[ -z \"\$(sid_of stale $P1)\" ]' 90" "stale session $S logged out on the node"
# the outcome dialog replaces the progress once the last step and the verification are over
check "wait_screen 'Clean up session (succeeded|failed)' 90" "the apply finished on screen"
screen > "$WORK/screen-done.txt"; sed 's/^/  | /' "$WORK/screen-done.txt"
# the result of this cleanup: the outcome's headline, the verification naming this session, and its
# steps (the logout names the stale target, never the in-use one)
check "grep -qF '✓ Clean up session succeeded' $WORK/screen-done.txt && grep -qF 'Verified:' $WORK/screen-done.txt && grep -qF 'ok: session $S is logged out' $WORK/screen-done.txt" \
  "the console shows '✓ Clean up session succeeded' and 'Verified: ... ok: session $S is logged out'"
check "grep -qF '$(iqn stale)' $WORK/screen-done.txt && ! grep -qF '$(iqn keep)' $WORK/screen-done.txt" "the outcome's steps name the stale target and not the in-use one"
keys Escape
check "! record_exists stale $P1" "stale node record deleted"
check "[ \"\$(sid_of keep $P1)\" = $K ] && [ \"\$(awk '{print \$5}' /proc/self/mountinfo | grep '$E2E_KUBELET' | sort)\" = '$mounts_before' ]" "in-use session and kubelet mounts untouched"
keys q
check "wait_screen 'CONSOLE-EXIT=0' 20" "console quits with q, exit 0"
$T kill-server 2>/dev/null
finish
