#!/bin/bash
# Scenario 16 — the console's step-by-step attach wizard in tmux (80x24) on the real kernel, against a
# tgt target that requires session CHAP and has two LUNs, next to a target kubelet already uses:
# - portal → discovery → target (picked from the discovered list) → session CHAP → the LUN listing:
#   its plan (a temporary login), consented with y, lists both LUNs with size, vendor and model from
#   the kernel's own scan; afterwards no session, node record or SCSI device of it is left;
# - cancelled (esc back through every step) after the listing: sessions, node records, discovery
#   records, ifaces, SCSI devices and mounts exactly as before;
# - the in-use target: its LUNs are listed from the node's session, marked in use, no second session,
#   the session not logged out;
# - picking LUN 2 from the list and attaching it: session with CHAP, LUN 2's sd and by-path link, ext4
#   mounted on the kubelet global dir, kubelet's iscsi.json under it; no other LUN scanned;
# - the CHAP secret on no screen, in no journal line, on no command line: every process's argv is
#   sampled every 20 ms while the wizard lists the LUNs and while it attaches (the record reads the
#   password back masked).
# E2E_FAULT=wizard-leak leaves a record behind after the cancel: the "as before" check must then fail.
# fault wizard-leak: cancelled wizard: sessions, records, devices, ifaces and mounts as before
source "$PROJECT/test/e2e/lib/common.sh"
require_env tmux   # the console runs in a real pty
P1=$E2E_PORTAL1
USER=wizuser GOOD=W1zardS3cretGood55
target_new 161 wiz 32 48 || bad "tgt wiz"
tgtadm --lld iscsi --op new --mode account --user "$USER" --password "$GOOD"
tgtadm --lld iscsi --op bind --mode account --tid 161 --user "$USER"
target_new 162 inuse 24 || bad "tgt inuse"
bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$(iqn inuse)" --lun 1 --volname vol-inuse --pod-uid pod-inuse >/dev/null || bad "kubelet-attach inuse"
INUSE_SID=$(sid_of inuse "$P1")
rm -rf /etc/iscsi/send_targets/*   # kubelet-attach's discovery record: the wizard's listing must not make one
# kubelet-attach's discovery also wrote a node record for wiz (no CHAP): the listing must neither use
# nor change it (it goes out through an iface of its own).
check "record_exists wiz $P1" "kubelet's discovery left a node record for the wiz target"

# Everything a cancelled wizard must leave as it was.
node_state() {
  echo "sessions:"; for s in /sys/class/iscsi_session/session*; do [ -e "$s" ] && echo "  ${s##*/} $(cat "$s/targetname") $(cat "$s/state")"; done
  echo "scsi devices:"; ls /sys/class/scsi_device | sed 's/^/  /'
  echo "node records:"; find /etc/iscsi/nodes -type f -exec md5sum {} + | sort -k2 | sed 's/^/  /'
  echo "discovery records:"; find /etc/iscsi/send_targets -mindepth 1 | sort | sed 's/^/  /'
  echo "ifaces:"; ls /etc/iscsi/ifaces | sed 's/^/  /'
  echo "mounts:"; awk '{print $5}' /proc/self/mountinfo | grep "$E2E_KUBELET" | sort | sed 's/^/  /'
}
node_state > "$WORK/state-before.txt"
DEVICES_BEFORE=$(ls /sys/class/scsi_device)

T="tmux -L e2e16"
screen() { $T capture-pane -p -t con; }
snap() { screen > "$WORK/screen-$1.txt"; sed 's/^/  | /' "$WORK/screen-$1.txt"; }
wait_screen() { wait_for "screen | grep -qE -- '$1'" "$2"; }
keys() { $T send-keys -t con "$@"; sleep 0.3; }
# The harness types the secret as the admin would, with `tmux send-keys` (the keyboard): those tmux
# client command lines are the test driver's, and the only ones the argv checks below leave out.
argv_of_console() { grep -v "^tmux -L e2e16 " "$1"; }
wizard_gone() { screen > "$WORK/screen-now.txt"; grep -q inuse "$WORK/screen-now.txt" && ! grep -q 'Portal\]' "$WORK/screen-now.txt"; }
# focus_on REGEX : Down until the cursor row (`│ › ...`) matches, then Up: ↑/↓ stop at the first
# and last row (they do not wrap), so the row may be on either side of the cursor
focus_on() {
  local i k
  for k in Down Up; do
    for i in $(seq 1 30); do
      screen | grep -qE -- "^│ › .*$1" && return 0
      keys "$k"
    done
  done
  screen | grep -qE -- "^│ › .*$1"
}
# to_target NAME : a new wizard, the portal typed, discovery run, NAME's row under the cursor
to_target() {
  keys a
  wait_screen '\[1 Portal\]' 30 || return 1
  # The wizard starts from the selected row (the in-use session): clear its portal first.
  keys C-w; keys C-w
  keys -l "$P1"; keys Enter
  wait_screen '\[2 Discovery\]' 30 || return 1
  keys Enter
  wait_screen "$(iqn "$1")" 60 || return 1
  focus_on "$(iqn "$1")"
}
# chap : pick the target under the cursor, then session CHAP on with user and secret
chap() {
  keys Space
  focus_on 'Session CHAP' || return 1
  keys Space; keys Down; keys -l "$USER"; keys Down; keys -l "$GOOD"
  # [[ ]], not grep: a `grep SECRET` of the harness's own would put it on a command line while sampling
  wait_screen '••••••••' 30 && [[ "$(screen)" != *"$GOOD"* ]] || { snap chap-failed; return 1; }
}
$T new-session -d -s con -x 80 -y 24 "TERM=xterm-256color $NODE ${E2E_CLI:-$PROJECT/dist/cli.js} --write; echo CONSOLE-EXIT=\$?; sleep 600"
check "wait_screen 'inuse' 90" "console opened (80x24) and lists the in-use session"

# --- A: list the CHAP target's LUNs, then cancel the wizard ---
keys a
check "wait_screen 'pre-filled from the selected session' 30 && screen | grep -qE '› Target portal +$P1'" "a new wizard starts from the selected session's portal"
keys Escape
check "wait_for wizard_gone 30" "esc closes the new wizard"
check "to_target wiz" "wizard: portal typed, discovery lists the wiz target, cursor on it"
check "cmdline_sampling_start listing" "command-line sampling runs (the LUN listing)"
check "chap" "session CHAP on, the secret drawn masked, never in clear"
snap chap
keys Enter
check "wait_screen 'temporary login' 30" "LUN step: the listing's plan (a temporary login) is shown first"
snap listing-plan
keys y
check "wait_screen 'LUN 2 .*48M' 120" "the listing shows LUN 2 (48M)"
snap luns
show "tail -n 1 /var/log/iscsi-console/journal.jsonl | cut -c1-1500"
check "grep -qE 'LUN 1 +disk +32M +IET +VIRTUAL-DISK' $WORK/screen-luns.txt" "LUN 1 listed with size, vendor and model"
check "grep -qE 'LUN 0 +controller' $WORK/screen-luns.txt" "tgt's LUN 0 listed as a controller"
check "[ -z \"\$(sid_of wiz $P1)\" ] && ! iscsiadm -m node -T $(iqn wiz) -p $P1 -I iscsi-console-luns >/dev/null 2>&1 && [ ! -e /etc/iscsi/ifaces/iscsi-console-luns ]" "after the listing: its session logged out, its node record and its iface deleted"
check "[ \"\$(ls /sys/class/scsi_device)\" = '$DEVICES_BEFORE' ]" "after the listing: only the SCSI devices that were there before"
cmdline_sampling_stop listing
# \$GOOD, not its value: a FAIL line prints the condition
check "[ \"\$(cat $WORK/listing.cmdlines.samples)\" -gt 10 ] && grep -q 'iscsiadm .*$(iqn wiz)' $WORK/listing.cmdlines" "the sampler saw the listing's iscsiadm commands for the wiz target"
check "! argv_of_console $WORK/listing.cmdlines | grep -qF -e \"\$GOOD\"" "no CHAP secret in any /proc/*/cmdline while the wizard listed the LUNs" ||
  argv_of_console "$WORK/listing.cmdlines" | grep -F -e "$GOOD" | sed "s/$GOOD/<secret>/g; s/^/  leaked: /"
for i in 1 2 3 4; do keys Escape; done
check "wait_for wizard_gone 30" "esc back through every step closes the wizard"
fault wizard-leak && iscsiadm -m node -o new -T "$(iqn wiz)" -p "$P1" >/dev/null
node_state > "$WORK/state-cancel.txt"
check "diff -u $WORK/state-before.txt $WORK/state-cancel.txt" "cancelled wizard: sessions, records, devices, ifaces and mounts as before"

# --- B: the in-use target: listed from its session, nothing logged out ---
check "to_target inuse" "wizard again: the in-use target under the cursor"
keys Enter
check "wait_screen 'logged in to this target already' 60" "the in-use target's LUNs come from its session (no temporary login)"
snap inuse
check "grep -qE 'LUN 1 .*in use: session $INUSE_SID' $WORK/screen-inuse.txt" "LUN 1 marked in use by session $INUSE_SID"
for i in 1 2 3 4; do keys Escape; done
check "wait_for wizard_gone 30" "esc back through every step closes the wizard"
check "[ \"\$(sid_of inuse $P1)\" = '$INUSE_SID' ]" "the in-use session is still logged in"
node_state > "$WORK/state-inuse.txt"
check "diff -u $WORK/state-before.txt $WORK/state-inuse.txt" "the in-use listing changed nothing"

# --- C: pick LUN 2 from the list and attach it with CHAP ---
check "cmdline_sampling_start attach" "command-line sampling runs (the attach)"
check "to_target wiz && chap" "wizard a third time: wiz picked, session CHAP set"
keys Enter
check "wait_screen 'temporary login' 30" "the listing's plan again"
keys y
check "wait_screen 'LUN 2 .*48M' 120" "LUNs listed again"
check "focus_on 'LUN 2 '" "cursor on LUN 2"
keys Enter
check "wait_screen '\\[5 Volume\\]' 20" "volume step"
keys -l pv-wiz; keys Enter
# Format+mount has no default: ⏎ moves to it with the question, space answers yes.
check "wait_screen 'Format\\+mount\\?' 20" "Format+mount is asked, not assumed"
keys Space; keys Enter
check "wait_screen 'Plan: Attach|Attach volume' 60" "the attach plan is shown"
snap attach-plan
if grep -qE '[Tt]ype .*e2e-guest' "$WORK/screen-attach-plan.txt"; then keys -l e2e-guest; keys Enter; else keys y; fi
check "wait_screen 'Attach volume succeeded' 240" "the console reports the attach succeeded"
snap attached
cmdline_sampling_stop attach
check "[ \"\$(cat $WORK/attach.cmdlines.samples)\" -gt 10 ] && grep -q 'iscsiadm .*$(iqn wiz).*--login' $WORK/attach.cmdlines" "the sampler saw the attach's iscsiadm login to the wiz target"
check "! argv_of_console $WORK/attach.cmdlines | grep -qF -e \"\$GOOD\"" "no CHAP secret in any /proc/*/cmdline during the wizard's listing and attach" ||
  argv_of_console "$WORK/attach.cmdlines" | grep -F -e "$GOOD" | sed "s/$GOOD/<secret>/g; s/^/  leaked: /"
S=$(sid_of wiz "$P1")
G=$(global_fs wiz "$P1" 2)
check "[ -n '$S' ]" "logged in to the wiz target (session $S)"
check "iscsiadm -m node -T $(iqn wiz) -p $P1 -o show | grep -q '^node.session.auth.authmethod = CHAP'" "its node record uses CHAP"
check "iscsiadm -m node -T $(iqn wiz) -p $P1 -o show | grep -qx 'node.session.auth.password = \\*\\*\\*\\*\\*\\*\\*\\*'" "iscsiadm reads the password back masked"
D=$(disk_of wiz "$P1" 2)
check "[ -n '$D' ] && [ -e $(by_path wiz "$P1" 2) ]" "LUN 2 is $D with its by-path link"
check "[ -z \"\$(disk_of wiz $P1 1)\" ]" "LUN 1 was not scanned (only the picked LUN)"
check "mountpoint -q '$G' && [ \"\$(findmnt -n -o FSTYPE --mountpoint '$G')\" = ext4 ] && [ \"\$(mount_source '$G')\" = \"\$(majmin '$D')\" ]" "ext4 on $D mounted on the kubelet global dir"
check "[ \"\$(hidden_json '$G')\" = '$(kubelet_json pv-wiz "$P1" "$(iqn wiz)" 2)' ]" "iscsi.json under the mount is kubelet's, byte for byte"
check "[ \"\$(sid_of inuse $P1)\" = '$INUSE_SID' ]" "the in-use session is untouched"
keys Enter; keys q
check "wait_screen 'CONSOLE-EXIT=0' 30" "console quits with q, exit 0"
leaks=$(grep -rlF -e "$GOOD" "$WORK"/screen-*.txt /var/log/iscsi-console 2>/dev/null)
check "[ -z '$leaks' ]" "no CHAP secret on any screen or in the journal ${leaks:+(found in: $leaks)}"
check "grep -q '\"action\":\"list-luns\"' /var/log/iscsi-console/* 2>/dev/null" "the LUN listing is journaled like any action"
$T kill-server 2>/dev/null
finish
