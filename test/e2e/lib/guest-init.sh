#!/bin/bash
# guest-init.sh — PID 1 of the e2e guest (runs from the host tree, 9p + tmpfs overlay).
# A minimal userspace (no systemd: daemons are started by hand in guest-run.sh), then either the
# scenario runner or an interactive shell on the serial console; always ends by powering off, so
# the host's QEMU exits on its own. Prints `E2E-GUEST-EXIT rc=N` for the host to read.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
PROJECT=""; CACHE=""; MODE=run; ONLY=""
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    e2e.project=*) PROJECT="${arg#e2e.project=}" ;;
    e2e.cache=*) CACHE="${arg#e2e.cache=}" ;;
    e2e.mode=*) MODE="${arg#e2e.mode=}" ;;
    e2e.only=*) ONLY="${arg#e2e.only=}" ;;
    e2e.fault=*) export E2E_FAULT="${arg#e2e.fault=}" ;;
    e2e.faults=*) export E2E_FAULTS="${arg#e2e.faults=}" ;;
    e2e.cli=*) export E2E_CLI="${arg#e2e.cli=}" ;;
    e2e.scenario_timeout=*) export E2E_SCENARIO_TIMEOUT="${arg#e2e.scenario_timeout=}" ;;
  esac
done
export PROJECT CACHE ONLY
# A fresh clone may live under /tmp or /run (CI clones "somewhere"); those get a guest-local tmpfs
# below, which would hide the project. Keep a handle on it first and put it back afterwards.
case "$PROJECT" in /tmp/*|/run/*) mkdir -p /.e2e-project && mount --rbind "$PROJECT" /.e2e-project ;; esac
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/lock
mount -t tmpfs -o mode=1777 tmpfs /tmp
if mountpoint -q /.e2e-project 2>/dev/null; then mkdir -p "$PROJECT" && mount --rbind /.e2e-project "$PROJECT"; fi
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mount -t configfs none /sys/kernel/config 2>/dev/null
# /etc/mtab on the host may be a file; tools here must see the guest's own mounts.
ln -sf ../proc/self/mounts /etc/mtab
echo e2eguest0000000000000000000000000 | cut -c1-32 > /etc/machine-id
hostname e2e-guest
# Loopback only: the guest has no NIC (-nic none); every portal is 127.0.0.x.
ip link set lo up 2>/dev/null || busybox ifconfig lo 127.0.0.1 up
echo 1 > /proc/sys/kernel/sysrq
echo "E2E-GUEST-READY uptime=$(cut -d' ' -f1 /proc/uptime)s kernel=$(uname -r)"
rc=0
if [ "$MODE" = shell ]; then
  # The same node set-up the scenarios get (modules, udevd, iscsid, tgtd, multipathd).
  # shellcheck source=/dev/null
  source "$PROJECT/test/e2e/lib/guest-setup.sh" && e2e_setup_node
  echo "interactive guest shell; the project is at $PROJECT. Run scenarios with"
  echo "  bash $PROJECT/test/e2e/lib/guest-run.sh --no-setup [01-status ...]   (exit or Ctrl-D powers off)"
  export TERM=linux
  setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1; rc=$?
else
  bash "$PROJECT/test/e2e/lib/guest-run.sh"; rc=$?
fi
echo "E2E-GUEST-EXIT rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)s"
sync
echo o > /proc/sysrq-trigger
sleep 5
busybox poweroff -f
