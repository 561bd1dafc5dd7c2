#!/usr/bin/env python3
"""Hostile and ordinary HTTP clients for bottleneckd's endpoint (loopback only).

Shared by tests/integration/http_hostile_test.sh and bench/http_hostile.sh.
Every mode runs for a bounded time and prints one JSON object on stdout.

  slowloris  N connections that each send a request one byte every INTERVAL s
             and never finish it; a connection the server closes is counted
             (lifetime, whether a 408 came first) and reopened.
  idle       N connections that send nothing; counted like slowloris.
  scrape     W scrapers, each GET /metrics every INTERVAL s; latency of each
             (connect to end of body), failures (non-200, error, timeout).
  post       one POST announcing a huge Content-Length, body never sent;
             the status, the seconds until it came and until the server closed
             (null: it did not close within --timeout).
"""

import argparse
import json
import resource
import selectors
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
# The request a slowloris client dribbles; it never reaches the blank line.
SLOW_REQUEST = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4096


def percentile(values, p):
    if not values:
        return None
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100.0 * (len(s) - 1)))))
    return s[k]


def summary(values):
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p99": percentile(values, 99),
        "max": max(values) if values else None,
    }


class Holder:
    """One held connection: its socket, when it opened, how far it has sent."""

    def __init__(self, port, dribble):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sock.connect_ex((HOST, port))
        self.opened = time.monotonic()
        self.sent = 0
        self.reply = b""
        self.dribble = dribble


def hold(args, dribble):
    sel = selectors.DefaultSelector()
    live = []
    lifetimes, got_408, refused = [], 0, 0
    opened_total = 0
    deadline = time.monotonic() + args.duration

    def open_one():
        nonlocal opened_total, refused
        try:
            h = Holder(args.port, dribble)
        except OSError:
            refused += 1
            return
        opened_total += 1
        live.append(h)
        sel.register(h.sock, selectors.EVENT_READ, h)

    def close_one(h, by_server):
        nonlocal got_408
        sel.unregister(h.sock)
        h.sock.close()
        live.remove(h)
        if by_server:
            lifetimes.append(time.monotonic() - h.opened)
            if h.reply.startswith(b"HTTP/1.1 408") or h.reply.startswith(b"HTTP/1.0 408"):
                got_408 += 1

    for _ in range(args.connections):
        open_one()
    next_tick = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        for key, _ in sel.select(timeout=max(0.0, min(next_tick, deadline) - now)):
            h = key.data
            try:
                data = h.sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if data:
                h.reply += data[:64]
                continue
            close_one(h, True)
        if time.monotonic() >= next_tick:
            next_tick += args.interval
            for h in list(live):
                if not h.dribble or h.sent >= len(SLOW_REQUEST):
                    continue
                try:
                    h.sent += h.sock.send(SLOW_REQUEST[h.sent : h.sent + 1])
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    close_one(h, True)
        while len(live) < args.connections and time.monotonic() < deadline:
            open_one()
            if refused > 100000:
                break
    for h in list(live):
        close_one(h, False)
    return {
        "connections": args.connections,
        "opened": opened_total,
        "closed_by_server": len(lifetimes),
        "replied_408": got_408,
        "connect_errors": refused,
        "lifetime_s": summary(lifetimes),
    }


def scrape_once(port, path, timeout):
    """Returns (status or None, seconds, body bytes)."""
    t0 = time.monotonic()
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            chunks = []
            while True:
                left = timeout - (time.monotonic() - t0)
                if left <= 0:
                    return None, time.monotonic() - t0, 0
                s.settimeout(left)
                c = s.recv(65536)
                if not c:
                    break
                chunks.append(c)
    except OSError:
        return None, time.monotonic() - t0, 0
    data = b"".join(chunks)
    status = None
    if data.startswith(b"HTTP/1."):
        try:
            status = int(data[9:12])
        except ValueError:
            pass
    return status, time.monotonic() - t0, len(data)


def scrape(args):
    latencies, failures = [], []
    lock = threading.Lock()
    deadline = time.monotonic() + args.duration

    def scraper(i):
        # Spread the scrapers over the interval, as Prometheus spreads targets.
        next_at = time.monotonic() + args.interval * i / max(1, args.workers)
        while True:
            now = time.monotonic()
            if next_at >= deadline:
                return
            if next_at > now:
                time.sleep(next_at - now)
            status, secs, _ = scrape_once(args.port, args.path, args.timeout)
            with lock:
                latencies.append(secs)
                if status != 200:
                    failures.append({"status": status, "seconds": round(secs, 3)})
            next_at += args.interval
            if next_at < time.monotonic():  # late: skip missed slots, like Prometheus
                next_at = time.monotonic()

    threads = [threading.Thread(target=scraper, args=(i,), daemon=True) for i in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(args.duration + args.timeout + 5)
    return {
        "workers": args.workers,
        "scrapes": len(latencies),
        "failed": len(failures),
        "failures": failures[:10],
        "latency_s": summary(latencies),
    }


def post(args):
    t0 = time.monotonic()
    status, secs = None, None
    with socket.create_connection((HOST, args.port), timeout=args.timeout) as s:
        s.sendall(
            b"POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\n\r\n" % args.content_length
        )
        data, closed = b"", None
        try:
            while True:
                c = s.recv(4096)
                if b"\r\n" in c and secs is None:
                    secs = time.monotonic() - t0
                if not c:
                    closed = time.monotonic() - t0
                    break
                data += c
        except OSError:
            pass
        if data.startswith(b"HTTP/1."):
            status = int(data[9:12])
    return {"status": status, "seconds": secs, "closed_s": closed}


def raise_file_limit():
    """A thousand held connections need more descriptors than a shell's 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, 65536), hard))


def main():
    raise_file_limit()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["slowloris", "idle", "scrape", "post"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--duration", type=float, default=10.0, help="seconds the mode runs")
    p.add_argument("--connections", type=int, default=200, help="held connections (slowloris, idle)")
    p.add_argument("--workers", type=int, default=50, help="scrapers (scrape)")
    p.add_argument("--interval", type=float, default=0.3, help="seconds between bytes / scrapes")
    p.add_argument("--timeout", type=float, default=10.0, help="a scrape or POST slower than this fails")
    p.add_argument("--path", default="/metrics")
    p.add_argument("--content-length", type=int, default=1 << 30)
    args = p.parse_args()
    if args.mode == "slowloris":
        out = hold(args, True)
    elif args.mode == "idle":
        out = hold(args, False)
    elif args.mode == "scrape":
        out = scrape(args)
    else:
        out = post(args)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
