#!/usr/bin/env python3
"""A misbehaving query API on loopback, for the fleet report's bad-input
tests. The URL's first path segment picks the behaviour; the report appends
/api/v1/query_range to whatever URL it is given:

  /error500   HTTP 500 with a plain-text body
  /apierror   HTTP 422 with the API's JSON error (errorType, error)
  /slow       answers nothing for 30 s (the report's --prometheus.timeout ends it)
  /garbage    HTTP 200 with a body that is not JSON
  /empty      a valid answer with no series (a selector that matches nothing)
  /partial    one host bound by cpu0 at every step, with a warning (partial data)
  /auth       as /partial, but only with "Authorization: Bearer s3cret" (else 401)

Each request is one line on stderr. Stops itself after --seconds. With
--tls-cert and --tls-key it answers HTTPS only.
"""
import argparse
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def matrix(form, warnings):
    start, end, step = float(form["start"][0]), float(form["end"][0]), float(form["step"][0])
    n = int((end - start) / step + 1e-9) + 1
    values = [[start + i * step, "1"] for i in range(n)]
    series = {"instance": "a:9858", "job": "bottleneckd", "bound": "cpu", "resource": "cpu0", "run": "r"}
    body = {"status": "success", "data": {"resultType": "matrix", "result": [{"metric": series, "values": values}]}}
    if warnings:
        body["warnings"] = warnings
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("fake-store: %s\n" % (fmt % args))

    def send(self, code, body, ctype="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        mode = self.path.strip("/").split("/")[0]
        if mode == "error500":
            self.send(500, "internal error: the storage is on fire\n", "text/plain")
        elif mode == "apierror":
            self.send(422, {"status": "error", "errorType": "execution", "error": "query processing would load too many samples"})
        elif mode == "slow":
            time.sleep(30)
            self.send(200, {"status": "success", "data": {"resultType": "matrix", "result": []}})
        elif mode == "garbage":
            self.send(200, "<html>this is a login page</html>", "text/html")
        elif mode == "empty":
            self.send(200, {"status": "success", "data": {"resultType": "matrix", "result": []}})
        elif mode == "partial":
            self.send(200, matrix(form, ["remote read of site-b timed out"]))
        elif mode == "auth":
            if self.headers.get("Authorization") != "Bearer s3cret":
                self.send(401, "unauthorized\n", "text/plain")
            else:
                self.send(200, matrix(form, None))
        else:
            self.send(404, "no such mode\n", "text/plain")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if a.tls_cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.daemon_threads = True
    threading.Timer(a.seconds, srv.shutdown).start()
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
