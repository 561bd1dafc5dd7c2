#!/usr/bin/env python3
"""Bounded UDP echo for the live capture test: a server and a client.

  capture_echo.py server ADDR PORT SECONDS   echo every datagram for at most SECONDS
  capture_echo.py client ADDR PORT COUNT RATE
      sends COUNT datagrams (distinct payloads) at RATE/s, collects replies
      until 1 s after the last send, prints "sent N received M seconds S"
      (S: how long the sending took)
  capture_echo.py bursts ADDR PORT COUNT BURST
      sends COUNT datagrams of one payload (identical: nothing tells the
      replies apart) in bursts of BURST, each burst's replies collected (at
      most 0.2 s) before the next; prints the same line

Every loop is bounded in count and time; traffic goes only to ADDR (a test
host in a network namespace the test created).
"""
import socket
import sys
import time


def server(addr, port, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind((addr, port))
    s.settimeout(0.2)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            continue
        s.sendto(data, peer)


def client(addr, port, count, rate):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.setblocking(False)
    received = set()
    start = time.monotonic()
    deadline = start + count / rate + 30  # hard bound even if pacing stalls
    sent = 0

    def drain():
        while True:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                return
            received.add(data[:12])

    while sent < count and time.monotonic() < deadline:
        due = start + sent / rate
        now = time.monotonic()
        if now < due:
            time.sleep(min(due - now, 0.01))
            drain()
            continue
        payload = b"%012d" % sent + b"x" * 88  # 100 bytes, distinct
        try:
            s.sendto(payload, (addr, port))
            sent += 1
        except BlockingIOError:
            time.sleep(0.001)
        drain()
    send_seconds = time.monotonic() - start
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        time.sleep(0.01)
        drain()
    print("sent %d received %d seconds %.3f" % (sent, len(received), send_seconds))


def bursts(addr, port, count, burst):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.settimeout(0.2)
    payload = b"one payload for every request" + b"y" * 70
    sent = received = 0
    start = time.monotonic()
    while sent < count and time.monotonic() < start + 60:
        n = min(burst, count - sent)
        for _ in range(n):
            s.sendto(payload, (addr, port))
        sent += n
        got = 0
        while got < n:
            try:
                s.recv(65536)
            except socket.timeout:
                break
            got += 1
        received += got
    send_seconds = time.monotonic() - start
    print("sent %d received %d seconds %.3f" % (sent, received, send_seconds))


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif sys.argv[1] == "bursts":
        bursts(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
