#!/usr/bin/env bash
# The Grafana dashboards (etc/grafana/*.json) against Grafana's published
# dashboard model: @grafana/grafana-foundation-sdk's Dashboard type,
# generated from Grafana's schema, with TypeScript's compiler as the checker
# (tests/grafana/check.mjs: each dashboard is type-checked as an object
# literal of that type, so every field name, required field, value type and
# enum value is checked, panels and targets included). The tools come from
# npm, pinned by tests/grafana/package-lock.json, installed into a temp copy.
# Deliberately broken copies must be rejected, naming the problem, so the
# check is shown to check. The dashboard linter's rules (rate interval,
# counter aggregation, units, datasource and instance variables) are
# tests/integration/dashboards.py check's, in dashboards_test.sh.
#
# usage: dashboards_schema_test.sh BOTTLENECKD SOURCE_DIR
TEST_NAME=dashboards_schema_test
BIN=${1:?usage: dashboards_schema_test.sh BOTTLENECKD SOURCE_DIR}
SRC=${2:?usage: dashboards_schema_test.sh BOTTLENECKD SOURCE_DIR}
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
integ_bound_time 300 "$@"
integ_init
integ_require_tools node npm "$INTEG_PYTHON"
: "$BIN"

cp -r "$SRC/tests/grafana" "$INTEG_TMP/grafana"
rm -rf "$INTEG_TMP/grafana/node_modules"
if ! out=$(cd "$INTEG_TMP/grafana" && timeout 240 npm ci --no-audit --no-fund 2>&1); then
  integ_die "npm ci (typescript, @grafana/grafana-foundation-sdk from the npm registry) failed: $(tail -3 <<<"$out")"
fi
CHECK="$INTEG_TMP/grafana/check.mjs"
if out=$(node "$CHECK" "$INTEG_TMP/grafana/gen" "$SRC"/etc/grafana/*.json 2>&1); then
  integ_pass "the shipped dashboards type-check as Grafana's Dashboard: $(tail -1 <<<"$out")"
else
  integ_fail "the shipped dashboards do not type-check as Grafana's Dashboard: $out"
fi

# broken NAME EXPECTED PYTHON: a copy of the fleet dashboard changed by
# PYTHON (d is the dashboard, p its panels) must be rejected with EXPECTED.
broken() {
  local f="$INTEG_TMP/broken-$1.json"
  "$INTEG_PYTHON" - "$SRC/etc/grafana/bottleneckd-fleet.json" "$f" "$3" <<'PY' || integ_die "mutation $1 failed"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["panels"]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
  if out=$(node "$CHECK" "$INTEG_TMP/grafana/gen-$1" "$f" 2>&1); then
    integ_fail "a broken dashboard ($1) type-checks"
  elif grep -q -- "$2" <<<"$out"; then
    integ_pass "a broken dashboard ($1) is rejected: $(grep -m 1 -- "$2" <<<"$out" | sed 's/^[^:]*:[0-9]*: //')"
  else
    integ_fail "a broken dashboard ($1) is rejected, but not for '$2': $out"
  fi
}
broken misspelt-field "'\"gridpos\"' does not exist" 'p[0]["gridpos"] = p[0].pop("gridPos")'
broken schema-version-string "not assignable to type 'number'" 'd["schemaVersion"] = "39"'
broken target-without-expr "Property 'expr' is missing" 'del p[0]["targets"][0]["expr"]'
broken unknown-color-mode "not assignable" 'p[2]["fieldConfig"]["defaults"]["color"] = {"mode": "rainbow"}'
broken variable-type "not assignable" 'd["templating"]["list"][0]["type"] = "dropdown"'
integ_finish
