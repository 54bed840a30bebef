#!/bin/bash
# guest-setup.sh — sourced in the guest. The node every scenario starts from, and the reset that
# puts it back between scenarios (one boot is shared by all of them: booting TCG costs ~10 s, the
# udev/iscsid/tgtd start ~10 s more).
#
# Facts this mirrors (found on Debian 6.1.0 under QEMU TCG, open-iscsi 2.1.8, tgt 1.0.85,
# multipath-tools 0.9.4, udev 252):
# - without systemd-udevd there is no /dev/disk at all (devtmpfs still makes /dev/sdX), and
#   multipathd needs udev; kubelet finds devices through /dev/disk/by-path, so udevd must run;
# - iscsiadm without a running iscsid tries `systemctl start iscsid.socket` and exits 20;
# - the target is tgtd on loopback only, two portals (127.0.0.1 and 127.0.0.2, both `lo`) so
#   one target can be reached over two paths for dm-multipath;
# - tgt's SendTargets only answers with the portal that was asked: discover through each portal.

E2E_PORTAL1=127.0.0.1:3260
E2E_PORTAL2=127.0.0.2:3260
E2E_INITIATOR=iqn.1993-08.org.debian:01:e2eguest0001
E2E_KUBELET=/var/lib/kubelet
# State each scenario may create; the reset removes it again.
E2E_MNT=/mnt/e2e

_ts() { date +%s.%N; }
_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
_say() { echo "[guest $(cut -d' ' -f1 /proc/uptime)s] $*"; }

_wait() { # _wait 'shell condition' SECONDS
  local end=$(( $(date +%s) + $2 ))
  until eval "$1"; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.1; done
}

e2e_setup_node() {
  local t; t=$(_ts)
  modprobe -a scsi_mod sd_mod sg scsi_transport_iscsi libiscsi libiscsi_tcp iscsi_tcp \
    dm_mod dm_multipath dm_round_robin dm_service_time ext4 loop || return 1
  [ -d /sys/class/iscsi_transport/tcp ] || { _say "iscsi_tcp did not register"; return 1; }
  _say "modules loaded in $(_since "$t")s"

  t=$(_ts)
  /lib/systemd/systemd-udevd --daemon --resolve-names=never || return 1
  udevadm trigger --type=subsystems --action=add
  udevadm trigger --type=devices --action=add
  udevadm settle --timeout=120
  _say "udevd up in $(_since "$t")s"

  ip addr add 127.0.0.2/8 dev lo 2>/dev/null # 127.0.0.0/8 is all on lo already; harmless
  mkdir -p /etc/iscsi /run/lock/iscsi /var/lib/iscsi /etc/multipath "$E2E_KUBELET" "$E2E_MNT"
  echo "InitiatorName=$E2E_INITIATOR" > /etc/iscsi/initiatorname.iscsi
  # find_multipaths yes: a map only for a WWID seen on two paths (or remembered in wwids),
  # so single-path logins stay plain sd devices, as on most Kubernetes nodes.
  printf 'defaults {\n    user_friendly_names yes\n    find_multipaths yes\n}\n' > /etc/multipath.conf
  : > /etc/multipath/wwids
  # Whatever the host had in its open-iscsi database is not this guest's business.
  rm -rf /etc/iscsi/nodes /etc/iscsi/send_targets
  mkdir -p /etc/iscsi/nodes /etc/iscsi/send_targets /etc/iscsi/ifaces
  ls /etc/iscsi/ifaces > /run/e2e-ifaces-at-boot

  t=$(_ts)
  tgtd --iscsi "portal=$E2E_PORTAL1" || return 1
  _wait 'tgtadm --lld iscsi --op show --mode target >/dev/null 2>&1' 30 || { _say "tgtd did not come up"; return 1; }
  tgtadm --lld iscsi --op new --mode portal --param "portal=$E2E_PORTAL2" || return 1
  iscsid || return 1
  # iscsid listens on an abstract socket: ready when iscsiadm stops answering 20 (cannot connect).
  _wait 'iscsiadm -m session >/dev/null 2>&1; [ $? -ne 20 ]' 20 || { _say "iscsid did not come up"; return 1; }
  multipathd || return 1
  _wait 'multipathd show status >/dev/null 2>&1' 60 || { _say "multipathd did not come up"; return 1; }
  _say "tgtd, iscsid, multipathd up in $(_since "$t")s"
}

# Puts the node back to the post-setup state: nothing mounted under our dirs, no dm maps, no
# sessions, no node/discovery records, no targets, no kubelet tree. Only ever touches the guest.
e2e_reset_node() {
  local m tid
  # Each step only when there is something to undo: every command costs real time under TCG.
  for m in $(awk -v k="$E2E_KUBELET" -v e="$E2E_MNT" 'index($5,k)==1 || index($5,e)==1 {print $5}' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null
  done
  for m in $(losetup -n -O NAME 2>/dev/null); do losetup -d "$m" 2>/dev/null; done
  ls /sys/block | grep -q '^dm-' && timeout 30 multipath -F >/dev/null 2>&1
  [ -n "$(ls /sys/class/iscsi_session 2>/dev/null)" ] && timeout 60 iscsiadm -m node --logoutall=all >/dev/null 2>&1
  rm -rf /etc/iscsi/nodes/* /etc/iscsi/send_targets/*
  for m in /etc/iscsi/ifaces/*; do
    [ -e "$m" ] || continue
    grep -qx "${m##*/}" /run/e2e-ifaces-at-boot || rm -f "$m"
  done
  # The target side: every target and CHAP account goes (tgtd and its portals stay).
  if ! pgrep -x tgtd >/dev/null; then
    tgtd --iscsi "portal=$E2E_PORTAL1"
    _wait 'tgtadm --lld iscsi --op show --mode target >/dev/null 2>&1' 30
    tgtadm --lld iscsi --op new --mode portal --param "portal=$E2E_PORTAL2"
  fi
  for tid in $(tgtadm --lld iscsi --op show --mode target | awk '/^Target [0-9]+:/{sub(":","",$2); print $2}'); do
    tgtadm --lld iscsi --op delete --mode target --tid "$tid" --force
  done
  for m in $(tgtadm --lld iscsi --op show --mode account | awk 'NR>1{print $1}'); do
    tgtadm --lld iscsi --op delete --mode account --user "$m"
  done
  pgrep -x iscsid >/dev/null || iscsid
  pgrep -x multipathd >/dev/null || { multipathd; _wait 'multipathd show status >/dev/null 2>&1' 60; }
  : > /etc/multipath/wwids
  rm -rf --one-file-system "${E2E_KUBELET:?}" "${E2E_MNT:?}" /tmp/e2e-* /var/log/iscsi-console
  mkdir -p "$E2E_KUBELET" "$E2E_MNT"
}
