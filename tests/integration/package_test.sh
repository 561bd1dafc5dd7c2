#!/usr/bin/env bash
# The Debian package (debian/), built from this tree the way Debian builds it
# (dpkg-buildpackage), then:
#   1. lintian finds no error or warning (the tags that stay are explained in
#      debian/bottleneckd.lintian-overrides);
#   2. `dpkg-deb -x` into a temporary root: the documented files are in their
#      FHS places (docs/install.md), the conffile is registered, shlibdeps
#      filled Depends, and the unpacked binary runs --version (the changelog's
#      version), --config.check on the installed conffile and --once over a
#      fixture tree (promtool accepts the output); the installed unit is the
#      hardened one (score at most 2.5) and names the installed binary;
#   3. `dpkg -i` into a copy-on-write view of this machine (overlayfs over /,
#      chroot: no systemd there, like a container or a chroot build): the
#      system user and the state directory are created, nothing is started,
#      and the unit's command, run as the unit would run it (its user,
#      capabilities, umask), serves scrapes; `dpkg --purge` removes it all.
# Nothing of the install reaches this machine: the overlay's upper layer is
# a temporary directory, and the mounts live in a private mount namespace.
#
# usage: package_test.sh BOTTLENECKD SOURCE_DIR  (BOTTLENECKD is unused: the
# package builds its own)
TEST_NAME=package_test
SRC=${2:?usage: package_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 1500 "$@"
integ_init
integ_require_tools dpkg-buildpackage dh lintian dpkg-deb promtool systemd-analyze setpriv unshare curl
[ "$(id -u)" -eq 0 ] || integ_die "needs root: dpkg -i into an overlay of / (scripts/test.sh runs as root)"
chmod 0755 "$INTEG_TMP"

version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
upstream=${version%%-*}
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
cmake_version=$(sed -n 's/^project(bottleneckd VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
if [ "$upstream" = "$cmake_version" ]; then
  integ_pass "debian/changelog's version $version is the project's ($cmake_version, CMakeLists.txt)"
else
  integ_fail "debian/changelog says $version, CMakeLists.txt's project() $cmake_version: bump both"
fi

# --- build ---------------------------------------------------------------------
tree="$INTEG_TMP/build/bottleneckd-$upstream"
mkdir -p "$tree"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  # What a clean checkout has, plus files not yet committed (not ignored ones).
  (cd "$SRC" && git ls-files -z --cached --others --exclude-standard) |
    (cd "$SRC" && tar --null -T - -cf -) | tar -xf - -C "$tree"
else
  (cd "$SRC" && tar --exclude=./build --exclude='./obj-*' --exclude=./.git -cf - .) | tar -xf - -C "$tree"
fi
# Files deleted from the work tree but still in the index are skipped by tar's
# warning; what was copied is what builds.
integ_log "dpkg-buildpackage -b of $version in $tree"
build_path=$PATH
# Faster reruns where ccache is installed (a developer's machine; CI has none):
# the same compiler and flags, paths made relative to the temporary tree.
[ -d /usr/lib/ccache ] && build_path=/usr/lib/ccache:$PATH
if (cd "$tree" && PATH=$build_path CCACHE_BASEDIR="$INTEG_TMP/build" CCACHE_NOHASHDIR=1 \
      DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
      dpkg-buildpackage -us -uc -b) >"$INTEG_TMP/build.log" 2>&1; then
  integ_pass "dpkg-buildpackage -b built $(cd "$INTEG_TMP/build" && ls ./*.deb | tr '\n' ' ')"
else
  tail -n 40 "$INTEG_TMP/build.log"
  integ_die "dpkg-buildpackage failed (the log's end is above)"
fi
deb="$INTEG_TMP/build/bottleneckd_${version}_${arch}.deb"
[ -f "$deb" ] || integ_die "no $deb after the build: $(ls "$INTEG_TMP/build")"

# --- 1. lintian ----------------------------------------------------------------
lintian --fail-on error,warning --display-info "$INTEG_TMP/build/bottleneckd_${version}_${arch}.changes" \
  >"$INTEG_TMP/lintian" 2>&1
lintian_rc=$?
if [ "$lintian_rc" -eq 0 ]; then
  integ_pass "lintian: no error or warning ($(grep -c '^[IP]:' "$INTEG_TMP/lintian") info/pedantic tags, overrides in debian/bottleneckd.lintian-overrides)"
else
  sed 's/^/  /' "$INTEG_TMP/lintian"
  integ_fail "lintian failed (exit $lintian_rc): its tags are above"
fi

# --- 2. unpacked -----------------------------------------------------------------
root="$INTEG_TMP/root"
dpkg-deb -x "$deb" "$root"
dpkg-deb -e "$deb" "$INTEG_TMP/control"
unit_dir=lib/systemd/system
missing=""
for f in usr/sbin/bottleneckd etc/bottleneckd/bottleneckd.yaml $unit_dir/bottleneckd.service \
         usr/share/man/man8/bottleneckd.8.gz usr/share/bash-completion/completions/bottleneckd \
         usr/share/bottleneckd/prometheus/bottleneckd-alerts.yml usr/share/bottleneckd/prometheus/bottleneckd-recording.yml \
         usr/share/bottleneckd/grafana/bottleneckd-host.json usr/share/bottleneckd/grafana/bottleneckd-fleet.json \
         usr/share/bottleneckd/grafana/provisioning/dashboards/bottleneckd.yaml \
         usr/share/doc/bottleneckd/README.md usr/share/doc/bottleneckd/metrics.md usr/share/doc/bottleneckd/copyright; do
  [ -e "$root/$f" ] || missing+=" /$f"
done
if [ -z "$missing" ]; then
  integ_pass "the package holds the binary, conffile, unit, man page, completion, rules, dashboards and docs"
else
  integ_fail "missing from the package:$missing"
fi
if grep -qx /etc/bottleneckd/bottleneckd.yaml "$INTEG_TMP/control/conffiles" 2>/dev/null; then
  integ_pass "/etc/bottleneckd/bottleneckd.yaml is a conffile"
else
  integ_fail "/etc/bottleneckd/bottleneckd.yaml is not in conffiles: $(cat "$INTEG_TMP/control/conffiles" 2>/dev/null)"
fi
depends=$(sed -n 's/^Depends: //p' "$INTEG_TMP/control/control")
if grep -q 'libpcap0.8' <<<"$depends" && grep -q 'libyaml-cpp' <<<"$depends" && grep -q 'adduser' <<<"$depends"; then
  integ_pass "Depends (shlibdeps): $depends"
else
  integ_fail "Depends lacks the shared libraries or adduser: $depends"
fi

ubin="$root/usr/sbin/bottleneckd"
out=$("$ubin" --version 2>&1)
if grep -qF "bottleneckd $upstream" <<<"$out"; then integ_pass "unpacked --version: $out"; else
  integ_fail "unpacked --version printed '$out', want 'bottleneckd $upstream'"; fi
if out=$("$ubin" --config.check --config.file="$root/etc/bottleneckd/bottleneckd.yaml" 2>&1); then
  integ_pass "unpacked --config.check accepts the installed conffile"
else
  integ_fail "unpacked --config.check on the conffile: $out"
fi
fx="$SRC/tests/fixtures/seed-box"
if "$ubin" --config.file="$root/etc/bottleneckd/bottleneckd.yaml" --path.state="$INTEG_TMP/once-state" \
     --path.procfs="$fx/proc" --path.sysfs="$fx/sys" --path.ethtool="$fx/ethtool" --once \
     >"$INTEG_TMP/once.prom" 2>"$INTEG_TMP/once.err" &&
   grep -q '^bottleneckd_pci_link_info{interface="em0",.*bus="pcix",speed="133MHz",width="64bit"' "$INTEG_TMP/once.prom" &&
   promtool check metrics <"$INTEG_TMP/once.prom" >"$INTEG_TMP/promtool" 2>&1; then
  integ_pass "unpacked --once over the seed-box fixture: $(grep -c '^bottleneckd_' "$INTEG_TMP/once.prom") series, em0 on its PCI-X 133 MHz/64-bit bus, promtool check metrics clean"
else
  integ_fail "unpacked --once over the fixture: $(tail -n 3 "$INTEG_TMP/once.err") $(head -n 3 "$INTEG_TMP/promtool" 2>/dev/null)"
fi
unit="$root/$unit_dir/bottleneckd.service"
score=$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for bottleneckd.service: \([0-9.]*\).*/\1/p')
exec_start=$(integ_unit_values "$unit" ExecStart | awk '{print $1}')
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' && [ "$exec_start" = /usr/sbin/bottleneckd ]; then
  integ_pass "the installed unit: exposure $score, ExecStart=$exec_start"
else
  integ_fail "the installed unit: exposure '$score' (want <= 2.5), ExecStart '$exec_start' (want /usr/sbin/bottleneckd)"
fi
if MANWIDTH=100 man -l "$root/usr/share/man/man8/bottleneckd.8.gz" 2>/dev/null | grep -q -- '--config.check'; then
  integ_pass "the installed man page renders with man -l"
else
  integ_fail "the installed man page does not render or lacks --config.check"
fi

# --- 3. dpkg -i into an overlay of this machine --------------------------------------
ov="$INTEG_TMP/overlay"
had_user=0; getent passwd bottleneckd >/dev/null && had_user=1
had_binary=0; [ -e /usr/sbin/bottleneckd ] && had_binary=1
mkdir -p "$ov/upper" "$ov/work" "$ov/merged"
cp "$deb" "$ov/bottleneckd.deb"
port=$(integ_free_port)
mapfile -t priv < <(integ_unit_setpriv "$unit" nobody)  # the shape; the user is swapped inside
cat >"$ov/inside.sh" <<EOF
#!/bin/bash
# Runs in the chroot: install, check, run as the unit would, purge.
set -u
say() { printf '%s\n' "\$*"; }
export DEBIAN_FRONTEND=noninteractive
if dpkg -i /bottleneckd.deb >/tmp/dpkg-i.log 2>&1; then say "PASS dpkg -i succeeded without systemd"; else
  say "FAIL dpkg -i failed: \$(tail -n 5 /tmp/dpkg-i.log | tr '\n' ' ')"; exit 0; fi
if grep -qiE 'starting|failed|error' /tmp/dpkg-i.log; then
  say "FAIL dpkg -i output mentions starting or errors: \$(tr '\n' ' ' </tmp/dpkg-i.log)"; fi
if pgrep -x bottleneckd >/dev/null; then say "FAIL a bottleneckd process runs after dpkg -i (no systemd here: none should)"; else
  say "PASS nothing was started (no systemd in the chroot)"; fi
uid=\$(id -u bottleneckd 2>/dev/null) || { say "FAIL no user bottleneckd"; exit 0; }
shell=\$(getent passwd bottleneckd | cut -d: -f7)
if [ "\$uid" -lt 1000 ] && [ "\$uid" -gt 0 ] && [ "\$shell" = /usr/sbin/nologin ] && getent group bottleneckd >/dev/null; then
  say "PASS system user bottleneckd (uid \$uid, shell \$shell, group bottleneckd)"; else
  say "FAIL user bottleneckd: uid \$uid shell \$shell"; fi
st=\$(stat -c '%U:%G %a' /var/lib/bottleneckd 2>&1)
if [ "\$st" = "bottleneckd:bottleneckd 750" ]; then say "PASS /var/lib/bottleneckd: \$st"; else say "FAIL /var/lib/bottleneckd: \$st"; fi
if dpkg-query -W -f='\${Conffiles}' bottleneckd | grep -q '/etc/bottleneckd/bottleneckd.yaml'; then
  say "PASS dpkg knows the conffile"; else say "FAIL dpkg does not list the conffile"; fi
# The unit's command as systemd would run it (User=, capabilities, UMask=);
# /run/bottleneckd is RuntimeDirectory='s, made here by hand.
install -d -o bottleneckd -g bottleneckd -m 0750 /run/bottleneckd
cmd=\$(sed -n 's/^ExecStart=//p' /lib/systemd/system/bottleneckd.service)
umask \$(sed -n 's/^UMask=//p' /lib/systemd/system/bottleneckd.service)
setpriv --reuid=\$uid --regid=\$(id -g bottleneckd) --init-groups ${priv[*]:3} -- \
  \$cmd --web.listen-address=127.0.0.1:$port >/tmp/daemon.log 2>&1 &
pid=\$!
ok=0
for i in \$(seq 1 150); do
  if curl -fsS http://127.0.0.1:$port/metrics -o /tmp/scrape 2>/dev/null; then ok=1; break; fi
  sleep 0.2
done
if [ \$ok -eq 1 ] && grep -q '^bottleneckd_' /tmp/scrape; then
  say "PASS the installed service's command serves /metrics as bottleneckd (\$(grep -c '^bottleneckd_' /tmp/scrape) series)"
else
  say "FAIL the installed service's command: \$(tail -n 5 /tmp/daemon.log | tr '\n' ' ')"
fi
if grep -E 'level=(error|warn)' /tmp/daemon.log | grep -qv 'PCI facts unknown'; then
  say "FAIL the installed service logged: \$(grep -E 'level=(error|warn)' /tmp/daemon.log | head -n 3 | tr '\n' ' ')"
else
  say "PASS the installed service logged no error (warnings only for PCI facts past 64 bytes of config space)"
fi
[ -S /run/bottleneckd/control.sock ] && say "PASS control socket at /run/bottleneckd/control.sock" ||
  say "FAIL no control socket: \$(grep -i control /tmp/daemon.log | head -n 2)"
# Members of group bottleneckd may start runs; other users may not.
adduser --quiet --system --no-create-home member && adduser --quiet member bottleneckd
adduser --quiet --system --no-create-home stranger
if setpriv --reuid=member --regid=nogroup --init-groups bottleneckd run --name member-run -- true >/tmp/run-member 2>&1; then
  say "PASS a member of group bottleneckd starts a run: \$(tail -n 1 /tmp/run-member)"
else
  say "FAIL a member of group bottleneckd cannot start a run: \$(tail -n 2 /tmp/run-member | tr '\n' ' ')"
fi
if setpriv --reuid=stranger --regid=nogroup --init-groups bottleneckd run --name stranger-run -- true >/tmp/run-stranger 2>&1; then
  say "FAIL a user outside group bottleneckd started a run"
else
  say "PASS a user outside group bottleneckd is refused: \$(tail -n 1 /tmp/run-stranger)"
fi
kill -TERM \$pid; wait \$pid
if dpkg --purge bottleneckd >/tmp/dpkg-p.log 2>&1; then say "PASS dpkg --purge"; else
  say "FAIL dpkg --purge: \$(tail -n 5 /tmp/dpkg-p.log | tr '\n' ' ')"; fi
left=""
for f in /usr/sbin/bottleneckd /etc/bottleneckd/bottleneckd.yaml /var/lib/bottleneckd /lib/systemd/system/bottleneckd.service; do
  [ -e "\$f" ] && left="\$left \$f"
done
[ -z "\$left" ] && say "PASS purge left none of the package's files or its state" || say "FAIL purge left:\$left"
EOF
chmod 0755 "$ov/inside.sh"
# A fresh machine's view: whatever an earlier install or a root run left on
# this one is hidden behind overlay whiteouts (character devices 0:0).
for p in etc/bottleneckd var/lib/bottleneckd usr/sbin/bottleneckd lib/systemd/system/bottleneckd.service \
         usr/share/bottleneckd usr/share/doc/bottleneckd run/bottleneckd; do
  if [ -e "/$p" ]; then mkdir -p "$ov/upper/$(dirname "$p")" && mknod "$ov/upper/$p" c 0 0; fi
done
# Its own PID namespace, so the chroot sees only its own processes.
unshare -m -p -f bash -c '
  set -e
  ov=$1
  mount -t overlay overlay -o lowerdir=/,upperdir=$ov/upper,workdir=$ov/work $ov/merged
  mount -t proc proc $ov/merged/proc
  for d in sys dev; do mount --rbind /$d $ov/merged/$d; done
  mount -t tmpfs tmpfs $ov/merged/run
  mount -t tmpfs tmpfs $ov/merged/tmp
  cp $ov/bottleneckd.deb $ov/inside.sh $ov/merged/
  chroot $ov/merged /inside.sh
' _ "$ov" >"$INTEG_TMP/inside.out" 2>&1
while read -r word rest; do
  case "$word" in
    PASS) integ_pass "chroot: $rest" ;;
    FAIL) integ_fail "chroot: $rest" ;;
    *) printf '  %s %s\n' "$word" "$rest" ;;
  esac
done <"$INTEG_TMP/inside.out"
grep -q '^PASS dpkg --purge' "$INTEG_TMP/inside.out" || integ_fail "the chroot run did not get to the purge"
if [ "$had_user" -eq 0 ] && getent passwd bottleneckd >/dev/null; then
  integ_fail "the install in the overlay created user bottleneckd on this machine"
elif [ -e /usr/sbin/bottleneckd ] && [ "$had_binary" -eq 0 ]; then
  integ_fail "the install in the overlay left /usr/sbin/bottleneckd on this machine"
else
  integ_pass "this machine is untouched by the install in the overlay"
fi

integ_finish
