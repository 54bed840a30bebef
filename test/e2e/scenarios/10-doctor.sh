#!/bin/bash
# Scenario 10 — `doctor --json` on the real node, each check against evidence gathered here
# independently (pgrep, /proc/net/unix, /sys/module, the open-iscsi files, readlink of the netns
# links, findmnt, sysfs), then every check that can be broken honestly on a real kernel is broken,
# doctor is asked again, and the node is put back. Finally the console's Doctor view in tmux.
#
# How each failure is produced (and why some are faked):
# - iscsid stopped: its pids killed (with no session logged in), restarted as guest-setup.sh does.
# - iscsiadm/iscsid version mismatch: one Debian open-iscsi cannot give a real mismatch. doctor
#   obtains the versions by running `iscsiadm --version` and `iscsid --version` through the Host
#   (PATH lookup), so a script printing "iscsid version 2.0.874" is bind-mounted over the iscsid
#   binary the guest's PATH resolves (the running iscsid is untouched); then a script that exits 1
#   (iscsid silent → warn); then doctor with a PATH holding no open-iscsi (container without it).
#   A real daemon/binary mismatch IS produced too: iscsid restarted from a copy that is then
#   deleted, the /proc/<pid>/exe state an open-iscsi upgrade without restart leaves.
# - node.startup=automatic, a CHAP secret, a differing replacement_timeout: `iscsiadm -m node -o
#   update` on a real record; an empty record file: a record created with `-o new`, then truncated.
# - recovery_tmo "off" on the live session through sysfs (the kernel's own override).
# - /boot on iSCSI: an iSCSI LUN formatted and mounted at /boot.
# - kubelet: a volume attached the kubelet way (kubelet-attach.sh), then a process whose comm is
#   `kubelet` (a copy of bash named kubelet, waiting on a sleep, with --root-dir on its argv).
# - network namespace: doctor under `unshare --net` (and `iscsiadm -m session` there exits 20:
#   the abstract socket is per netns), and again with --exec nsenter.
# - initiator name missing / malformed: the file moved aside / rewritten, then restored.
# - multipathd and udevd stopped; iscsi_tcp, scsi_transport_iscsi, dm_multipath unloaded (possible
#   only with no session, iscsid stopped — its NETLINK_ISCSI socket pins scsi_transport_iscsi — and
#   multipathd stopped); "no modules for the running kernel": doctor in a private mount namespace
#   with a tmpfs over /lib/modules, as on a node whose kernel was updated without a reboot.
# Not produced: iscsid running without its socket (a running iscsid always holds it, and iscsid in
# another netns cannot open NETLINK_ISCSI, which the kernel registers in init_net only, so it exits);
# iscsid.socket activation by PID 1 (no systemd in the guest); / on iSCSI (the guest's root is the
# 9p+overlay root; /boot exercises the same code path).
# E2E_FAULT=doctor-no-break: every break is skipped, so every expected warn/fail must FAIL.
# fault doctor-no-break: A: iscsi.versions is 'pass', expected fail
source "$PROJECT/test/e2e/lib/common.sh"
require_env tmux   # the Doctor view in the console
CLIJS="${E2E_CLI:-$PROJECT/dist/cli.js}"
P1=$E2E_PORTAL1 P2=$E2E_PORTAL2
SECRET=E2eDoctorChapSecret42
OUT="$RESULTS/$SCEN"
mkdir -p "$OUT"

# ---- doctor runs and their reading ----
# One node start turns each report into `id<TAB>status<TAB>evidence<TAB>hint` lines (+ summary):
# bash then greps it (every node start costs seconds under TCG).
DOC_TSV='const fs=require("fs");const d=JSON.parse(fs.readFileSync(process.argv[1],"utf8"));
const c=(s)=>String(s??"").replace(/[\t\n]/g," ");
let o=d.checks.map((k)=>[k.id,k.status,c(k.evidence),c(k.hint),c(k.title)].join("\t")).join("\n");
const s=d.summary;o+="\nsummary\t"+[s.pass,s.warn,s.fail,s.skip,s.ok].join(" ")+"\n";fs.writeFileSync(process.argv[2],o);'
# doctor NAME [WRAPPER...] [-- DOCTOR-ARGS...] : `doctor --json` (under WRAPPER) into $WORK/NAME.*
doctor() {
  local name=$1 wrap=() args=() t rc; shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do wrap+=("$1"); shift; done
  [ "${1:-}" = -- ] && { shift; args=("$@"); }
  t=$(_ts)
  "${wrap[@]}" "$NODE" "$CLIJS" doctor --json "${args[@]}" > "$WORK/$name.json" 2> "$WORK/$name.err"
  rc=$?; echo $rc > "$WORK/$name.rc"
  cp "$WORK/$name.json" "$OUT/$name.json"
  "$NODE" -e "$DOC_TSV" "$WORK/$name.json" "$WORK/$name.tsv" 2>> "$WORK/$name.err" || : > "$WORK/$name.tsv"
  echo "\$ ${wrap[*]} iscsi-console doctor --json ${args[*]} -> exit $rc ($(_since "$t")s)"
  awk -F'\t' '{printf "  | %-28s %-5s %s\n", $1, $2, $3}' "$WORK/$name.tsv"
  [ -s "$WORK/$name.err" ] && sed 's/^/  ! /' "$WORK/$name.err" | head -n 10
  # into bash arrays: the assertions below then fork nothing (each fork is slow under TCG)
  local id sts e h tt
  while IFS=$'\t' read -r id sts e h tt; do R_ST["$name:$id"]=$sts; R_EV["$name:$id"]=$e; R_HI["$name:$id"]=$h; done < "$WORK/$name.tsv"
}
declare -A R_ST R_EV R_HI
st() { echo "${R_ST["$1:$2"]:-}"; }
ev() { echo "${R_EV["$1:$2"]:-}"; }
hint() { echo "${R_HI["$1:$2"]:-}"; }
# expect RUN ID STATUS WHY : doctor's status of check ID in RUN
expect() {
  local s=${R_ST["$1:$2"]:-}
  if [ "$s" = "$3" ]; then ok "$1: $2 $3 — $4"
  else bad "$1: $2 is '${s:-absent}', expected $3 — $4 (evidence: ${R_EV["$1:$2"]:-})"; fi
}
# evi RUN ID TEXT : the check's evidence contains TEXT
evi() {
  local e=${R_EV["$1:$2"]:-}
  if [[ -n "$3" && "$e" == *"$3"* ]]; then ok "$1: $2 evidence names '$3'"
  else bad "$1: $2 evidence lacks '$3' (got: $e)"; fi
}
# exit code convention (src/cli/commands/doctor.ts): 0 when no check failed, 3 (refused) when one did
expect_rc() {
  local rc nfail; rc=$(cat "$WORK/$1.rc"); nfail=$(awk -F'\t' '$1!="summary" && $2=="fail"' "$WORK/$1.tsv" | wc -l)
  local want=0; [ "$nfail" -gt 0 ] && want=3
  check "[ '$rc' = '$want' ] && [ -s '$WORK/$1.tsv' ]" "$1: exit $rc with $nfail failed check(s) (0 iff none failed, else 3)"
}
# brk 'shell command' WHAT : break the node (skipped under E2E_FAULT=doctor-no-break)
brk() {
  if fault doctor-no-break; then log "E2E_FAULT=doctor-no-break: not breaking ($2)"; return 0; fi
  log "break: $2"; eval "$1" || bad "could not break the node: $2   [$1]"
}
no_secret() { check "! grep -rqF -- '$SECRET' $* 2>/dev/null" "no CHAP secret in $*"; }

# ---- restoring: every case restores inline; this is the safety net (also on a failed run) ----
BINDS=() KPID="" BOOT_MOUNTED=0
start_udevd() { pgrep -x systemd-udevd >/dev/null || /lib/systemd/systemd-udevd --daemon --resolve-names=never; }
start_iscsid() {
  pgrep -x iscsid >/dev/null && return 0
  iscsid && _wait 'iscsiadm -m session >/dev/null 2>&1; [ $? -ne 20 ]' 30
}
start_multipathd() { pgrep -x multipathd >/dev/null || { multipathd; _wait 'multipathd show status >/dev/null 2>&1' 60; }; }
unbind_all() { local m; for m in "${BINDS[@]}"; do umount "$m" 2>/dev/null; done; BINDS=(); }
stop_kubelet() {
  [ -n "$KPID" ] || return 0
  local kids; kids=$(cat /proc/"$KPID"/task/*/children 2>/dev/null)
  kill "$KPID" $kids 2>/dev/null; _wait "[ ! -e /proc/$KPID ]" 10; KPID=""
}
restore() {
  unbind_all; stop_kubelet
  [ $BOOT_MOUNTED = 1 ] && umount /boot && BOOT_MOUNTED=0
  [ -f "$WORK/initiatorname.iscsi" ] && cp "$WORK/initiatorname.iscsi" /etc/iscsi/initiatorname.iscsi
  start_udevd
  modprobe -a scsi_transport_iscsi iscsi_tcp dm_multipath dm_round_robin dm_service_time
  start_iscsid; start_multipathd
  udevadm settle --timeout=30
}
trap restore EXIT

cp /etc/iscsi/initiatorname.iscsi "$WORK/initiatorname.iscsi"

# =========================== H: the healthy node, with a session ===========================
target_new 101 doc 32 32 || bad "tgt: target doc"
discover "$P1" && login doc "$P1" || bad "login doc via $P1"
check "wait_disk doc $P1 1 && wait_disk doc $P1 2" "doc: both LUNs have an sd device and a by-path link"
SID=$(sid_of doc "$P1")
doctor H
expect_rc H
check "[ \"\$(awk -F'\t' '\$1!=\"summary\"' $WORK/H.tsv | wc -l)\" = 27 ] && ! grep -q '^internal\.' $WORK/H.tsv" "H: 27 checks, none an internal error"
read -r sp sw sf ss sok <<<"$(awk -F'\t' '$1=="summary"{print $2}' "$WORK/H.tsv")"
cnt() { awk -F'\t' -v s="$2" '$1!="summary" && $2==s' "$WORK/$1.tsv" | wc -l; }
check "[ '$sp $sw $sf $ss' = '$(cnt H pass) $(cnt H warn) $(cnt H fail) $(cnt H skip)' ] && [ '$sok' = \"\$([ $(cnt H fail) = 0 ] && echo true || echo false)\" ]" "H: summary counts match the checks"

# iscsid: pids from pgrep, the abstract socket in this netns's /proc/net/unix
IPIDS=$(pgrep -x iscsid | sort -n | paste -sd, | sed 's/,/, /g')
if [ -n "$IPIDS" ] && grep -q ' @ISCSIADM_ABSTRACT_NAMESPACE$' /proc/net/unix; then expect H iscsid.running pass "pgrep: $IPIDS, socket in /proc/net/unix"
else expect H iscsid.running fail "pgrep iscsid: '${IPIDS}'"; fi
evi H iscsid.running "pid $IPIDS"
evi H iscsid.running "socket @ISCSIADM_ABSTRACT_NAMESPACE"
# versions: the tools' own answers
ADM_V=$(iscsiadm --version 2>&1 | awk '/version/{print $NF}') D_V=$(iscsid --version 2>&1 | awk '/version/{print $NF}')
if [ -n "$ADM_V" ] && [ "$ADM_V" = "$D_V" ]; then expect H iscsi.versions pass "iscsiadm $ADM_V = iscsid $D_V"
else expect H iscsi.versions fail "iscsiadm '$ADM_V' vs iscsid '$D_V'"; fi
evi H iscsi.versions "iscsiadm $ADM_V, iscsid $D_V"
# modules: /sys/module
mod_expect() { # RUN MODULE : pass iff /sys/module/MODULE exists
  if [ -d "/sys/module/$2" ]; then expect "$1" "module.$2" pass "/sys/module/$2 exists"
  else expect "$1" "module.$2" warn "/sys/module/$2 absent, /lib/modules/$(uname -r) present"; fi
}
for m in iscsi_tcp scsi_transport_iscsi dm_multipath; do mod_expect H $m; done
# initiator name: the file, and a valid lower-case iqn
INAME=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi | tail -1)
if [[ "$INAME" =~ ^iqn\.[0-9]{4}-[0-9]{2}\.[a-z0-9.-]+(:[^[:space:]]*)?$ ]]; then expect H initiator.name pass "InitiatorName=$INAME"
else expect H initiator.name fail "InitiatorName='$INAME'"; fi
evi H initiator.name "$INAME"
# daemons
MPD=$(pgrep -x multipathd | head -1) UDD=$(pgrep -x systemd-udevd | head -1)
[ -n "$MPD" ] && expect H multipathd.running pass "multipathd pid $MPD" || expect H multipathd.running warn "no multipathd"
[ -n "$MPD" ] && evi H multipathd.running "multipathd pid $MPD"
[ -n "$UDD" ] && expect H udevd.running pass "systemd-udevd pid $UDD" || expect H udevd.running fail "no udevd"
[ -n "$UDD" ] && evi H udevd.running "systemd-udevd pid $UDD"
# network namespace: this shell's and PID 1's (doctor's own /proc/self is the node process, a child
# of this shell in the same netns)
NS_SELF=$(readlink /proc/self/ns/net) NS_INIT=$(readlink /proc/1/ns/net)
[ "$NS_SELF" = "$NS_INIT" ] && expect H netns.host pass "$NS_SELF = $NS_INIT" || expect H netns.host fail "$NS_SELF != $NS_INIT"
evi H netns.host "$NS_INIT"
# the session's portal: its state and its connection's, straight from sysfs
[ "$(cat /sys/class/iscsi_session/session$SID/state)" = LOGGED_IN ] && expect H sessions.portals pass "session$SID LOGGED_IN" || expect H sessions.portals fail "session$SID not logged in"
# kubelet
[ -d "$E2E_KUBELET" ] && expect H kubelet.root pass "$E2E_KUBELET is a directory" || expect H kubelet.root warn "$E2E_KUBELET missing"
if pgrep -x kubelet >/dev/null; then expect H kubelet.running pass "kubelet runs"; else expect H kubelet.running warn "pgrep -x kubelet: none"; fi
# kubelet.volumes passes whatever the volumes (kubelet owning them is a node's normal state); its
# evidence says which. Here none: the reset left no kubelet tree (checked here, not assumed).
check "[ -z \"\$(find $E2E_KUBELET/plugins/kubernetes.io/iscsi $E2E_KUBELET/pods -mindepth 1 2>/dev/null)\" ]" "H: no iSCSI plugin or pod dir under $E2E_KUBELET"
expect H kubelet.volumes pass "no iSCSI volume dirs under $E2E_KUBELET"
evi H kubelet.volumes "no iSCSI volumes under $E2E_KUBELET"
# node records: the files iscsiadm wrote
NREC=$(find /etc/iscsi/nodes -type f | wc -l)
NAUTO=$(grep -rlE '^node\.startup = (automatic|onboot)$' /etc/iscsi/nodes 2>/dev/null | wc -l)
[ "$NAUTO" = 0 ] && expect H node-records.startup pass "$NREC record(s), none automatic" || expect H node-records.startup warn "$NAUTO automatic"
evi H node-records.startup "$NREC node record"
NEMPTY=$(find /etc/iscsi/nodes -type f -empty | wc -l)
[ "$NEMPTY" = 0 ] && expect H node-records.intact pass "no empty record file" || expect H node-records.intact warn "$NEMPTY empty"
# replacement_timeout: iscsid.conf, the records, the sessions' recovery_tmo in sysfs
CONF_TMO=$(sed -nE 's/^[[:space:]]*node\.session\.timeo\.replacement_timeout[[:space:]]*=[[:space:]]*([^[:space:]]+).*/\1/p' /etc/iscsi/iscsid.conf | tail -1)
REC_TMOS=$(grep -rh '^node.session.timeo.replacement_timeout = ' /etc/iscsi/nodes | awk '{print $3}' | sort -u | paste -sd' ')
SESS_TMO=$(cat /sys/class/iscsi_session/session"$SID"/recovery_tmo)
log "replacement_timeout: iscsid.conf '$CONF_TMO', records '$REC_TMOS', session$SID recovery_tmo '$SESS_TMO'"
if [ "$REC_TMOS" = "${CONF_TMO:-120}" ] && [ "$SESS_TMO" -gt 0 ] 2>/dev/null; then expect H timeouts.replacement pass "all ${CONF_TMO:-120}"
else expect H timeouts.replacement warn "differ or not positive"; fi
evi H timeouts.replacement "iscsid.conf ${CONF_TMO:-unset}"
evi H timeouts.replacement "sessions recovery_tmo $SESS_TMO (1)"
# root and /boot: is the mounted block device under an iscsi session in sysfs?
on_iscsi() { local mm; mm=$(findmnt -n -o MAJ:MIN --mountpoint "$1" 2>/dev/null | tail -1 | tr -d ' '); [ -n "$mm" ] && readlink -f "/sys/dev/block/$mm" 2>/dev/null | grep -q '/session[0-9]*/'; }
log "/ is $(findmnt -n -o SOURCE,FSTYPE,MAJ:MIN --mountpoint / | tail -1); /boot: $(findmnt -n -o SOURCE,FSTYPE --mountpoint /boot | tail -1)"
if on_iscsi / || on_iscsi /boot; then expect H root.iscsi warn "on iSCSI"; else expect H root.iscsi pass "neither / nor /boot is on an iSCSI disk"; fi
no_secret "$WORK/H.json"

# Each later run breaks several INDEPENDENT checks at once (every doctor start costs 10-20 s of
# TCG time); each check is still asserted against its own break and its own evidence.
DBIN=$(readlink -f "$(command -v iscsid)")
printf '#!/bin/sh\necho "iscsid version 2.0.874"\n' > "$WORK/fake-iscsid"
printf '#!/bin/sh\necho "iscsid: unrecognized option" >&2\nexit 1\n' > "$WORK/silent-iscsid"
chmod +x "$WORK/fake-iscsid" "$WORK/silent-iscsid"
GHOST=$(iqn ghost)
D1=$(disk_of doc "$P1" 1)

# =========================== A: versions, records, /boot, a kubelet volume, initiator name ===========================
brk 'mount --bind "$WORK/fake-iscsid" "$DBIN" && BINDS+=("$DBIN")' "iscsid --version says 2.0.874 (bind mount over $DBIN)"
log "iscsid --version now: $(iscsid --version 2>&1); iscsiadm --version: $(iscsiadm --version 2>&1)"
brk 'iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n node.startup -v automatic' "node.startup=automatic on doc $P1"
brk 'iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n node.session.timeo.replacement_timeout -v 15' "replacement_timeout 15 on doc $P1"
# CHAP on the record (never used to log in here): the secret must reach no output
for kv in authmethod=CHAP username=e2euser "password=$SECRET"; do
  iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n "node.session.auth.${kv%%=*}" -v "${kv#*=}"
done
check "grep -rqF '$SECRET' /etc/iscsi/nodes" "the record holds the CHAP secret (so not finding it in output means something)"
brk 'iscsiadm -m node -o new -T "$GHOST" -p "$P2" >/dev/null && : > "$(find /etc/iscsi/nodes/"$GHOST" -type f | head -1)"' "an empty record file for $GHOST"
brk 'mkfs.ext4 -F -q "/dev/$D1" && mkdir -p /boot && mount "/dev/$D1" /boot && BOOT_MOUNTED=1' "/boot on $D1 (session$SID)"
brk 'echo "InitiatorName=not-an-iscsi-name" > /etc/iscsi/initiatorname.iscsi' "malformed initiator name"
bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$(iqn doc)" --lun 2 --volname vol-doc --pod-uid pod-doc >/dev/null || bad "kubelet-attach doc lun 2"
show "grep -rE '^node.startup|replacement_timeout' /etc/iscsi/nodes; find /etc/iscsi/nodes -type f -empty; findmnt /boot"
doctor A
expect A iscsi.versions fail "iscsiadm $ADM_V vs a faked iscsid 2.0.874"
evi A iscsi.versions "iscsiadm $ADM_V, iscsid 2.0.874"
expect A iscsid.running pass "the running iscsid is untouched by the bind mount"
expect A node-records.startup warn "$(grep -rlE '^node\.startup = automatic$' /etc/iscsi/nodes | wc -l) record(s) with node.startup = automatic"
evi A node-records.startup "$(iqn doc) $P1"
check "hint A node-records.startup | grep -qF -- '-o update -n node.startup -v manual'" "A: the automatic-startup hint is the iscsiadm update command"
EMPTYF=$(find /etc/iscsi/nodes -type f -empty | head -1)
expect A node-records.intact warn "empty file ${EMPTYF:-none}"
[ -n "$EMPTYF" ] && evi A node-records.intact "$EMPTYF"
expect A timeouts.replacement warn "record 15 differs from iscsid.conf ${CONF_TMO:-120}"
evi A timeouts.replacement "15 (1)"
expect A root.iscsi warn "/boot is $(findmnt -n -o SOURCE --mountpoint /boot | tail -1), under session$SID in sysfs"
evi A root.iscsi "/boot on $D1 (session$SID)"
expect A initiator.name fail "'not-an-iscsi-name' is no iqn/eui/naa name"
evi A initiator.name "not-an-iscsi-name"
expect A kubelet.running warn "no kubelet process yet"
expect A kubelet.volumes pass "a volume, but no kubelet to race"
evi A kubelet.volumes "1 global dir ($(iqn doc) lun 2)"
expect_rc A
no_secret "$WORK/A.json" "$WORK/A.err"

# ---- the Doctor view in the console (tmux 140x40), on this same node state ----
T="tmux -L e2e-doc"
screen() { $T capture-pane -p -t con; }
# polled every 0.5 s: each poll forks tmux+grep, which competes with the console under TCG
wait_screen() { local end=$(( $(date +%s) + $2 )); until screen | grep -qE -- "$1"; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.5; done; }
keys() { $T send-keys -t con "$@"; }
t=$(_ts)
$T new-session -d -s con -x 140 -y 40 "TERM=xterm-256color $NODE $CLIJS; echo CONSOLE-EXIT=\$?; sleep 600"
# the TARGET column elides the middle of a long IQN (its head and tail stay): match the tail
check "wait_screen ':doc' 120" "console opened (read-only) and lists the session"
log "console up in $(_since "$t")s"
keys ':'; check "wait_screen '⏎ run' 30" "command palette open (its key hints on screen)"
keys -l doctor; keys Enter
read -r rp rw rf rs _ <<<"$(awk -F'\t' '$1=="summary"{print $2}' "$WORK/A.tsv")"
check "wait_screen 'Doctor +$rp ok · $rw warnings? · $rf failed · $rs skipped' 120" "Doctor view: summary '$rp ok · $rw warnings · $rf failed · $rs skipped' as doctor --json said"
screen > "$WORK/screen-doctor.txt"; cp "$WORK/screen-doctor.txt" "$OUT/screen-doctor.txt"
sed 's/^/  | /' "$WORK/screen-doctor.txt"
# every check on screen with the symbol of its status in doctor --json
missing=""
while IFS=$'\t' read -r id sts _ _ title; do
  [ "$id" = summary ] && continue
  case $sts in pass) sym='✓' ;; warn) sym='!' ;; fail) sym='✗' ;; *) sym='-' ;; esac
  grep -qF -- "$sym $title" "$WORK/screen-doctor.txt" || missing="$missing $id($sts)"
done < "$WORK/A.tsv"
check "[ -z '$missing' ]" "every check is on screen with its status symbol (missing:${missing:- none})"
check "grep -qE '↳ fix +iscsiadm -m node -p [^ ]+ -T $(iqn doc)' $WORK/screen-doctor.txt" "the automatic-startup fix is on screen, under its check"
check "grep -qF 'iscsid 2.0.874' $WORK/screen-doctor.txt" "the version mismatch evidence is on screen"
no_secret "$WORK/screen-doctor.txt"
keys q
check "wait_screen 'CONSOLE-EXIT=0' 30" "console quits with q, exit 0"
log "Doctor view part: $(_since "$t")s"
$T kill-server 2>/dev/null
# back: iscsid binary, records (doc manual + conf timeout, no CHAP, no ghost), /boot, initiator name
unbind_all
check "[ \"\$(iscsid --version 2>&1 | awk '{print \$NF}')\" = '$D_V' ] && ! findmnt -n '$DBIN' >/dev/null" "iscsid binary restored (no bind mount)"
iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n node.startup -v manual
iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n node.session.timeo.replacement_timeout -v "${CONF_TMO:-120}"
iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n node.session.auth.authmethod -v None
iscsiadm -m node -T "$(iqn doc)" -p "$P1" -o update -n node.session.auth.password -v ""
rm -rf "/etc/iscsi/nodes/$GHOST"
[ $BOOT_MOUNTED = 1 ] && umount /boot && BOOT_MOUNTED=0
cp "$WORK/initiatorname.iscsi" /etc/iscsi/initiatorname.iscsi

# =========================== B: iscsid silent, recovery_tmo off, kubelet running, no initiator name, netns + nsenter ===========================
# A REAL running-daemon/binary mismatch: iscsid restarted from a copy of itself that is then
# deleted, so /proc/<pid>/exe ends in " (deleted)" exactly as after an open-iscsi upgrade without
# a restart (the daemon iscsiadm talks to is no longer the binary `iscsid --version` runs). The
# copy lives in a dir of its own so its comm stays `iscsid`. The session survives the restart.
replace_iscsid() {
  mkdir -p "$WORK/old" && cp "$DBIN" "$WORK/old/iscsid" || return 1
  kill $(pgrep -x iscsid) && _wait '! pgrep -x iscsid >/dev/null' 30 || return 1
  "$WORK/old/iscsid" && _wait 'iscsiadm -m session >/dev/null 2>&1; [ $? -ne 20 ]' 30 || return 1
  rm -f "$WORK/old/iscsid"
}
brk replace_iscsid "iscsid running from a deleted binary"
OLD_PIDS=$(pgrep -x iscsid | paste -sd' ')
for p in $OLD_PIDS; do log "iscsid pid $p exe: $(readlink /proc/"$p"/exe)"; done
brk 'mount --bind "$WORK/silent-iscsid" "$DBIN" && BINDS+=("$DBIN")' "iscsid --version exits 1"
TMOF=/sys/class/iscsi_session/session$SID/recovery_tmo
# The kernel refuses recovery_tmo writes with EBUSY while the session is FAILED, FREE or UNBOUND
# (scsi_transport_iscsi.c, store_priv_session_recovery_tmo), which it can briefly be while the
# iscsid restarted just above takes the session over: retry the write until the kernel takes it.
brk "wait_for 'echo off 2>/dev/null > $TMOF' 60" "recovery_tmo off on session$SID (the kernel's sysfs override)"
SESS_OFF=$(cat "$TMOF"); log "$TMOF now reads '$SESS_OFF'"
brk 'mv /etc/iscsi/initiatorname.iscsi "$WORK/initiatorname.moved"' "initiatorname.iscsi missing"
# a process the kernel calls `kubelet` (comm = basename of the executed file), --root-dir on its argv
cp /bin/bash "$WORK/kubelet"
if ! fault doctor-no-break; then
  setsid "$WORK/kubelet" -c 'sleep 900 & wait' kubelet "--root-dir=$E2E_KUBELET" </dev/null >/dev/null 2>&1 &
  KPID=$!
  wait_for "[ \"\$(cat /proc/$KPID/comm 2>/dev/null)\" = kubelet ]" 10 || bad "fake kubelet did not start"
fi
log "kubelet pid ${KPID:-none}: $(tr '\0' ' ' < /proc/"${KPID:-0}"/cmdline 2>/dev/null)"
# in a new network namespace, but every command through nsenter into PID 1's namespaces
if fault doctor-no-break; then doctor B -- --exec nsenter; else doctor B unshare --net -- --exec nsenter; fi
expect B iscsi.versions warn "iscsid --version exit 1 (through nsenter): cannot compare"
evi B iscsi.versions "iscsid exit 1"
for p in $OLD_PIDS; do
  [[ "$(readlink /proc/"$p"/exe)" == *' (deleted)' ]] && evi B iscsi.versions "running iscsid pid $p is $WORK/old/iscsid (deleted)"
done
check "[ -n \"\$(sid_of doc $P1)\" ]" "the session survived iscsid's restart"
expect B timeouts.replacement warn "session$SID recovery_tmo reads '$SESS_OFF': I/O queued forever"
evi B timeouts.replacement "recovery_tmo $SESS_OFF (1)"
expect B initiator.name fail "/etc/iscsi/initiatorname.iscsi missing"
expect B kubelet.running pass "pgrep -x kubelet: $(pgrep -x kubelet | paste -sd,)"
evi B kubelet.running "kubelet pid $KPID"
expect B kubelet.volumes pass "kubelet runs and owns vol-doc (the normal state)"
evi B kubelet.volumes "kubelet pid $KPID owns 1 global dir"
expect B kubelet.root pass "--root-dir $E2E_KUBELET = --kubelet-root"
expect B netns.host pass "other netns, but --exec nsenter runs commands in PID 1's"
evi B netns.host "via --exec nsenter"
expect B root.iscsi pass "/boot unmounted again"
expect B node-records.startup pass "record back to manual"
expect_rc B
unbind_all
# the installed iscsid back (the session stays; iscsid picks it up again)
kill $OLD_PIDS 2>/dev/null; _wait '! pgrep -x iscsid >/dev/null' 30; start_iscsid
check "pgrep -x iscsid >/dev/null && [ \"\$(readlink /proc/\$(pgrep -x iscsid | head -1)/exe)\" = '$DBIN' ]" "iscsid runs the installed binary again"
wait_for "echo '$SESS_TMO' 2>/dev/null > $TMOF" 60   # EBUSY while iscsid takes the session over, as above
check "[ \"\$(cat $TMOF)\" = '$SESS_TMO' ]" "recovery_tmo back to $SESS_TMO"
cp "$WORK/initiatorname.iscsi" /etc/iscsi/initiatorname.iscsi; rm -f "$WORK/initiatorname.moved"
check "cmp -s $WORK/initiatorname.iscsi /etc/iscsi/initiatorname.iscsi" "initiator name file restored"
# kubelet's own detach (it logs the session out once no global dir uses it, and deletes the record)
bash "$LIB/kubelet-detach.sh" --pod-dir "$E2E_KUBELET/pods/pod-doc/volumes/kubernetes.io~iscsi/vol-doc" "$(global_fs doc "$P1" 2)" > "$WORK/kdetach.log" 2>&1 \
  || bad "kubelet-detach of vol-doc (see $WORK/kdetach.log)"
[ -z "$(sid_of doc "$P1")" ] || iscsiadm -m node -T "$(iqn doc)" -p "$P1" --logout >/dev/null || bad "logout doc"
check "wait_for '[ \"\$(nsessions)\" = 0 ]' 30" "no session left (iscsid may stop, the modules may go)"
# (not `-m session`: that lists sessions from sysfs without iscsid and exits 21 with none; discovery
# asks iscsid first, captures err-discovery-without-iscsid.txt: "could not connect to iscsid", exit 20)
unshare --net iscsiadm -m discovery -t sendtargets -p "$P1" > "$WORK/netns-disc.txt" 2>&1; urc=$?
sed 's/^/  | /' "$WORK/netns-disc.txt" | head -5
check "[ $urc = 20 ] && grep -q 'connect to iSCSI daemon' $WORK/netns-disc.txt" "from a new netns iscsiadm cannot reach the host's iscsid (exit $urc, 20 = cannot connect): a foreign netns is a real failure"

# =========================== C: daemons stopped, modules unloaded, wrong kubelet root, no open-iscsi on PATH ===========================
brk 'kill $(pgrep -x iscsid) && _wait "! pgrep -x iscsid >/dev/null" 30' "iscsid stopped"
iscsiadm -m discovery -t sendtargets -p "$P1" >/dev/null 2>&1; irc=$?
log "iscsiadm discovery with iscsid stopped: exit $irc"
brk 'kill $(pgrep -x multipathd) && _wait "! pgrep -x multipathd >/dev/null" 30' "multipathd stopped"
brk 'udevadm control --exit && _wait "! pgrep -x systemd-udevd >/dev/null" 30' "udevd stopped"
if ! fault doctor-no-break; then
  # modprobe -r also takes the now unused dependencies (libiscsi_tcp, libiscsi); iscsid's
  # NETLINK_ISCSI socket pinned scsi_transport_iscsi until iscsid stopped
  modprobe -r iscsi_tcp || log "could not unload iscsi_tcp (refcnt $(cat /sys/module/iscsi_tcp/refcnt 2>/dev/null))"
  modprobe -r scsi_transport_iscsi || log "could not unload scsi_transport_iscsi (refcnt $(cat /sys/module/scsi_transport_iscsi/refcnt 2>/dev/null), holders: $(ls /sys/module/scsi_transport_iscsi/holders 2>/dev/null | paste -sd' '))"
  modprobe -r dm_service_time dm_round_robin dm_multipath || log "could not unload dm_multipath (refcnt $(cat /sys/module/dm_multipath/refcnt 2>/dev/null))"
fi
check "[ ! -d /sys/module/iscsi_tcp ]" "iscsi_tcp unloaded (no session, no iscsid)"
log "still loaded: $(for m in iscsi_tcp scsi_transport_iscsi dm_multipath; do [ -d /sys/module/$m ] && printf '%s ' $m; done)"
# PATH without open-iscsi (a container image without it): the runner keeps a given PATH
if fault doctor-no-break; then doctor C -- --kubelet-root /srv/kubelet
else doctor C env PATH=/nonexistent -- --kubelet-root /srv/kubelet; fi
expect C iscsid.running fail "pgrep -x iscsid: none; iscsiadm discovery exit $irc"
evi C iscsid.running "no iscsid in /proc/*/comm"
expect C multipathd.running warn "pgrep -x multipathd: none"
expect C udevd.running fail "pgrep -x systemd-udevd: none"
for m in iscsi_tcp scsi_transport_iscsi dm_multipath; do mod_expect C $m; done
evi C module.iscsi_tcp "no /sys/module/iscsi_tcp (not loaded)"
expect C iscsi.versions fail "no iscsiadm on PATH=/nonexistent"
evi C iscsi.versions "iscsiadm not found"
expect C kubelet.root fail "kubelet --root-dir $E2E_KUBELET, console told /srv/kubelet"
evi C kubelet.root "--root-dir $E2E_KUBELET"
expect_rc C
stop_kubelet
check "! pgrep -x kubelet >/dev/null" "fake kubelet gone"

# =========================== M: no modules for the running kernel, foreign netns ===========================
# /lib/modules hidden by a tmpfs in a private mount namespace (unshare --mount makes mounts
# private: nothing leaks to the node), as on a node whose kernel was updated without a reboot;
# in a new network namespace with --exec direct: netlink and iscsid's socket are out of reach
if fault doctor-no-break; then doctor M
else doctor M unshare --net --mount sh -c 'mount -t tmpfs none /lib/modules && exec "$@"' sh; fi
expect M module.iscsi_tcp fail "no /sys/module/iscsi_tcp and no /lib/modules/$(uname -r)"
evi M module.iscsi_tcp "no /lib/modules/$(uname -r) for the running kernel"
expect M netns.host fail "doctor in a new network namespace, host's is $NS_INIT, --exec direct"
evi M netns.host "host $NS_INIT (--exec direct)"
expect_rc M
check "[ -d /lib/modules/$(uname -r)/kernel ]" "the node's /lib/modules is untouched"

# =========================== F: everything back: doctor as on the healthy node ===========================
restore
check "pgrep -x iscsid >/dev/null && pgrep -x multipathd >/dev/null && pgrep -x systemd-udevd >/dev/null" "iscsid, multipathd, udevd running again"
check "[ -d /sys/module/iscsi_tcp ] && [ -d /sys/module/scsi_transport_iscsi ] && [ -d /sys/module/dm_multipath ] && [ -d /sys/class/iscsi_transport/tcp ]" "modules loaded again, tcp transport registered"
check "! findmnt -n '$DBIN' >/dev/null && ! mountpoint -q /boot" "no bind mount over iscsid, /boot not mounted"
doctor F
# timeouts.replacement-layout judges the sessions' recovery_tmo against their paths: H has the doc
# session, F (after restore) has none, so there it is not applicable (skip) by design.
diff <(awk -F'\t' '$1!="summary" && $1!="timeouts.replacement-layout"{print $1, $2}' "$WORK/H.tsv") <(awk -F'\t' '$1!="summary" && $1!="timeouts.replacement-layout"{print $1, $2}' "$WORK/F.tsv") > "$WORK/HF.diff"
check "[ ! -s $WORK/HF.diff ] && [ -s $WORK/F.tsv ]" "every check's status as on the healthy node ($(tr '\n' ' ' < "$WORK/HF.diff"))"
expect_rc F
no_secret "$WORK"/*.json "$WORK"/*.err
finish
