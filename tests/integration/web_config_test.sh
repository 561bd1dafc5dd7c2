#!/usr/bin/env bash
# The web config (--web.config.file, docs/web-config.md) with the real
# things: certificates made here by the openssl command, a daemon serving TLS
# with basic auth and a required, verified client certificate, scraped by the
# real Prometheus (scheme: https, tls_config, basic_auth); the refusals
# through curl and `openssl s_client` (no credentials, a wrong password, an
# unknown user, no client certificate, a certificate of another CA, plain
# HTTP to the TLS port, TLS 1.2 under min_version TLS13 and TLS 1.3 under
# max_version TLS12); a certificate replaced on disk served on the next
# connection; hostile clients (200 handshakes that stall, garbage records)
# beside scrapes that stay answered; --config.check's verdicts.
#
# Usage: web_config_test.sh BOTTLENECKD_BINARY SOURCE_DIR. Bounded to 120 s.
set -uo pipefail

TEST_NAME=web_config_test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
integ_bound_time 120 "$@"

[ $# -eq 2 ] || integ_die "usage: $0 BOTTLENECKD_BINARY SOURCE_DIR"
BIN="$1"
SRC="$2"
FIXTURE="$SRC/tests/fixtures/seed-box"
integ_require_tools prometheus promtool curl openssl "$INTEG_PYTHON" timeout awk
integ_init

# --- certificates and the web config ----------------------------------------
D="$INTEG_TMP/pki"
mkdir -p "$D"
cert() {  # NAME CN ISSUER(ca name, or "" for self-signed CA) EXT
  local name="$1" cn="$2" issuer="$3" ext="$4"
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$D/$name.key" 2>/dev/null || return 1
  if [ -z "$issuer" ]; then
    openssl req -x509 -new -key "$D/$name.key" -subj "/CN=$cn" -days 2 -out "$D/$name.crt" 2>/dev/null
  else
    openssl req -new -key "$D/$name.key" -subj "/CN=$cn" -out "$D/$name.csr" 2>/dev/null &&
      printf '%s\n' "$ext" >"$D/$name.ext" &&
      openssl x509 -req -in "$D/$name.csr" -CA "$D/$issuer.crt" -CAkey "$D/$issuer.key" -CAcreateserial \
        -days 2 -extfile "$D/$name.ext" -out "$D/$name.crt" 2>/dev/null
  fi
}
cert ca "bottleneckd test CA" "" "" &&
  cert other-ca "another CA" "" "" &&
  cert server localhost ca "subjectAltName=IP:127.0.0.1,DNS:localhost" &&
  cert prometheus prometheus ca "extendedKeyUsage=clientAuth" &&
  cert stranger stranger other-ca "extendedKeyUsage=clientAuth" ||
  integ_die "openssl could not make the test certificates"
# The bcrypt hash of the scrape password, from libcrypt (the library the
# daemon checks it with), at cost 10.
HASH="$("$INTEG_PYTHON" -W ignore -c 'import crypt; print(crypt.crypt("scrape-s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')"
case "$HASH" in '$2b$10$'*) ;; *) integ_die "no bcrypt hash from libcrypt: '$HASH'" ;; esac
web_config() {  # MIN MAX: the file the daemon reads
  cat >"$D/web.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: $1
  max_version: $2
http_server_config:
  headers:
    Strict-Transport-Security: max-age=31536000
basic_auth_users:
  prometheus: $HASH
EOF
}
web_config TLS12 TLS13

# --- --config.check -----------------------------------------------------------
if out="$("$BIN" --config.check --web.config.file="$D/web.yml" 2>&1)" &&
  grep -q "web config OK: $D/web.yml (TLS on, basic auth on)" <<<"$out"; then
  integ_pass "--config.check reads the web config whole: $(head -n 1 <<<"$out")"
else
  integ_fail "--config.check of a good web config: $out"
fi
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: prometheus.key\n' >"$D/bad.yml"
if out="$("$BIN" --config.check --web.config.file="$D/bad.yml" 2>&1)"; then
  integ_fail "--config.check accepted a key that is not the certificate's: $out"
elif grep -q "prometheus.key is not the key of cert_file" <<<"$out"; then
  integ_pass "--config.check refuses a key that is not the certificate's: $out"
else
  integ_fail "--config.check's refusal does not say why: $out"
fi
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_allowed_sans: [a]\n' >"$D/later.yml"
out="$("$BIN" --config.check --web.config.file="$D/later.yml" 2>&1)"
if grep -q "later.yml:4:3: tls_server_config.client_allowed_sans is a key of later exporter-toolkit releases" <<<"$out"; then
  integ_pass "a key of later toolkit releases is refused by name, at its line and column"
else
  integ_fail "later toolkit key: $out"
fi

# --- the daemon over TLS ------------------------------------------------------
printf 'interval: 1s\n' >"$INTEG_TMP/bottleneckd.yaml"
integ_start_bottleneckd PORT tls "$BIN" --config.file="$INTEG_TMP/bottleneckd.yaml" \
  --path.procfs="$FIXTURE/proc" --path.sysfs="$FIXTURE/sys" --path.ethtool="$FIXTURE/ethtool" \
  --web.config.file="$D/web.yml"
URL="https://127.0.0.1:$PORT"
LOG="$INTEG_TMP/bottleneckd-tls.log"
if grep -q 'msg=listening .*tls=on basic_auth=on' "$LOG"; then
  integ_pass "the daemon says it listens with TLS and basic auth"
else
  integ_fail "the listening line does not say TLS and basic auth: $(grep msg=listening "$LOG")"
fi
CURL=(curl -s -m 5 --cacert "$D/ca.crt" --cert "$D/prometheus.crt" --key "$D/prometheus.key")
code() { "${CURL[@]}" -o /dev/null -w '%{http_code}' "$@"; }

c="$(code -u prometheus:scrape-s3cret "$URL/metrics")"
[ "$c" = 200 ] && integ_pass "a scrape with the password and client certificate: 200" ||
  integ_fail "a scrape with the password and client certificate: $c"
headers="$("${CURL[@]}" -D - -o /dev/null "$URL/metrics")"
if grep -q '^HTTP/1.1 401' <<<"$headers" && grep -qi '^WWW-Authenticate: Basic realm="bottleneckd"' <<<"$headers" &&
  grep -q '^Strict-Transport-Security: max-age=31536000' <<<"$headers"; then
  integ_pass "no credentials: 401 with WWW-Authenticate: Basic, and the file's headers"
else
  integ_fail "no credentials: $(tr '\r\n' '  ' <<<"$headers")"
fi
c="$(code -u prometheus:wrong "$URL/metrics")"
[ "$c" = 401 ] && integ_pass "a wrong password: 401" || integ_fail "a wrong password: $c"
c="$(code -u nobody:scrape-s3cret "$URL/")"
[ "$c" = 401 ] && integ_pass "an unknown user, on the landing page: 401" || integ_fail "an unknown user: $c"
if grep -q 'scrape-s3cret\|wrong' "$LOG"; then
  integ_fail "a password reached the daemon's log"
else
  integ_pass "no password in the daemon's log"
fi
c="$(curl -s -m 5 --cacert "$D/ca.crt" -u prometheus:scrape-s3cret -o /dev/null -w '%{http_code}' "$URL/metrics")"
rc=$?
[ "$c" = 000 ] && integ_pass "no client certificate: the handshake is refused (curl exit $rc)" ||
  integ_fail "no client certificate: answered $c"
c="$(curl -s -m 5 --cacert "$D/ca.crt" --cert "$D/stranger.crt" --key "$D/stranger.key" -u prometheus:scrape-s3cret \
  -o /dev/null -w '%{http_code}' "$URL/metrics")"
[ "$c" = 000 ] && integ_pass "a client certificate of another CA: the handshake is refused" ||
  integ_fail "a client certificate of another CA: answered $c"
plain="$(curl -s -m 5 "http://127.0.0.1:$PORT/metrics")"
if grep -q 'Client sent an HTTP request to an HTTPS server' <<<"$plain"; then
  integ_pass "plain HTTP to the TLS port: told so, and closed"
else
  integ_fail "plain HTTP to the TLS port: '$plain'"
fi

# --- Prometheus scrapes it ----------------------------------------------------
printf 'scrape-s3cret' >"$D/password"
cat >"$INTEG_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: bottleneckd
    scheme: https
    tls_config:
      ca_file: $D/ca.crt
      cert_file: $D/prometheus.crt
      key_file: $D/prometheus.key
    basic_auth:
      username: prometheus
      password_file: $D/password
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
out="$(promtool check config "$INTEG_TMP/prometheus.yml" 2>&1)" || integ_die "promtool: $out"
integ_start_prometheus "$INTEG_TMP/prometheus.yml"
scraped() {
  local line
  line="$(integ_query 'count_over_time(up{job="bottleneckd"}[1m]) and up{job="bottleneckd"} == 1' 2>/dev/null)" || return 1
  [ -n "$line" ] && integ_num "$(integ_value "$line")" '>=' 3
}
if integ_wait_for 30 "three scrapes over TLS" scraped; then
  series="$(integ_query 'count({job="bottleneckd",__name__=~"bottleneckd_.+"})')"
  integ_pass "Prometheus scrapes over TLS with basic auth and a client certificate: up, $(integ_value "$series") bottleneckd series"
else
  integ_fail "Prometheus did not scrape over TLS: $(curl -s "$PROM_URL/api/v1/targets" | head -c 600)"
fi

# The refusals above, as Prometheus reads them from the daemon.
counted() {  # QUERY AT_LEAST
  local line
  line="$(integ_query "$1" 2>/dev/null)" && [ -n "$line" ] && integ_num "$(integ_value "$line")" '>=' "$2"
}
if integ_wait_for 10 "the refusals in the scraped counters" counted \
  'bottleneckd_http_auth_failures_total{reason="wrong_password"}' 1 &&
  counted 'bottleneckd_http_auth_failures_total{reason="unknown_user"}' 1 &&
  counted 'bottleneckd_http_tls_handshake_failures_total' 3; then
  integ_pass "bottleneckd_http_auth_failures_total and _tls_handshake_failures_total count the refusals, by reason"
else
  integ_fail "the refusal counters: $(integ_query '{__name__=~"bottleneckd_http_.*"}' 2>&1 | tr '\n' ';')"
fi

# --- hostile clients beside the scrapes --------------------------------------
# 1000 TLS connections that finish their handshake (with the client
# certificate) and then stay idle, 200 that send a ClientHello's first bytes
# and stall, and 50 that send garbage after a handshake record header, held 6
# s; meanwhile every scrape of Prometheus must still succeed (its scrape
# timeout is 1 s). The daemon's resident memory with the idle ones open is a
# figure (docs/performance.md).
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
RSS0="$(rss "$INTEG_LAST_PID")"
"$INTEG_PYTHON" - "$PORT" "$D" "$INTEG_TMP/hostile.ready" <<'PY' &
import os, resource, socket, ssl, sys, time
port, pki, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
ctx = ssl.create_default_context(cafile=pki + "/ca.crt")
ctx.load_cert_chain(pki + "/prometheus.crt", pki + "/prometheus.key")
held, idle = [], 0
deadline = time.monotonic() + 40
for i in range(1000):
    if time.monotonic() > deadline:
        break
    try:
        held.append(ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5), server_hostname="127.0.0.1"))
        idle += 1
    except OSError:
        pass
for i in range(200):
    s = socket.create_connection(("127.0.0.1", port))
    s.send(b"\x16\x03\x01\x02\x00\x01")  # a record header and one byte of the hello
    held.append(s)
for i in range(50):
    s = socket.create_connection(("127.0.0.1", port))
    s.send(b"\x16\x03\x01\x00\x40" + os.urandom(64))
    held.append(s)
with open(ready, "w") as f:
    f.write(str(idle))
time.sleep(6)
PY
HOSTILE=$!
INTEG_PIDS+=("$HOSTILE")
integ_wait_for 50 "the hostile clients connected" test -s "$INTEG_TMP/hostile.ready" || integ_die "hostile clients never connected"
IDLE="$(cat "$INTEG_TMP/hostile.ready")"
RSS1="$(rss "$INTEG_LAST_PID")"
echo "FIGURE: resident memory $RSS0 kB, $RSS1 kB with $IDLE idle TLS connections open ($(((RSS1 - RSS0) * 1024 / (IDLE > 0 ? IDLE : 1))) bytes each)"
before="$(integ_value "$(integ_query 'sum(count_over_time(up{job="bottleneckd"}[1h]))')")"
wait "$HOSTILE" 2>/dev/null
failed="$(integ_query 'count_over_time((up{job="bottleneckd"} == 0)[8s:1s])' 2>/dev/null)"
after="$(integ_value "$(integ_query 'sum(count_over_time(up{job="bottleneckd"}[1h]))')")"
if [ "$IDLE" -eq 1000 ] && [ -z "$failed" ] && integ_num "$after" '>' "$before"; then
  integ_pass "1000 idle TLS connections, 200 stalled and 50 garbage handshakes: every scrape meanwhile up ($before -> $after scrapes)"
else
  integ_fail "beside hostile clients ($IDLE of 1000 idle TLS connections made): failed scrapes '$failed' ($before -> $after scrapes)"
fi

# --- certificate renewal ------------------------------------------------------
serial() { openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$D/ca.crt" -cert "$D/prometheus.crt" \
  -key "$D/prometheus.key" </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null; }
old="$(serial)"
cert server localhost ca "subjectAltName=IP:127.0.0.1,DNS:localhost" || integ_die "openssl: the renewed certificate"
new_expected="$(openssl x509 -in "$D/server.crt" -noout -serial)"
sleep 1.2
new="$(serial)"
if [ -n "$old" ] && [ "$new" = "$new_expected" ] && [ "$new" != "$old" ]; then
  integ_pass "a certificate replaced on disk is served on the next connection ($old -> $new)"
else
  integ_fail "renewal: served '$new', on disk '$new_expected', before '$old'"
fi
c="$(code -u prometheus:scrape-s3cret "$URL/metrics")"
[ "$c" = 200 ] && integ_pass "scrapes go on with the renewed certificate" || integ_fail "after renewal: $c"

# --- version bounds -----------------------------------------------------------
# Debian's OpenSSL refuses TLS 1.0 and 1.1 itself: the bounds are proved at
# 1.2 and 1.3.
# bounds MIN MAX BOUND REFUSED SERVED: under min_version MIN, max_version MAX,
# a client asking only for REFUSED (1.2 or 1.3) gets no session, one asking
# for SERVED gets it. s_client's exit status is the handshake's: its output
# is what is judged.
bounds() {
  local min="$1" max="$2" bound="$3" refused="$4" served="$5" out
  web_config "$min" "$max"
  sleep 1.2
  out="$(openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$D/ca.crt" -cert "$D/prometheus.crt" \
    -key "$D/prometheus.key" "-tls${refused/./_}" </dev/null 2>&1 || true)"
  grep -q 'Cipher is (NONE)\|alert protocol version\|no protocols available' <<<"$out" &&
    integ_pass "TLS $refused refused under $bound" ||
    integ_fail "TLS $refused under $bound: $(grep -m2 'Protocol\|Cipher' <<<"$out")"
  out="$(openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$D/ca.crt" -cert "$D/prometheus.crt" \
    -key "$D/prometheus.key" "-tls${served/./_}" </dev/null 2>&1 || true)"
  grep -q "^New, TLSv$served, Cipher is " <<<"$out" && integ_pass "TLS $served served under $bound" ||
    integ_fail "TLS $served under $bound: $(grep -m2 'Protocol\|Cipher' <<<"$out")"
}
bounds TLS13 TLS13 "min_version: TLS13" 1.2 1.3
bounds TLS12 TLS12 "max_version: TLS12" 1.3 1.2

# A broken web config on disk keeps the previous one, said in the log.
printf 'tls_server_config: [\n' >"$D/web.yml"
sleep 1.2
c="$(code -u prometheus:scrape-s3cret "$URL/metrics")"
if [ "$c" = 200 ] && grep -q 'web config: a changed file was not taken; the previous configuration stays' "$LOG"; then
  integ_pass "a broken web config on disk: the previous one stays (200), said in the log"
else
  integ_fail "broken web config: $c; log: $(grep 'web config' "$LOG" | tail -n 2)"
fi
integ_finish
