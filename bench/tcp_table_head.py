# Cost of reading a TCP table whole against its head (one 4 KiB read: the
# seq file's first page, the listeners first), with N loopback connections
# open in this network namespace (bench/tcp_table_head.sh runs it in one of
# its own).
import os, socket, sys, time
n = int(sys.argv[1])
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(4096)
port = ls.getsockname()[1]
cs, ss = [], []
for i in range(n):
    c = socket.socket(); c.connect(("127.0.0.1", port)); cs.append(c)
    s, _ = ls.accept(); ss.append(s)
def whole():
    with open("/proc/self/net/tcp", "rb", buffering=0) as f:
        b = 0
        while True:
            d = f.read(65536)
            if not d: return b
            b += len(d)
def head():
    with open("/proc/self/net/tcp", "rb", buffering=0) as f:
        return len(f.read(4096))
for name, fn in (("whole", whole), ("head 4 KiB", head)):
    best = None
    for r in range(20):
        t = time.perf_counter(); b = fn(); dt = time.perf_counter() - t
        best = dt if best is None or dt < best else best
    print("%d connections: %s: %d bytes, best of 20: %.1f us" % (n, name, b, best * 1e6))
