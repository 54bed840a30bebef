#!/bin/bash
# Scenario 11 — distribution on the real node: the single executable with no Node.js, and the image's
# runtime stage run as `kubectl debug node/<n>` would run it, minus the container engine.
# 1. dist/iscsi-console with `env -i` (no PATH) and every node binary masked: --version,
#    `status --json` equal to `node dist/cli.js status --json` on the same state, `doctor --json` with
#    the same check results.
# 2. The pod: a Debian bookworm minbase root (prepare.sh debootstraps it; what debian:bookworm-slim is
#    made of) with the executable at /usr/local/bin/iscsi-console, run in its own mount namespace
#    (the host's PID namespace, hostPID) with the host's / at /host, chrooted into the pod root:
#    `--root /host --exec nsenter` and `--exec chroot` give the same status and doctor results as the
#    direct run, and a targeted LUN scan through the pod is done by the host's kernel.
# 3. The pod in its own network namespace too (the DaemonSet: no hostNetwork, /host read-only):
#    status still the same; doctor passes netns.host under nsenter but fails it under chroot; a
#    `logout` through nsenter reaches the host's iscsid (a plain iscsiadm from that netns cannot).
source "$PROJECT/test/e2e/lib/common.sh"
P1=$E2E_PORTAL1
SEA="$PROJECT/dist/iscsi-console"
POD="$CACHE/podroot"
[ -x "$SEA" ] || { bad "no single executable at $SEA (npm run build:binary; run.sh builds it without --no-build)"; finish; }
[ -f "$POD/.e2e-ready" ] || { bad "no pod root at $POD (test/e2e/lib/prepare.sh debootstraps it)"; finish; }
log "pod root: $(cat "$POD/.e2e-ready"), $(. "$POD/etc/os-release" && echo "$PRETTY_NAME")"
# E2E_FAULT=debug-pod: the pods run `--exec direct` where nsenter was asked (the pod root has no
# open-iscsi, so every host command must fail), and the first pod status document is altered.
# fault debug-pod: pod \(?--exec direct\)?: (scan|status|doctor|logout)
NSENTER=nsenter
fault debug-pod && NSENTER=direct
OUT="$RESULTS/$SCEN"
mkdir -p "$OUT"

# ---- the node state every run must agree on: one stale session (LUNs scanned by hand through the
# pods) and one kubelet-attached, mounted volume (in-use: kubelet dirs and mounts read under /host)
target_new 111 pod 32 32 && target_new 112 podk 32 || bad "tgt"
discover "$P1"
iscsiadm -m node -T "$(iqn pod)" -p "$P1" -o update -n node.session.scan -v manual
login pod "$P1" || bad "login pod"
SID=$(sid_of pod "$P1")
bash "$LIB/kubelet-attach.sh" --portal "$P1" --iqn "$(iqn podk)" --lun 1 --volname vol-podk --pod-uid pod-podk >/dev/null 2>"$WORK/kattach.log" \
  || { cat "$WORK/kattach.log"; bad "kubelet-attach podk"; }
K=$(sid_of podk "$P1")
log "sessions: pod=$SID (manual scan, no LUN) podk=$K (kubelet volume)"

# ---- 1. the single executable on a node without Node.js ----
# Every node binary is replaced by /dev/null (exec fails) in a private mount namespace.
NODES=$(for n in /usr/bin/node /usr/bin/nodejs /usr/local/bin/node "$NODE" $(type -ap node nodejs); do
  [ -e "$n" ] && readlink -f "$n"; done | sort -u | tr '\n' ' ')
log "node binaries masked: $NODES"
# no_node CMD... : CMD with no node reachable and an empty environment (what `env -i` leaves)
no_node() {
  unshare --mount --propagation private -- bash -c 'for n in $1; do mount --bind /dev/null "$n" || exit 97; done; shift; exec env -i "$@"' \
    no-node "$NODES" "$@"
}
# sea NAME ARGS... : the executable that way, outputs into $WORK/NAME.{out,err,rc}
sea() {
  local name=$1 t rc; shift
  t=$(_ts)
  no_node "$SEA" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  rc=$?; echo $rc >"$WORK/$name.rc"
  echo "\$ env -i iscsi-console $* -> exit $rc ($(_since "$t")s, no node)"
  sed 's/^/  | /' "$WORK/$name.out" | head -c 600; echo
  [ -s "$WORK/$name.err" ] && sed 's/^/  ! /' "$WORK/$name.err" | head -n 20
  return 0
}
no_node /bin/sh -c 'for n in node nodejs; do command -v $n && exit 1; done; for n in '"$NODES"'; do $n -e 0 2>/dev/null && exit 1; done; exit 0'
check "[ $? = 0 ]" "no node on PATH and no node binary executable in the masked namespace"
show "ldd $SEA"

# ---- 2. the debug pod ----
t=$(_ts)
install -D -m 0755 "$SEA" "$POD/usr/local/bin/iscsi-console" || bad "copy the executable into the pod root"
log "executable copied into the pod root in $(_since "$t")s"
check "[ -x $POD/usr/bin/nsenter ] && [ -x $POD/usr/sbin/chroot ]" "the pod root has util-linux nsenter and coreutils chroot"
check "[ ! -e $POD/usr/sbin/iscsiadm ] && [ ! -e $POD/usr/bin/iscsiadm ] && [ ! -e $POD/usr/bin/node ]" "the pod root has no open-iscsi and no node"
mkdir -p "$POD/host"
# pod NAME [--net] [--ro] -- ARGS... : the console as a debug pod runs it. A new mount namespace (a
# slave of the host's: mountPropagation HostToContainer) in the host's PID namespace (hostPID), the
# host's / recursively at /host (read-only on top with --ro, like the DaemonSet), the pod's own
# /proc, /sys, /dev, /tmp and /run, then chroot into the pod root with a container's environment.
# The namespace dies with the process, and every mount with it.
pod() {
  local name=$1 ns=() ro=0 t rc; shift
  # --net: no hostNetwork, so (as in Kubernetes) no host UTS namespace either; the pod has its own name
  while [ $# -gt 0 ]; do case $1 in --net) ns+=(--net --uts); shift ;; --ro) ro=1; shift ;; --) shift; break ;; esac; done
  t=$(_ts)
  unshare --mount --propagation slave "${ns[@]}" -- bash -c '
    set -e; R=$1 ro=$2; shift 2
    [ "$(readlink /proc/self/ns/uts)" = "$(readlink /proc/1/ns/uts)" ] || hostname e2e-pod-x1
    mount --rbind / "$R/host"
    [ "$ro" = 1 ] && mount -o remount,bind,ro "$R/host"
    mount -t proc proc "$R/proc"
    mount -t sysfs sysfs "$R/sys"
    mount --rbind /dev "$R/dev"
    mount -t tmpfs tmpfs "$R/tmp"
    mount -t tmpfs tmpfs "$R/run"
    exec chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root TERM=xterm-256color NO_COLOR=1 /usr/local/bin/iscsi-console "$@"' \
    pod "$POD" "$ro" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  rc=$?; echo $rc >"$WORK/$name.rc"
  echo "\$ [pod ${ns[*]}$([ $ro = 1 ] && echo ' ro')] iscsi-console $* -> exit $rc ($(_since "$t")s)"
  sed 's/^/  | /' "$WORK/$name.out" | head -c 800; echo
  [ -s "$WORK/$name.err" ] && sed 's/^/  ! /' "$WORK/$name.err" | head -n 20
  cp "$WORK/$name.out" "$OUT/$name.json" 2>/dev/null
  return 0
}
P_NS=(--root /host --exec "$NSENTER")
P_CH=(--root /host --exec chroot)

# a write action through the pod, checked on the host: a targeted scan of LUN 1 (sysfs under /host/sys)
pod scan-ns -- "${P_NS[@]}" scan "$SID" 1 --write --yes
check "[ $(rc_of scan-ns) = 0 ] && wait_disk pod $P1 1 30" "pod (--exec $NSENTER): scan $SID 1 exit $(rc_of scan-ns); LUN 1 appeared on the host"
check "grep -q '\"action\":\"scan\"' /var/log/iscsi-console/journal.jsonl" "the pod journaled the scan in the host's /var/log/iscsi-console/journal.jsonl"
udevadm settle --timeout=30

# Every read-only run on the same node state, in three parallel lanes: each console start costs
# 3-30 s of TCG time (the machine's load decides), which one after the other would outlast the
# scenario timeout. Nothing changes the node while they run.
NS_HOST=$(readlink /proc/1/ns/net)
lane_a() {
  # the reference: the project's bundle on the project's node, --exec direct
  E2E_LOG_LINES=0 run_cli ref-status status --json
  sea sea-status status --json
  pod pod-ns-status -- "${P_NS[@]}" status --json
  # the DaemonSet: own network namespace (no hostNetwork), /host read-only
  pod ds-status --net --ro -- "${P_NS[@]}" status --json
}
lane_b() {
  E2E_LOG_LINES=0 run_cli ref-doctor doctor --json
  sea sea-doctor doctor --json
  pod pod-ns-doctor -- "${P_NS[@]}" doctor --json
  sea version --version
}
lane_c() {
  pod pod-ch-doctor -- "${P_CH[@]}" doctor --json
  pod net-ns-doctor --net -- "${P_NS[@]}" doctor --json
  pod net-ch-doctor --net -- "${P_CH[@]}" doctor --json
}
t=$(_ts)
lane_a >"$WORK/lane-a.log" 2>&1 &
lane_b >"$WORK/lane-b.log" 2>&1 &
lane_c >"$WORK/lane-c.log" 2>&1 &
wait
cat "$WORK"/lane-[abc].log
log "11 console runs in 3 lanes: $(_since "$t")s"
cp "$WORK/ref-status.out" "$OUT/ref-status.json"; cp "$WORK/ref-doctor.out" "$OUT/ref-doctor.json"

check "[ \"\$(session_field $WORK/ref-status.out $SID verdict)\" = stale ] && [ \"\$(session_field $WORK/ref-status.out $K verdict)\" = in-use ]" \
  "reference: session $SID stale, $K in-use (so the comparisons compare something)"
check "[ \"\$(jget $WORK/ref-status.out 'd.sessions.flatMap(s=>s.devices).filter(x=>x.name).length')\" = 2 ]" "reference: 2 disks (pod LUN 1 from the pod's scan, podk LUN 1)"

# cmp_status NAME WHAT : NAME's status --json equals the reference
cmp_status() {
  if [ "$(rc_of "$1")" = 0 ] && status_same "$WORK/ref-status.out" "$WORK/$1.out" >"$WORK/$1.diff"; then ok "$2: status --json equals the direct run"
  else cat "$WORK/$1.diff"; bad "$2: status --json differs from the direct run (exit $(rc_of "$1"))"; fi
}
# cmp_doctor NAME WHAT : every check of NAME's doctor --json has the reference's status
cmp_doctor() {
  if doctor_same "$WORK/ref-doctor.out" "$WORK/$1.out" >"$WORK/$1.diff"; then ok "$2: doctor --json checks equal the direct run's"
  else cat "$WORK/$1.diff"; bad "$2: doctor --json differs from the direct run"; fi
}

# 1. the single executable, no node, no PATH
check "[ $(rc_of version) = 0 ] && grep -qx \"\$(jget $PROJECT/package.json d.version)\" $WORK/version.out" "env -i, no node: --version"
cmp_status sea-status "env -i, no node"
cmp_doctor sea-doctor "env -i, no node"
check "[ \"\$(doctor_check $WORK/sea-doctor.out iscsi.versions status)\" = pass ]" "env -i: iscsiadm and iscsid found without a PATH ($(doctor_check "$WORK/sea-doctor.out" iscsi.versions evidence))"

# 2. the pod in the host's network namespace
# the fault also alters one pod document: the comparison must notice
fault debug-pod && sed -i 's/"verdict":"stale"/"verdict":"foreign"/' "$WORK/pod-ns-status.out"
cmp_status pod-ns-status "pod --exec $NSENTER"
check "[ \"\$(jget $WORK/pod-ns-status.out 'd.node.root+\" \"+d.node.kind')\" = '/host root' ]" "the pod read the host through --root /host"
H=$(jget "$WORK/ref-status.out" d.node.hostname) HP=$(jget "$WORK/pod-ns-status.out" d.node.hostname)
check "[ '$HP' = '$H' ]" "pod in the host's UTS namespace: node name $HP = the kernel's $H (not /etc/hostname: $(cat /etc/hostname))"
cmp_doctor pod-ns-doctor "pod --exec $NSENTER"
cmp_doctor pod-ch-doctor "pod --exec chroot"

# 3. the pod in its own network namespace
cmp_status ds-status "pod, own netns, /host read-only (DaemonSet), --exec $NSENTER"
HD=$(jget "$WORK/ds-status.out" d.node.hostname)
check "[ '$HD' = \"\$(cat /etc/hostname)\" ]" "pod with its own UTS namespace (named e2e-pod-x1): node name $HD from /host/etc/hostname"
E=$(doctor_check "$WORK/net-ns-doctor.out" netns.host evidence)
check "[ \"\$(doctor_check $WORK/net-ns-doctor.out netns.host status)\" = pass ] && grep -qF 'host $NS_HOST' <<<\"\$E\" && ! grep -qF 'console $NS_HOST' <<<\"\$E\"" \
  "pod netns --exec $NSENTER: doctor netns.host pass, and it names the pod's other netns ($E)"
check "[ \"\$(doctor_check $WORK/net-ns-doctor.out iscsi.versions status)\" = pass ] && [ \"\$(doctor_check $WORK/net-ns-doctor.out iscsid.running status)\" = pass ]" \
  "pod netns --exec $NSENTER: host iscsiadm/iscsid versions and iscsid found"
check "[ \"\$(doctor_check $WORK/net-ch-doctor.out netns.host status)\" = fail ] && [ $(rc_of net-ch-doctor) = 3 ]" \
  "pod netns --exec chroot: doctor fails netns.host, exit 3 ($(doctor_check "$WORK/net-ch-doctor.out" netns.host evidence))"

# the premise: from another netns the host's iscsid is out of reach for a plain iscsiadm. iscsid's
# IPC is an abstract unix socket, and those are per network namespace: discovery, which asks iscsid
# first, exits 20 ("could not connect to iscsid", ISCSI_ERR_ISCSID_NOTCONN). A plain logout fails
# too (on this kernel with 21, ISCSI_ERR_NO_OBJS_FOUND: it never gets to iscsid), and the session stays.
unshare --net iscsiadm -m discovery -t sendtargets -p "$P1" >/dev/null 2>&1; drc=$?
unshare --net iscsiadm -m session -r "$SID" -u >/dev/null 2>&1; urc=$?
check "[ $drc = 20 ] && [ $urc != 0 ] && [ \"\$(cat /sys/class/iscsi_session/session$SID/state)\" = LOGGED_IN ]" \
  "a plain iscsiadm from a new netns cannot reach iscsid (discovery exit $drc, 20 = cannot connect; logout exit $urc); session $SID still logged in"
# ... and the console's logout through nsenter does reach it
pod net-logout --net -- "${P_NS[@]}" logout "$SID" --write --yes
check "[ $(rc_of net-logout) = 0 ]" "pod netns --exec $NSENTER: logout $SID exit 0 (got $(rc_of net-logout))"
check "wait_for '[ ! -e /sys/class/iscsi_session/session$SID ]' 30 && ! record_exists pod $P1" "host: session $SID gone and its node record deleted by the host's iscsiadm/iscsid"
check "[ \"\$(sid_of podk $P1)\" = $K ] && mountpoint -q $E2E_KUBELET/pods/pod-podk/volumes/kubernetes.io~iscsi/vol-podk" "host: the in-use session $K and its pod mount untouched"

# ---- cleanup: nothing of the pods is left mounted on the host
check "! grep -q ' $POD/' /proc/self/mountinfo" "no pod mount left in the host's mount namespace"
rm -f "$POD/usr/local/bin/iscsi-console"
finish
