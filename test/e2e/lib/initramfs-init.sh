#!/bin/busybox sh
# /init of the e2e initramfs (busybox only). Mounts the HOST root read-only over virtio-9p with a
# tmpfs overlay on top (the guest may write anywhere; nothing reaches the host), binds the stock
# kernel's extracted modules where modprobe looks for them, mounts the one writable share (results),
# then switch_root's into guest-init.sh from the project tree.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod "/mods/$m" || echo "[initramfs] insmod $m failed"; done

PROJECT=""; CACHE=""
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    e2e.project=*) PROJECT="${arg#e2e.project=}" ;;
    e2e.cache=*) CACHE="${arg#e2e.cache=}" ;;
  esac
done
fail() { echo "[initramfs] $*"; echo "E2E-GUEST-EXIT rc=99"; echo o > /proc/sysrq-trigger; sleep 5; poweroff -f; }
# msize 512000: 9p's default (8 KiB) makes node's start-up from node_modules several times slower.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower || fail "9p root mount failed"
mount -t tmpfs -o mode=0755,size=3g rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot || fail "overlay mount failed"
KVER="$(uname -r)"
mkdir -p "/newroot/lib/modules/$KVER"
mount --bind "/newroot$CACHE/kernel/lib/modules/$KVER" "/newroot/lib/modules/$KVER" || fail "modules bind failed"
mkdir -p "/newroot$CACHE/results"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "/newroot$CACHE/results" || fail "results mount failed"
for d in proc sys dev; do mount --move "/$d" "/newroot/$d"; done
exec switch_root /newroot "$PROJECT/test/e2e/lib/guest-init.sh"
