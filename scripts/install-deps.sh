#!/usr/bin/env bash
# Installs the Debian 12 packages bottleneckd needs, and only those missing.
# The one list of the project's packages, in two sets:
#   install-deps.sh run   what building and running the daemon needs (scripts/run.sh)
#   install-deps.sh       everything: also the tests, the benchmarks and their peers
# Run as root.
set -euo pipefail

RUN_PACKAGES=(
  # build (Ninja: scripts/test.sh and run.sh configure new trees with it)
  build-essential cmake ninja-build g++ git pkg-config
  # libraries
  prometheus-cpp-dev libyaml-cpp-dev libpcap-dev libsqlite3-dev libcli11-dev
  # gzip-coded /metrics (exporters/http/gzip_body.h)
  zlib1g-dev
  # user patterns (collectors.netdev.include/exclude): RE2, linear-time matching
  libre2-dev
  # system call names of what a target thread waits in (collectors/task_state.h)
  libseccomp-dev
  # the function symbols of the ELF files a profiled process maps (collectors/elf_symbols.h)
  libelf-dev
  # irqtime: libbpf, bpftool for the skeleton, clang for the BPF object
  libbpf-dev bpftool clang
  # the fleet report's client of the Prometheus query API (fleet/): HTTP(S), JSON
  libcurl4-openssl-dev nlohmann-json3-dev
  # the web config (--web.config.file): TLS through OpenSSL, bcrypt through libcrypt
  # (exporters/http/tls_context.h, web_security.h)
  libssl-dev libcrypt-dev
)
TEST_PACKAGES=(
  # faster links of the test binaries (CMakeLists.txt: BOTTLENECKD_LLD)
  lld
  # tests: GoogleTest, clang's libFuzzer + sanitizers, the real Prometheus/promtool
  libgtest-dev libgmock-dev libclang-rt-14-dev prometheus curl python3 iproute2
  # the web config's refusals, checked with the real client (tests/integration/web_config_test.sh)
  openssl
  # the HTML report's browser test (tests/integration/html_report_test.sh): headless Chromium
  chromium
  # the Debian package (debian/, tests/integration/package_test.sh) and the
  # unit's system-call check (tests/integration/systemd_unit_test.sh); systemd-nspawn
  # boots this system in a container to run the installed unit under systemd
  debhelper lintian strace systemd-container
  # the man page and the bash completion (tests/integration/manpage_test.sh): man, groff, bash-completion
  man-db groff-base bash-completion
  # style: the formatting check (.clang-format)
  clang-format
  # benchmarks: the peer tool, Google Benchmark, hyperfine; debootstrap makes
  # the fresh Debian 12 root of bench/first_scrape.sh
  prometheus-node-exporter libbenchmark-dev hyperfine debootstrap
  # bus inspection (lspci)
  pciutils
  # capture peers: the live and offline capture benchmarks compare against them
  tcpdump tshark
  # the fleet report against a second store with Prometheus's query API, and its remote_write path
  victoria-metrics
  # the dashboards against Grafana's published model (tests/integration/dashboards_schema_test.sh):
  # node runs TypeScript from npm (npm itself: see below)
  nodejs
)

case "${1:-all}" in
  run) PACKAGES=("${RUN_PACKAGES[@]}") ;;
  all) PACKAGES=("${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "usage: install-deps.sh [run|all]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm: Debian's nodejs comes without it (its own package), NodeSource's
# nodejs with it (and conflicts with Debian's npm): asked for only when the
# command is missing.
if [ "${1:-all}" = all ] && ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or install them) and retry" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's prometheus package starts its own server on :9090; tests start their
# own instances on loopback ports, so keep the packaged service out of the way.
if systemctl is-active --quiet prometheus 2>/dev/null; then systemctl stop prometheus || true; fi
if systemctl is-active --quiet prometheus-node-exporter 2>/dev/null; then systemctl stop prometheus-node-exporter || true; fi
