#!/usr/bin/env python3
"""N scrapes of one exporter for bench/tls_scrape.sh (loopback only).

  tls_scrape.py URL N MODE [PKI USER PASSWORD]

MODE: "kept" (one kept-alive connection for all N scrapes), "fresh" (a new
connection, and with https a new TLS handshake, for each), or "idle" (N
connections that finish their handshake and send nothing: it prints "ready
N" once they are open and holds them until its stdin closes). With https the
client presents PKI/prometheus.crt and trusts PKI/ca.crt, and sends basic
auth USER:PASSWORD, as Prometheus does with scheme: https, tls_config and
basic_auth. Each scrape asks for gzip, as Prometheus does. Prints one line:
"ok N median_ms p95_ms body_bytes" or exits 1 on the first failed scrape.
"""
import base64
import http.client
import ssl
import sys
import time
import urllib.parse


def main():
    url, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    u = urllib.parse.urlsplit(url)
    headers = {"Accept-Encoding": "gzip", "Accept": "text/plain"}
    ctx = None
    if u.scheme == "https":
        pki, user, password = sys.argv[4], sys.argv[5], sys.argv[6]
        ctx = ssl.create_default_context(cafile=pki + "/ca.crt")
        ctx.load_cert_chain(pki + "/prometheus.crt", pki + "/prometheus.key")
        token = base64.b64encode((user + ":" + password).encode()).decode()
        headers["Authorization"] = "Basic " + token

    def connect():
        if ctx is not None:
            return http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=10)
        return http.client.HTTPConnection(u.hostname, u.port, timeout=10)

    if mode == "idle":
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 256), hard))
        held = []
        for _ in range(n):
            c = connect()
            c.connect()
            held.append(c)
        print("ready %d" % len(held), flush=True)
        sys.stdin.read()
        return

    conn = connect()
    times, size = [], 0
    for _ in range(n):
        if mode == "fresh":
            conn.close()
            conn = connect()
        t0 = time.monotonic()
        conn.request("GET", u.path, headers=headers)
        r = conn.getresponse()
        body = r.read()
        times.append(time.monotonic() - t0)
        if r.status != 200:
            print("scrape answered %d" % r.status, file=sys.stderr)
            sys.exit(1)
        size = len(body)
    conn.close()
    times.sort()
    print("ok %d %.3f %.3f %d" % (n, 1000 * times[len(times) // 2], 1000 * times[int(0.95 * (len(times) - 1))], size))


if __name__ == "__main__":
    main()
