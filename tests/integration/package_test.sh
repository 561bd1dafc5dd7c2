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
#      capabilities, umask), serves scrapes; `dpkg --purge` removes it all;
#   4. `dpkg -i` under systemd: this machine's system booted in systemd-nspawn
#      over another such view; the maintainer scripts enable and start the
#      unit, whose process runs as bottleneckd with only the unit's
#      capabilities, no new privileges and a seccomp filter, serves scrapes,
#      loads irqtime, reloads, takes a run, and is stopped by the purge.
# Nothing of the install reaches this machine: the overlays' upper layers are
# temporary directories, and the mounts live in private mount namespaces.
#
# usage: package_test.sh BOTTLENECKD SOURCE_DIR
# With BOTTLENECKD_DEB_TREE (the tree debian/rules test-tree configured, which
# CTest passes from such a tree), the package is made from that tree and its
# binary must be BOTTLENECKD, the one the suites tested (the same build ID);
# without it the package compiles its own.
TEST_NAME=package_test
SRC=${2:?usage: package_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 1500 "$@"
integ_init
integ_require_tools dpkg-buildpackage dh lintian dpkg-deb promtool systemd-analyze setpriv unshare nsenter systemd-nspawn curl
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
build_path=$PATH
if [ -n "${BOTTLENECKD_DEB_TREE:-}" ]; then
  # The tree scripts/test.sh built with this package's configuration (debian/rules
  # test-tree) and the suites ran against: dh_auto_build finds nothing to
  # compile, dh_auto_install installs from it (the package test's build: 98 s
  # of compiling before, docs/performance.md "CI").
  grep -q '^BOTTLENECKD_DEB_TREE:BOOL=ON$' "$BOTTLENECKD_DEB_TREE/CMakeCache.txt" 2>/dev/null ||
    integ_die "BOTTLENECKD_DEB_TREE=$BOTTLENECKD_DEB_TREE is not a tree configured by debian/rules test-tree"
  build_options="nocheck"
  export BOTTLENECKD_DEB_TREE
  integ_log "dpkg-buildpackage -b of $version in $tree, packaging the tested tree $BOTTLENECKD_DEB_TREE"
else
  # A tree of another configuration (a developer's ctest): the package's own
  # compile, as Debian's build makes it. Faster reruns where ccache is
  # installed (CI's tree is packaged without compiling): the same compiler
  # and flags, paths made relative to the temporary tree.
  build_options="nocheck parallel=$(nproc)"
  [ -d /usr/lib/ccache ] && build_path=/usr/lib/ccache:$PATH
  integ_log "dpkg-buildpackage -b of $version in $tree"
fi
if (cd "$tree" && PATH=$build_path CCACHE_BASEDIR="$INTEG_TMP/build" CCACHE_NOHASHDIR=1 \
      DEB_BUILD_OPTIONS="$build_options" dpkg-buildpackage -us -uc -b) >"$INTEG_TMP/build.log" 2>&1; then
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
         usr/share/doc/bottleneckd/README.md usr/share/doc/bottleneckd/metrics.md usr/share/doc/bottleneckd/copyright \
         usr/share/doc/bottleneckd/web-config.md usr/share/doc/bottleneckd/examples/web-config.yml; do
  [ -e "$root/$f" ] || missing+=" /$f"
done
if [ -z "$missing" ]; then
  integ_pass "the package holds the binary, conffile, unit, man page, completion, rules, dashboards, docs and the web config's example"
else
  integ_fail "missing from the package:$missing"
fi
# Every alert's runbook_url names a file and a section the package installs.
bad_urls=""
while read -r url; do
  file=${url#file://}; file=${file%%#*}; anchor=${url#*#}
  if [ ! -f "$root$file" ]; then bad_urls+=" $url (no file)"; continue; fi
  # The anchor is the heading as GitHub writes it: lower case.
  grep -qi "^## $anchor\$" "$root$file" || bad_urls+=" $url (no section)"
done < <(sed -n 's/^ *runbook_url: "\(.*\)"$/\1/p' "$root/usr/share/bottleneckd/prometheus/bottleneckd-alerts.yml")
n_urls=$(grep -c 'runbook_url:' "$root/usr/share/bottleneckd/prometheus/bottleneckd-alerts.yml")
if [ "$n_urls" -ge 8 ] && [ -z "$bad_urls" ]; then
  integ_pass "each of the $n_urls alerts' runbook_url is an installed file and section"
else
  integ_fail "runbook_url: $n_urls urls; not installed:$bad_urls"
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
if [ -n "${BOTTLENECKD_DEB_TREE:-}" ]; then
  build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: //p'; }
  tested=$(build_id "$1"); packaged=$(build_id "$ubin")
  if [ -n "$tested" ] && [ "$tested" = "$packaged" ]; then
    integ_pass "the packaged /usr/sbin/bottleneckd is the tested binary (build ID $tested), not a second compile"
  else
    integ_fail "the packaged binary's build ID '$packaged' is not the tested $1's '$tested'"
  fi
fi
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
score=$(systemd-analyze security --offline=yes "$unit" 2>&1 | integ_exposure)
exec_start=$(integ_unit_values "$unit" ExecStart | awk '{print $1}')
if integ_exposure_ok "$score" && [ "$exec_start" = /usr/sbin/bottleneckd ]; then
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
# fresh_view DIR [PATH...]: DIR/{upper,work,merged} for an overlay of / that
# looks like a fresh machine: whatever an earlier install or a root run left
# on this one (and each extra PATH) is hidden behind an overlay whiteout (a
# character device 0:0 in the upper layer).
fresh_view() {
  local dir="$1" p; shift
  mkdir -p "$dir/upper" "$dir/work" "$dir/merged"
  for p in etc/bottleneckd var/lib/bottleneckd usr/sbin/bottleneckd lib/systemd/system/bottleneckd.service \
           etc/systemd/system/multi-user.target.wants/bottleneckd.service \
           usr/share/bottleneckd usr/share/doc/bottleneckd run/bottleneckd "$@"; do
    if [ -e "/$p" ] || [ -L "/$p" ]; then mkdir -p "$dir/upper/$(dirname "$p")" && mknod "$dir/upper/$p" c 0 0; fi
  done
}
ov="$INTEG_TMP/overlay"
had_user=0; getent passwd bottleneckd >/dev/null && had_user=1
had_binary=0; [ -e /usr/sbin/bottleneckd ] && had_binary=1
fresh_view "$ov"
cp "$deb" "$ov/bottleneckd.deb"
port=$(integ_free_port)
mapfile -t priv < <(integ_unit_setpriv "$unit" nobody)  # the shape; the user is swapped inside
cat >"$ov/inside.sh" <<EOF
#!/bin/bash
# Runs in the chroot: install, check, run as the unit would, purge.
set -u
say() { printf '%s\n' "\$*"; }
export DEBIAN_FRONTEND=noninteractive
# State a root run of bottleneckd left before the package (./scripts/run.sh).
mkdir -p /var/lib/bottleneckd && echo 'from a root run' >/var/lib/bottleneckd/soaker-calibration
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
old=\$(stat -c %U /var/lib/bottleneckd/soaker-calibration)
[ "\$old" = bottleneckd ] && say "PASS state a root run left is given to bottleneckd" ||
  say "FAIL state a root run left is still \$old's"
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

# --- 4. under systemd, in a container --------------------------------------------
# This machine's own system booted by systemd-nspawn over a fresh overlay
# view (without policy-rc.d: Docker images carry one that refuses service
# starts, a fresh Debian has none), to basic.target only, in its own network
# namespace. The container gets CAP_BPF, CAP_PERFMON and the bpf call, which
# nspawn withholds by default, so the unit's own limits are what is tested.
# dpkg -i must leave the unit running, hardened, and serving.
sd="$INTEG_TMP/systemd"
fresh_view "$sd" usr/sbin/policy-rc.d
cp "$deb" "$sd/upper/bottleneckd.deb"
cat >"$sd/boot.sh" <<'BOOT'
#!/bin/bash
sd=$1
mount -t overlay overlay -o lowerdir=/,upperdir=$sd/upper,workdir=$sd/work $sd/merged || exit 1
exec systemd-nspawn -q -D "$sd/merged" -b --register=no --keep-unit --private-network \
  --capability=CAP_BPF,CAP_PERFMON --system-call-filter=bpf --resolv-conf=off --timezone=off \
  --link-journal=no -- systemd.unit=basic.target
BOOT
chmod 0755 "$sd/boot.sh"
integ_spawn NSPAWN_PID "$INTEG_TMP/nspawn.log" unshare -m "$sd/boot.sh" "$sd"
c1="" state=""
alive() { ps -p "$1" -o stat= 2>/dev/null | grep -qv Z; }  # a zombie has exited
for ((i = 0; i < 300; i++)); do
  c1=$(ps --ppid "$NSPAWN_PID" -o pid= 2>/dev/null | head -n 1 | tr -d ' ')
  if [ -n "$c1" ]; then
    state=$(nsenter -t "$c1" -a systemctl is-system-running 2>/dev/null)
    [ "$state" = running ] || [ "$state" = degraded ] && break
  fi
  alive "$NSPAWN_PID" || break
  sleep 0.2
done
in_c() { nsenter -t "$c1" -a -- "$@"; }
if [ "$state" != running ] && [ "$state" != degraded ]; then
  integ_fail "systemd-nspawn did not boot this machine's system ('$state'): $(tail -n 5 "$INTEG_TMP/nspawn.log")"
else
  integ_log "systemd booted in a container (pid $c1 here): $state"
  in_c env DEBIAN_FRONTEND=noninteractive dpkg -i /bottleneckd.deb >"$INTEG_TMP/sd-dpkg.log" 2>&1 ||
    integ_fail "systemd: dpkg -i failed: $(tail -n 5 "$INTEG_TMP/sd-dpkg.log")"
  active=""
  for ((i = 0; i < 100; i++)); do
    active=$(in_c systemctl is-active bottleneckd 2>/dev/null)
    [ "$active" = active ] && in_c curl -fsS -o /dev/null http://127.0.0.1:9858/metrics 2>/dev/null && break
    sleep 0.2
  done
  if [ "$active" = active ] && in_c systemctl is-enabled bottleneckd >/dev/null 2>&1; then
    integ_pass "systemd: dpkg -i left bottleneckd.service enabled and active"
  else
    integ_fail "systemd: bottleneckd.service is '$active' after dpkg -i: $(in_c journalctl -u bottleneckd -o cat --no-pager 2>&1 | tail -n 5)"
  fi
  main=$(in_c systemctl show -p MainPID --value bottleneckd)
  status=$(in_c cat "/proc/$main/status" 2>/dev/null)
  uid=$(in_c id -u bottleneckd)
  want_caps=$(printf '%016x' $(((1 << 13) | (1 << 38) | (1 << 39))))  # CAP_NET_RAW, CAP_PERFMON, CAP_BPF
  got=$(awk '/^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):/ { printf "%s%s ", $1, $2 }' <<<"$status")
  if [ "$got" = "Uid:$uid CapEff:$want_caps CapBnd:$want_caps NoNewPrivs:1 Seccomp:2 " ]; then
    integ_pass "systemd: the service runs as bottleneckd (uid $uid) with only CAP_NET_RAW, CAP_BPF and CAP_PERFMON, no new privileges, under a seccomp filter"
  else
    integ_fail "systemd: the service's process: '$got', want Uid:$uid CapEff and CapBnd $want_caps NoNewPrivs:1 Seccomp:2"
  fi
  # The CPU series come with the first tick, which may follow the first
  # answered scrape (a loaded machine: this test runs beside others).
  for ((i = 0; i < 100; i++)); do
    in_c curl -fsS http://127.0.0.1:9858/metrics >"$INTEG_TMP/sd-scrape" 2>&1
    grep -q '^bottleneckd_cpu' "$INTEG_TMP/sd-scrape" && break
    sleep 0.2
  done
  journal=$(in_c journalctl -u bottleneckd -o cat --no-pager 2>&1)
  # Besides the PCI-facts warning (a container has no PCI config space), a
  # tick that overran its interval is said under load: this test runs beside
  # others, and a fresh-clone CI saw "sampling overran its interval; skipping
  # ticks" twice in the container's first seconds. Neither is the sandbox
  # refusing anything; any other warning or error fails.
  if grep -q '^bottleneckd_cpu' "$INTEG_TMP/sd-scrape" && grep -q 'irqtime loaded' <<<"$journal" &&
     ! grep -E 'level=(error|warn)' <<<"$journal" | grep -v 'PCI facts unknown' |
       grep -qv 'msg="sampling overran its interval; skipping ticks"'; then
    integ_pass "systemd: inside the sandbox it serves $(grep -c '^bottleneckd_' "$INTEG_TMP/sd-scrape") series, irqtime's eBPF program loads, nothing but the PCI-facts warning (and overrun ticks under load) is logged"
  else
    integ_fail "systemd: scrape or journal wrong: $(grep -c '^bottleneckd_cpu' "$INTEG_TMP/sd-scrape") bottleneckd_cpu* lines after 20 s; journal: $(grep -E 'irqtime|level=(error|warn)' <<<"$journal" | head -n 3)"
  fi
  score=$(in_c systemd-analyze security bottleneckd 2>&1 | integ_exposure)
  if integ_exposure_ok "$score"; then
    integ_pass "systemd: systemd-analyze security on the loaded service: $score"
  else
    integ_fail "systemd: systemd-analyze security on the loaded service: '$score'"
  fi
  in_c systemctl reload bottleneckd
  reloaded() { in_c journalctl -u bottleneckd -o cat --no-pager 2>/dev/null | grep -q 'configuration applied'; }
  if integ_wait_for 10 "the reload" reloaded &&
     in_c bottleneckd run --name under-systemd -- true >"$INTEG_TMP/sd-run" 2>&1 &&
     in_c test -s /var/lib/bottleneckd/runs.db; then
    integ_pass "systemd: systemctl reload applies the config; a run through /run/bottleneckd/control.sock goes to /var/lib/bottleneckd/runs.db"
  else
    integ_fail "systemd: reload or run failed: $(tail -n 3 "$INTEG_TMP/sd-run" 2>/dev/null)"
  fi
  in_c env DEBIAN_FRONTEND=noninteractive dpkg --purge bottleneckd >"$INTEG_TMP/sd-purge.log" 2>&1
  if [ "$(in_c systemctl is-active bottleneckd 2>/dev/null)" != active ] && ! in_c test -e /var/lib/bottleneckd &&
     ! in_c pgrep -x bottleneckd >/dev/null; then
    integ_pass "systemd: dpkg --purge stopped the service and removed its state"
  else
    integ_fail "systemd: after dpkg --purge: $(in_c systemctl is-active bottleneckd 2>&1) $(tail -n 3 "$INTEG_TMP/sd-purge.log")"
  fi
  in_c systemctl poweroff >/dev/null 2>&1
  for ((i = 0; i < 100; i++)); do alive "$NSPAWN_PID" || break; sleep 0.2; done
  alive "$NSPAWN_PID" && integ_fail "the container did not power off within 20 s"
fi

integ_finish
