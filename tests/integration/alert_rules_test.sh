#!/usr/bin/env bash
# The shipped alerting rules (etc/prometheus/bottleneckd-alerts.yml) with the
# real promtool: `promtool check rules`, and `promtool test rules` on the
# hand-written series of tests/prometheus/alerts_test.yml (plateau, bound
# verdict, a nearly full bus path with the emulated virtio link excluded, a
# downtrained PCIe link). Every metric the rules use must be one bottleneckd
# exports (docs/metrics.md).
#
# usage: alert_rules_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=alert_rules_test
BIN=${1:?usage: alert_rules_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: alert_rules_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 60 "$@"
integ_init
command -v promtool >/dev/null || integ_die "promtool missing: install the Debian package prometheus (scripts/install-deps.sh)"

RULES="$SRC/etc/prometheus/bottleneckd-alerts.yml"
if out="$(promtool check rules "$RULES" 2>&1)"; then
  integ_pass "promtool check rules: $(grep -o '[0-9]* rules found' <<<"$out")"
else
  integ_fail "promtool check rules: $out"
fi
if out="$(cd "$SRC/tests/prometheus" && promtool test rules alerts_test.yml 2>&1)"; then
  integ_pass "promtool test rules tests/prometheus/alerts_test.yml"
else
  integ_fail "promtool test rules: $out"
fi
# Every alert has a runbook_url into docs/runbook.md, at a section that exists.
alerts=$(grep -c '^ *- alert:' "$RULES")
urls=$(grep -c '^ *runbook_url: "file:///usr/share/doc/bottleneckd/runbook.md#' "$RULES")
missing=""
for a in $(sed -n 's/^ *runbook_url: ".*#\(.*\)"$/\1/p' "$RULES"); do
  grep -qi "^## $a\$" "$SRC/docs/runbook.md" || missing+=" #$a"
done
if [ "$alerts" -eq "$urls" ] && [ -z "$missing" ]; then
  integ_pass "each of the $alerts alerts has a runbook_url into docs/runbook.md"
else
  integ_fail "runbook_url: $urls of $alerts alerts; sections missing from docs/runbook.md:$missing"
fi
for name in $(grep -o 'bottleneckd_[a-z_]*' "$RULES" | sort -u); do
  if grep -q "\`$name\`" "$SRC/docs/metrics.md"; then
    integ_pass "the rules' metric $name is in docs/metrics.md"
  else
    integ_fail "the rules use $name, which docs/metrics.md does not list"
  fi
done
integ_finish
