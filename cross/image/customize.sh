#!/bin/sh
# Turns the packages' tree "$1" (scripts/image unpacks it from mmdebstrap's tarball) into the
# kiosk's root. Runs on the build machine; commands inside the tree run through chroot
# (qemu-user for arm64).
set -eu
root="$1"
here="$(dirname "$0")"

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
trap 'umount "$root/proc" "$root/sys"' EXIT

cp -a "$here/overlay/." "$root/"
install -m 0755 "$XO_FIRMWARE_HOST" "$root/usr/local/bin/firmware-host"
install -m 0644 "$here/xo-kiosk.txt" "$root/boot/firmware/xo-kiosk.txt"

echo xo >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\txo\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
# A fresh machine id at every boot: the root file system is read-only and shared by every card.
: >"$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"

# Files that settings change at boot point into /run (xo-settings writes them).
ln -sf /run/xo-kiosk/localtime "$root/etc/localtime"
mkdir -p "$root/etc/wpa_supplicant"
ln -sf /run/xo-kiosk/wpa_supplicant-wlan0.conf "$root/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"

# The data partition is mounted at /var/lib/private; systemd keeps the server's state there
# (DynamicUser + StateDirectory) behind this symlink, which a read-only /var/lib cannot gain later.
mkdir -p "$root/var/lib/private"
chmod 0700 "$root/var/lib/private"
ln -sfn private/xo-kiosk "$root/var/lib/xo-kiosk"

chroot "$root" useradd --system --no-create-home --home-dir /run/xo-browser \
  --shell /usr/sbin/nologin --groups video,render,input,audio kiosk

chroot "$root" groupadd --system i2c
chroot "$root" systemctl enable systemd-networkd systemd-resolved systemd-timesyncd \
  avahi-daemon seatd xo-settings firmware-host xo-kiosk-browser xo-wifi xo-owner-code.path
# Wi-Fi is xo-wifi-setup's (xo-wifi.service, when the interface appears); the generic D-Bus
# wpa_supplicant is not used. Maintenance timers are pointless on a read-only root.
# hostapd and nftables run only inside xo-wifi-setup, with its own configuration.
for unit in getty@tty1.service wpa_supplicant.service hostapd.service nftables.service e2scrub_reap.service e2scrub_all.timer \
  fstrim.timer apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer; do
  if [ -e "$root/lib/systemd/system/$unit" ] || [ "$unit" = getty@tty1.service ]; then
    chroot "$root" systemctl disable "$unit"
  fi
done
chroot "$root" systemctl set-default graphical.target
chroot "$root" passwd --lock root

# The Pi's boot files: root by label, read-only, no console blanking. Re-run the firmware hook
# so /boot/firmware/cmdline.txt and the kernel and initrd there follow these settings.
sed -i -e 's|^#\?ROOTPART=.*|ROOTPART=LABEL=xo-root|' \
  -e 's|^#\?CONSOLES=.*|CONSOLES="serial0,115200 tty1"|' "$root/etc/default/raspi-firmware"
# No dtoverlay=/dtparam= lines: Debian's device trees (the kernel's own, not the Raspberry Pi
# kernel's) already enable the display controller (vc4 KMS, HDMI) and I2C 1 on GPIO 2/3, and
# have no overlays or __overrides__ for the firmware to apply.
version="$(ls "$root/lib/modules" | sort -V | tail -n 1)"
chroot "$root" update-initramfs -u -k "$version"
chroot "$root" /etc/kernel/postinst.d/z50-raspi-firmware "$version"
sed -i 's/$/ consoleblank=0/' "$root/boot/firmware/cmdline.txt"
# The image holds no package lists or caches: nothing installs packages on a read-only root.
rm -rf "$root/var/cache/apt"/*.bin "$root/var/lib/apt/lists"/*

# Kernel and initrd beside the image, for booting it under qemu (scripts/image-test).
cp "$root/boot/vmlinuz-$version" "$XO_IMAGE_OUT/vmlinuz"
cp "$root/boot/initrd.img-$version" "$XO_IMAGE_OUT/initrd.img"
