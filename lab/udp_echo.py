#!/usr/bin/env python3
"""A bounded UDP echo benchmark on loopback: the seeds' test, small.

An echo server (its own process) returns every datagram; the client offers
each rate of --rates for --step seconds, paced in small bursts, and counts
the replies. Each datagram starts with its sequence number (8 bytes, little
endian; fewer for a smaller --size), so a capture of it pairs every reply
with its own request (docs/traffic-analysis.md, "Pairing"). It prints the seeds' table: applied vs echoed rate and loss per
step. Everything is bounded: at most --max-seconds in all (default 120), and
traffic goes only to 127.0.0.1.

  python3 lab/udp_echo.py --rates 20000,40000,60000 --step 5 --size 1024

Wrap it as a run to have bottleneckd label it:

  bottleneckd run --name echo-sweep -- python3 lab/udp_echo.py --rates 20000,40000 --step 10
"""
import argparse
import multiprocessing
import os
import socket
import sys
import time


def serve(port, ready, stop_after):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind(("127.0.0.1", port))
    s.settimeout(0.5)
    ready.set()
    end = time.monotonic() + stop_after
    while time.monotonic() < end:
        try:
            data, addr = s.recvfrom(65536)
        except socket.timeout:
            continue
        if data == b"stop":
            return
        s.sendto(data, addr)


def drain(sock):
    n = 0
    while True:
        try:
            sock.recv(65536)
            n += 1
        except BlockingIOError:
            return n


def step(sock, server, rate, seconds, payload, first_seq):
    """Offers `rate` datagrams/s for `seconds`, numbered from first_seq;
    returns (sent, echoed)."""
    sent = echoed = 0
    width = min(8, len(payload))
    start = time.monotonic()
    end = start + seconds
    burst = max(1, rate // 1000)  # bursts every ~1 ms
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * rate)
        while sent < due:
            for _ in range(min(burst, due - sent)):
                payload[:width] = ((first_seq + sent) & (1 << 64) - 1).to_bytes(8, "little")[:width]
                try:
                    sock.sendto(payload, server)
                except (BlockingIOError, ConnectionRefusedError):
                    pass
                sent += 1
            echoed += drain(sock)
        echoed += drain(sock)
        time.sleep(0.0005)
    time.sleep(0.05)  # the last replies in flight
    echoed += drain(sock)
    return sent, echoed


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rates", default="10000,20000,30000", help="offered datagrams/s per step, comma-separated")
    p.add_argument("--step", type=float, default=5, help="seconds per step")
    p.add_argument("--size", type=int, default=1024, help="UDP payload bytes")
    p.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    p.add_argument("--max-seconds", type=float, default=120, help="hard bound on the whole run")
    a = p.parse_args()
    try:
        rates = [int(r) for r in a.rates.split(",") if r]
    except ValueError:
        p.error("--rates must be whole numbers separated by commas")
    if not rates or any(r <= 0 or r > 2_000_000 for r in rates):
        p.error("--rates must be between 1 and 2000000")
    if not 0 < a.step <= 600 or not 1 <= a.size <= 65000:
        p.error("--step must be in (0, 600] and --size in [1, 65000]")
    total = a.step * len(rates)
    if total > a.max_seconds:
        p.error("the sweep takes %.0f s, above --max-seconds %.0f" % (total, a.max_seconds))

    port = a.port
    if port == 0:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(port, ready, total + 10), daemon=True)
    server.start()
    if not ready.wait(10):
        sys.exit("udp_echo: the server did not start")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    payload = bytearray(os.urandom(a.size))
    print("%10s %12s %12s %8s" % ("offered/s", "applied/s", "echoed/s", "loss %"), flush=True)
    seq = 0
    for rate in rates:
        sent, echoed = step(sock, ("127.0.0.1", port), rate, a.step, payload, seq)
        seq += sent
        loss = 100.0 * (sent - echoed) / sent if sent else 0.0
        print("%10d %12.0f %12.0f %8.2f" % (rate, sent / a.step, echoed / a.step, loss), flush=True)
    try:
        sock.sendto(b"stop", ("127.0.0.1", port))
    except OSError:
        pass
    server.join(5)
    if server.is_alive():
        server.terminate()


if __name__ == "__main__":
    main()
