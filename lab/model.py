"""The host simulator's model: one tick of a host under network load.

A small fluid model, one tick = one sampling interval. Packets arrive at one
NIC at the offered rate and climb the drop ladder; CPU time is handed out by
priority on each CPU:

  steal (the hypervisor) and background tasks   fixed shares, taken first
  the generator   a sender on the same host, per datagram it sends
  hardirq   per interrupt (+ per packet for a non-NAPI driver)
  softirq   per received packet (NAPI poll or backlog, IP, UDP), per sent
            packet (tx completion); shares the CPU fairly with the app when
            it needs more than Nic.softirq_defer of it (ksoftirqd, a normal
            task, runs it then)
  the app   per delivered packet: kernel (recv/send syscalls) and user time,
            plus its extra copies of the payload; a worker thread's, on its
            own CPU, when the app hands each datagram to one
  idle      what is left (the soaker runs here when it is on)

Drops, lowest rung first:
  NIC      the bus cannot carry the DMA (rx_missed_errors), or the ring
           overflows because the poll cannot keep up (NAPI) or the hardirq
           alone needs more than the CPU (rx_no_buffer_count + rx_missed_errors)
  backlog  a non-NAPI driver queued packets the softirq cannot process
  socket   the app cannot keep up (UDP RcvbufErrors), or a brief stall of
           the app loses a burst (Load.bursts: the fluid model has no queues)

A NIC with a finite ring (Nic.ring, the seeds' box as the mails describe it)
is not fluid: the load arrives in trains (Load.trains) and each moderated
interrupt's batch runs to completion before the ring is serviced again
(_ring_path, an event simulation of a few trains): the ring overflows while
the CPU works through a batch, and the CPU idles between trains.

A virtual NIC (a veth pair) has no interrupts and no bus: its sender, a load
generator on the same host (Generator), does the receive processing on its
own CPU, or with RPS hands it to the queue CPU; the echo's receive in the
peer's namespace runs on the app's CPU.

The target threads' seconds (ThreadTime): on a CPU (their CPU time), on its
run queue (the CPU's other work ran while they wanted it) and off it in their
own waits (an empty socket, a sleep after each datagram, the worker's lock),
with their voluntary and involuntary context switches.

Everything is per second (rates, CPU shares); the writer multiplies by the
interval. Standard library only.
"""

import math
from dataclasses import dataclass, field
from typing import Optional

from bus import Bus

UDP_IP_ETH = 8 + 20 + 14  # UDP + IPv4 + Ethernet headers: frame = payload + 42 (no FCS)


def frame_bytes(payload):
    """Ethernet frame without FCS, as Linux counts it (padded to 60)."""
    return max(payload + UDP_IP_ETH, 60)


@dataclass
class Costs:
    """True CPU time per event, microseconds."""
    hardirq_per_interrupt: float
    softirq_per_packet: float        # rx: poll/backlog, IP, UDP, socket enqueue
    softirq_per_tx_packet: float = 0.0  # tx completion per packet sent
    hardirq_per_packet: float = 0.0  # non-NAPI driver: rx descriptor work in the hardirq
    copy_per_kib: float = 0.25       # one extra copy of 1 KiB by the app


@dataclass
class Worker:
    """A second thread of the app: the app's thread hands it every datagram over
    one mutex, which it holds while it works (and echoes); the app's thread
    waits on the mutex for that work and for the handoff's two wake-ups (each
    a futex wake until the woken thread runs on its idle CPU).

    pool: a pool worker instead: the app's thread puts each datagram on a
    queue and goes on (no wait for the work); the worker waits on its
    condition variable for the next one."""
    comm: str
    tid: int
    cpu: int
    user_per_packet: float    # µs, holding the lock
    kernel_per_packet: float  # µs: the echo's send, the futex calls
    wakeup: float             # µs from a futex wake to the woken thread running
    pool: bool = False


@dataclass
class App:
    """The application thread that receives (and echoes) the load: the socket's
    reader, the main thread of its process."""
    comm: str
    pid: int
    cpu: int
    kernel_per_packet: float  # µs: recv (+ send) syscalls
    user_per_packet: float    # µs: its own work
    echo: bool = True
    sleep_per_packet: float = 0.0  # µs asleep (clock_nanosleep) after each datagram
    worker: Optional[Worker] = None

    @property
    def tid(self):
        return self.pid


def target_threads(m):
    """The app's threads (App, then its Worker), as Tick.threads lists them."""
    return [m.app] + ([m.app.worker] if m.app.worker else [])


@dataclass
class Generator:
    """A load generator on the same host: a normal task pinned on `cpu` that
    sends the load with sendmmsg, `batch` datagrams a call, paying user and
    system time per datagram (the system time includes a veth's transmit and
    RPS's enqueue, and reading the echoes). It sends no faster than its CPU
    allows."""
    cpu: int
    user_per_packet: float    # µs
    system_per_packet: float  # µs
    batch: int = 64


@dataclass
class Nic:
    """The NIC the load arrives on. queue_cpus: the CPU of each rx queue's
    interrupt (flows spread evenly). irq_limit: interrupts per second per queue
    (moderation); None = one interrupt per packet.

    virtual: a veth pair (irq_limit 0, an emulated bus): queue_cpus are the
    CPUs doing the receive processing, the generator's own or, with rps, the
    RPS target (the generator queues each packet to its backlog, one IPI a
    batch); the echo's receive in the peer's namespace is softirq time on the
    app's CPU. softirq_defer: the share of the app CPU's free time the rx
    softirq takes before ksoftirqd (a normal task) shares the CPU with the app
    (CFS); 1.0 when each softirq run drains its backlog (no time_squeeze)."""
    name: str
    bus: Bus
    queue_cpus: list
    irq_limit: Optional[float] = 8000.0
    napi: bool = True
    netdev_budget: int = 300
    virtual: bool = False
    rps: bool = False
    softirq_defer: float = 0.5
    # A finite rx ring of this many descriptors, serviced run to completion:
    # an interrupt (no sooner than 1 / irq_limit after the previous one) takes
    # everything in the ring, and the batch's hardirq, receive, tx completion
    # and echo all run before the next interrupt is handled; arrivals meanwhile
    # wait in the ring and overflow it (rx_missed_errors, rx_no_buffer_count).
    # None: the fluid model (the ring never overflows but by the rules above).
    ring: Optional[int] = None


@dataclass
class Machine:
    ncpu: int
    costs: Costs
    app: App
    nic: Nic
    # Share of hardirq time the kernel's accounting charges to the idle task
    # (or to the soaker thread when it runs) instead of to "irq": 0 with
    # CONFIG_IRQ_TIME_ACCOUNTING, 1 for the seed's box (see README.md).
    hidden_irq_share: float = 0.0
    soaker: bool = False
    soaker_rate: float = 3.1e6           # calibrated soaker units per second
    steal: list = field(default_factory=list)       # per CPU share (default 0)
    background: list = field(default_factory=list)  # per CPU (user, system) shares
    generator: Optional[Generator] = None           # the sender, on the same host
    # Share of the softirq time on the app's CPU charged to the app thread's
    # stime: a kernel without CONFIG_IRQ_TIME_ACCOUNTING charges a tick spent in
    # softirq to the task it interrupted (/proc/stat still says softirq); the
    # rest ran in ksoftirqd. 0: the thread's time is its own.
    softirq_to_app: float = 0.0


@dataclass
class Trains:
    """The senders' datagrams arrive in trains: every `period` seconds a train
    of offered x period datagrams at `line_pps` (the link's line rate), nothing
    between trains (several senders paced by their timer ticks, merged by a
    switch onto one gigabit port)."""
    period: float
    line_pps: float


@dataclass
class Load:
    """A step of offered load: [start, end) seconds from the first sample."""
    name: str
    start: float
    end: float
    pps: float
    payload: int
    copies: int = 0           # extra copies of each payload the app makes
    steal: Optional[float] = None  # overrides the machine's steal on every CPU
    label: str = "none"       # ground truth
    resource: str = ""
    bursts: dict = field(default_factory=dict)  # second of the run -> datagrams lost at the socket
    trains: Optional[Trains] = None  # how datagrams arrive on a NIC with a ring (Nic.ring)

    def burst_at(self, t):
        """Datagrams lost in a burst in the tick starting t seconds from sample 0."""
        return self.bursts.get(int(round(t - self.start)), 0)


@dataclass
class CpuTime:
    """True seconds of one CPU in one second."""
    steal: float = 0.0
    bg_user: float = 0.0
    bg_system: float = 0.0
    hardirq: float = 0.0
    softirq: float = 0.0
    softirq_tx: float = 0.0  # the NET_TX part of softirq (tx completion); the rest is NET_RX
    app_user: float = 0.0
    app_system: float = 0.0
    idle: float = 0.0
    waiting: float = 0.0  # a runnable task waited (CPU pressure "some")


@dataclass
class ThreadTime:
    """One target thread's second: shares on a CPU (its CPU time as charged to
    it), on its CPU's run queue and in each of its own waits (kind -> share:
    "recv" an empty socket, "sleep" its sleep, "lock" the worker's mutex,
    "work" the worker waiting for the next datagram), summing to 1; and its
    context switches per second: voluntary (it blocked), involuntary (another
    task preempted it)."""
    running: float = 0.0
    runnable: float = 0.0
    waits: dict = field(default_factory=dict)
    voluntary: float = 0.0
    involuntary: float = 0.0


@dataclass
class Tick:
    """Rates (per second) of one tick; the writer turns them into counters."""
    offered: float = 0.0
    payload: int = 0
    nic_bus_drops: float = 0.0
    nic_ring_drops: float = 0.0
    rx: float = 0.0              # frames the driver passed up (rx_packets)
    backlog_drops: float = 0.0
    processed: float = 0.0       # packets that reached IP/UDP
    socket_drops: float = 0.0
    delivered: float = 0.0       # datagrams read by the app
    tx: float = 0.0              # datagrams echoed
    interrupts: list = field(default_factory=list)  # per queue
    queue_rx: list = field(default_factory=list)    # rx per queue
    queue_processed: list = field(default_factory=list)
    queue_backlog_drops: list = field(default_factory=list)
    queue_squeeze: list = field(default_factory=list)
    # CPU seconds per second each queue's interrupt caused on its CPU: the
    # hardirq, and the network softirq that followed it (receive, NET_RX;
    # tx completion, NET_TX). Softirq a CPU ran without a queue interrupt (a
    # veth's receive) is in CpuTime.softirq only.
    queue_hardirq: list = field(default_factory=list)
    queue_softirq_rx: list = field(default_factory=list)
    queue_softirq_tx: list = field(default_factory=list)
    bus_utilisation: Optional[float] = None
    cpus: list = field(default_factory=list)        # CpuTime per CPU
    threads: list = field(default_factory=list)     # ThreadTime per target_threads(m)


US = 1e-6
PREEMPT_SLICE = 0.003  # s another task runs once it preempts a thread (a CFS slice)


def _host_rate(r, limit, c):
    """Packets per second the hardirq can take, at most r, within `limit` CPU."""
    def cost(x):
        irqs = x if c.irq_limit is None else min(x, c.irq_limit)
        return irqs * c.per_irq + x * c.per_pkt
    if cost(r) <= limit:
        return r
    lo, hi = 0.0, r
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cost(mid) <= limit else (lo, mid)
    return lo


@dataclass
class _IrqCost:
    irq_limit: Optional[float]
    per_irq: float
    per_pkt: float


def simulate_tick(m: Machine, load: Optional[Load], jitter: tuple, burst: float = 0.0) -> Tick:
    """One second of machine m under load (None: no load). jitter = (offered
    factor, [background factor per CPU]) drawn by the caller; burst: datagrams
    the socket loses this tick on top of the fluid model (load.burst_at)."""
    c, app, nic = m.costs, m.app, m.nic
    offered_factor, bg_factor = jitter
    t = Tick(cpus=[CpuTime() for _ in range(m.ncpu)])
    for i, cpu in enumerate(t.cpus):
        steal = m.steal[i] if m.steal else 0.0
        if load and load.steal is not None:
            steal = load.steal
        cpu.steal = steal
        user, system = m.background[i] if m.background else (0.0, 0.0)
        cpu.bg_user, cpu.bg_system = user * bg_factor[i], system * bg_factor[i]
    nq = len(nic.queue_cpus)
    t.interrupts = [0.0] * nq
    t.queue_rx = [0.0] * nq
    t.queue_processed = [0.0] * nq
    t.queue_backlog_drops = [0.0] * nq
    t.queue_squeeze = [0.0] * nq
    t.queue_hardirq, t.queue_softirq_rx, t.queue_softirq_tx = [0.0] * nq, [0.0] * nq, [0.0] * nq
    if load is None or load.pps <= 0:
        _finish(m, t)
        return t

    t.payload = load.payload
    frame = frame_bytes(load.payload)
    t.offered = load.pps * offered_factor
    assert m.generator or not nic.virtual  # a veth's sender runs on the host
    if m.generator:
        t.offered = _generator(m, t)
    # App cost per delivered packet (µs), and the tx completion it causes.
    a = app.kernel_per_packet + app.user_per_packet \
        + load.copies * c.copy_per_kib * load.payload / 1024.0
    txc = c.softirq_per_tx_packet if app.echo else 0.0
    if nic.ring:
        _ring_path(m, t, load, a, txc)
        t.bus_utilisation = nic.bus.utilisation(t.rx, frame, t.tx, frame, sum(t.interrupts))
        _finish(m, t)
        return t

    def irq_rate(r):  # interrupts per second of all queues at rx rate r
        per_q = r / nq
        return nq * (per_q if nic.irq_limit is None else min(per_q, nic.irq_limit))

    # Bus: the rx rate the NIC can DMA, with the echo's tx sharing the bus.
    # Fixed point: the echo sends what the app delivers.
    tx_ratio, r_bus = (1.0 if app.echo else 0.0), t.offered
    for _ in range(6):
        limit = nic.bus.max_rx_rate(tx_ratio, frame, irq_rate)
        r_bus = t.offered if limit is None else min(t.offered, limit)
        _cpu_path(m, t, r_bus, a, txc)
        if not app.echo or r_bus <= 0:
            break
        tx_ratio = t.delivered / r_bus
    t.nic_bus_drops = max(0.0, t.offered - r_bus)
    if burst:  # the app stalled: the socket buffer overflowed for a moment
        lost = min(burst, t.delivered)
        t.delivered -= lost
        t.socket_drops += lost
        t.tx = t.delivered if app.echo else 0.0
    t.bus_utilisation = nic.bus.utilisation(t.rx, frame, t.tx, frame, sum(t.interrupts))
    _finish(m, t)
    return t


def _generator(m, t):
    """The rate the generator sends (at most t.offered: what its CPU allows),
    its time on its CPU counted with the other tasks' (user, system), and the
    receive softirq of the queues on its CPU (a veth's sender does it)."""
    g, nic = m.generator, m.nic
    assert g.cpu != m.app.cpu
    cpu = t.cpus[g.cpu]
    own = (g.user_per_packet + g.system_per_packet) * US
    soft = m.costs.softirq_per_packet * US * nic.queue_cpus.count(g.cpu) / len(nic.queue_cpus)
    free = max(0.0, 1.0 - cpu.steal - cpu.bg_user - cpu.bg_system)
    rate = min(t.offered, free / (own + soft))
    cpu.bg_user += rate * g.user_per_packet * US
    cpu.bg_system += rate * g.system_per_packet * US
    return rate


def _cpu_path(m, t, r_bus, a, txc):
    """Hardirq, softirq and app time for rx rate r_bus; fills t's packet rates."""
    c, app, nic = m.costs, m.app, m.nic
    nq = len(nic.queue_cpus)
    for cpu in t.cpus:
        cpu.hardirq = cpu.softirq = cpu.softirq_tx = cpu.app_user = cpu.app_system = 0.0
        cpu.waiting = 0.0
    t.queue_hardirq, t.queue_softirq_rx, t.queue_softirq_tx = [0.0] * nq, [0.0] * nq, [0.0] * nq
    ic = _IrqCost(nic.irq_limit, c.hardirq_per_interrupt * US, c.hardirq_per_packet * US)
    soft = c.softirq_per_packet * US
    avail, host = [], []
    for q, cpu_id in enumerate(nic.queue_cpus):
        cpu = t.cpus[cpu_id]
        free = max(0.0, 1.0 - cpu.steal - cpu.bg_user - cpu.bg_system - cpu.hardirq
                   - cpu.softirq)
        r_q = r_bus / nq
        h = _host_rate(r_q, free, ic)
        t.interrupts[q] = h if nic.irq_limit is None else min(h, nic.irq_limit)
        t.queue_hardirq[q] = t.interrupts[q] * ic.per_irq + h * ic.per_pkt
        cpu.hardirq += t.queue_hardirq[q]
        t.queue_rx[q] = h  # NAPI: replaced by what the poll took, below
        host.append((q, cpu_id, h, r_q - h))
        avail.append(free - (t.interrupts[q] * ic.per_irq + h * ic.per_pkt))
    # Rx softirq on queue CPUs without the app (the app's CPU comes last).
    processed = [0.0] * nq
    app_q = [q for q, cpu_id, _, _ in host if cpu_id == app.cpu]
    for q, cpu_id, h, _ in host:
        if cpu_id != app.cpu:
            s = min(h * soft, avail[q])
            processed[q] = s / soft
            t.cpus[cpu_id].softirq += s
            t.queue_softirq_rx[q] = s
            avail[q] -= s
    # The app's CPU.
    cpu = t.cpus[app.cpu]
    own_free = max(0.0, 1.0 - cpu.steal - cpu.bg_user - cpu.bg_system - cpu.hardirq
                   - cpu.softirq)
    share = 1.0 / nq  # tx completions land on every queue CPU evenly
    if nic.virtual:   # veth: the peer's receive of each echo runs on the app's CPU
        a_eff = (a + txc) * US
    else:
        a_eff = (a + (txc * share if app_q else 0.0)) * US
    p_other = sum(processed)
    if app_q:
        q = app_q[0]
        h = host[q][2]
        need = h * soft
        if need + (p_other + h) * a_eff <= own_free:
            s, d = need, p_other + h
        elif need <= own_free * nic.softirq_defer:
            s = need
            d = (own_free - s) / a_eff
        else:  # ksoftirqd and the app share the CPU (CFS)
            s_x = (own_free - p_other * a_eff) / (1 + a_eff / soft)
            s = min(need, max(own_free / 2, s_x))
            d = min(p_other + s / soft, (own_free - s) / a_eff)
            cpu.waiting = own_free / 2 if s < need else 0.0
        processed[q] = s / soft
        cpu.softirq += s
        t.queue_softirq_rx[q] = s
    else:
        d = min(p_other, own_free / a_eff)
    d = max(0.0, min(d, sum(processed), _thread_rate(m, t, _left(cpu), a_eff)))
    # Tx completions on queue CPUs other than the app's must fit there (veth: all on the app's).
    if txc > 0 and nic.virtual:  # a receive (NET_RX) raised by no interrupt
        cpu.softirq += d * txc * US
    elif txc > 0:
        for q, cpu_id, _, _ in host:
            if cpu_id != app.cpu and d * share * txc * US > avail[q]:
                d = avail[q] / (share * txc * US)
        tx = d * share * txc * US  # NET_TX, after the queue's interrupt
        for q, cpu_id, _, _ in host:
            if cpu_id != app.cpu:
                t.cpus[cpu_id].softirq += tx
                t.cpus[cpu_id].softirq_tx += tx
                t.queue_softirq_tx[q] += tx
        if app_q:  # the app's CPU takes its share of the tx completions too
            cpu.softirq += tx
            cpu.softirq_tx += tx
            t.queue_softirq_tx[app_q[0]] += tx
    if d < sum(processed) - 1e-9:
        cpu.waiting = max(cpu.waiting, cpu.bg_user + cpu.bg_system)
    cpu.app_user = d * (a * US - app.kernel_per_packet * US)
    cpu.app_system = d * app.kernel_per_packet * US
    if app.worker:
        w = t.cpus[app.worker.cpu]
        w.app_user = d * app.worker.user_per_packet * US
        w.app_system = d * app.worker.kernel_per_packet * US
    # Where the packets the softirq could not take were lost, and squeezes.
    t.nic_ring_drops = 0.0
    for q, cpu_id, h, ring_lost in host:
        left = max(0.0, h - processed[q])
        t.nic_ring_drops += ring_lost
        t.queue_processed[q] = processed[q]
        t.queue_squeeze[q] = processed[q] / nic.netdev_budget if left > 1e-6 else 0.0
        if nic.napi:  # left in the ring: the NIC drops them
            t.nic_ring_drops += left
            t.queue_rx[q] = processed[q]
            t.queue_backlog_drops[q] = 0.0
        else:         # queued by netif_rx, dropped at the backlog
            t.queue_rx[q] = h
            t.queue_backlog_drops[q] = left
    t.rx = sum(t.queue_rx)
    t.backlog_drops = sum(t.queue_backlog_drops)
    t.processed = sum(processed)
    t.delivered = d
    t.socket_drops = max(0.0, t.processed - d)
    t.tx = d if app.echo else 0.0


RING_TRAINS = 4  # trains simulated per tick: the first two settle, the last two are measured


def _ring_service(pps, trains, ring, gap, h, w):
    """Per second: (datagrams served, lost at the ring, interrupts, CPU busy),
    of a ring of `ring` descriptors serviced run to completion (Nic.ring) with
    interrupts at least `gap` apart, `h` seconds of hardirq per interrupt and
    `w` seconds of work per datagram (receive, tx completion, the echo), under
    `pps` offered in `trains`. Arrivals are fluid within a train."""
    period = trains.period
    on = min(period, pps * period / trains.line_pps)
    rate = pps * period / on if on > 0 else 0.0

    def arrivals(t1, t2):
        total, k = 0.0, int(t1 // period)
        while k * period < t2:
            lo, hi = max(t1, k * period), min(t2, k * period + on)
            total += max(0.0, hi - lo) * rate
            k += 1
        return total

    def next_arrival(t):
        k = int(t // period)
        return t if t - k * period < on else (k + 1) * period

    t, last, q = 0.0, -gap, 0.0
    end = RING_TRAINS * period
    m0 = end - 2 * period
    served = lost = irqs = busy = 0.0
    while True:
        at = max(t if q > 1e-9 else next_arrival(t), last + gap)  # the next interrupt
        if at >= end:
            break
        over = max(0.0, q + arrivals(t, at) - ring)  # unserviced since the last batch
        n = min(ring, q + arrivals(t, at))
        work = h + n * w
        a2 = arrivals(at, at + work)                 # the batch runs to completion
        over2 = max(0.0, a2 - ring)
        q = min(ring, a2)
        if at >= m0:
            served, lost, irqs = served + n, lost + over + over2, irqs + 1
        busy += max(0.0, min(end, at + work) - max(m0, at))
        last, t = at, at + work
    f = 1.0 / (end - m0)
    return served * f, lost * f, irqs * f, busy * f


def _ring_path(m, t, load, a, txc):
    """A NIC with a finite ring serviced run to completion (Nic.ring) on one
    CPU, the app's: fills t from _ring_service. Nothing is lost at the socket
    (each batch is read before the next: the socket holds a ring's worth)."""
    c, app, nic = m.costs, m.app, m.nic
    assert len(nic.queue_cpus) == 1 and nic.queue_cpus[0] == app.cpu and nic.irq_limit
    assert load.trains is not None and nic.napi and not nic.virtual
    w = c.softirq_per_packet + txc + a
    served, _, irqs, _ = _ring_service(t.offered, load.trains, nic.ring, 1.0 / nic.irq_limit,
                                          c.hardirq_per_interrupt * US, w * US)
    cpu = t.cpus[app.cpu]
    cpu.hardirq = irqs * c.hardirq_per_interrupt * US
    cpu.softirq = served * (c.softirq_per_packet + txc) * US
    cpu.softirq_tx = served * txc * US
    cpu.app_user = served * (a - app.kernel_per_packet) * US
    cpu.app_system = served * app.kernel_per_packet * US
    t.interrupts, t.queue_rx, t.queue_processed = [irqs], [served], [served]
    t.queue_backlog_drops, t.queue_squeeze = [0.0], [0.0]
    t.queue_hardirq = [cpu.hardirq]
    t.queue_softirq_rx, t.queue_softirq_tx = [served * c.softirq_per_packet * US], [cpu.softirq_tx]
    # In steady state what arrives is served or lost (the measured trains start
    # and end with the ring as full): the ladder conserves packets exactly.
    t.nic_ring_drops = max(0.0, t.offered - served)
    t.rx = t.processed = t.delivered = served
    t.tx = served if app.echo else 0.0


def _left(cpu):
    """The share of a CPU its steal, other tasks and interrupts leave to the app."""
    return max(1e-9, 1.0 - cpu.steal - cpu.bg_user - cpu.bg_system - cpu.hardirq - cpu.softirq)


def _waits_per_packet(m, t):
    """Seconds the app's thread waits off its CPU per datagram, by kind: its
    sleep; the worker's lock: the work (stretched by the others' share of the
    worker's CPU) and the handoff's two wake-ups."""
    app, w = m.app, m.app.worker
    waits = {"sleep": app.sleep_per_packet * US} if app.sleep_per_packet else {}
    if w and not w.pool:
        assert w.cpu != app.cpu
        work = (w.user_per_packet + w.kernel_per_packet) * US / _left(t.cpus[w.cpu])
        waits["lock"] = work + 2 * w.wakeup * US
    return waits


def _thread_rate(m, t, left, a_eff):
    """Datagrams per second the app's thread can read: each takes a_eff of CPU,
    stretched by the others' share of its CPU (left is what they leave), plus
    its waits."""
    wait = sum(_waits_per_packet(m, t).values())
    return 1.0 / (a_eff / left + wait) if wait else math.inf


def _finish(m, t):
    """Idle is what is left; the soaker, when on, waits whenever it is not
    running; then the target threads' seconds."""
    for cpu in t.cpus:
        used = (cpu.steal + cpu.bg_user + cpu.bg_system + cpu.hardirq + cpu.softirq
                + cpu.app_user + cpu.app_system)
        assert used <= 1.0 + 1e-9, used
        cpu.idle = max(0.0, 1.0 - used)
        if m.soaker:  # a SCHED_IDLE thread is runnable all the time
            cpu.waiting = max(cpu.waiting, 1.0 - cpu.idle - cpu.steal)
    t.threads = _thread_times(m, t)


def _thread_times(m, t):
    """ThreadTime of the app's thread and its worker. The app's thread blocks
    once per datagram for each of its waits, and on an empty socket: after a
    share of its reads equal to its share waiting there (a queue's departures
    that leave it empty), at most once per wake-up (_socket_wakeups). The
    worker blocks once per datagram, waiting for the next."""
    app, d = m.app, t.delivered
    cpu = t.cpus[app.cpu]
    waits = {k: d * v for k, v in _waits_per_packet(m, t).items()}
    main = _thread_time(cpu, cpu.app_user + cpu.app_system + cpu.softirq * m.softirq_to_app,
                        waits, "recv")
    main.voluntary = d * len(waits) + min(d * main.waits["recv"], _socket_wakeups(m, t))
    if not app.worker:
        return [main]
    w = t.cpus[app.worker.cpu]
    worker = _thread_time(w, w.app_user + w.app_system, {}, "work")
    worker.voluntary = d
    return [main, worker]


def _thread_time(cpu, running, waits, rest):
    """A thread's second on `cpu`: `running`; runnable while the CPU's other work
    (interrupts, other tasks, steal: `others` of it) ran, spread evenly over
    the thread's time on the CPU (running x others / (1 - others); on a full
    CPU all the rest), at most what its waits leave; `waits` (kind -> share);
    waiting in `rest` for the remainder. Each other task that ran while it was
    runnable preempted it once a slice."""
    others = max(0.0, 1.0 - cpu.idle - running)
    free = max(0.0, 1.0 - running - sum(waits.values()))
    runnable = min(free, running * others / max(1e-9, 1.0 - others))
    th = ThreadTime(running, runnable, dict(waits))
    th.waits[rest] = free - runnable
    if others > 0:
        th.involuntary = runnable * (cpu.bg_user + cpu.bg_system) / others / PREEMPT_SLICE
    return th


def _socket_wakeups(m, t):
    """How often per second the socket can turn non-empty: once per NIC
    interrupt (its softirq queues what arrived), or per batch a veth's sender
    queues."""
    return t.rx / m.generator.batch if m.nic.virtual else sum(t.interrupts)


def accounted(m: Machine, cpu: CpuTime):
    """What /proc/stat and the soaker see of one CPU's true time, in seconds per
    second: dict of categories (user_app, system_app, user_bg, system_bg,
    soaker, irq, softirq, idle, steal), and the hidden time charged to idle or
    to the soaker."""
    hidden = cpu.hardirq * m.hidden_irq_share
    acc = dict(user_app=cpu.app_user, system_app=cpu.app_system, user_bg=cpu.bg_user,
               system_bg=cpu.bg_system, irq=cpu.hardirq - hidden, softirq=cpu.softirq,
               steal=cpu.steal, soaker=0.0, idle=0.0)
    if m.soaker:
        acc["soaker"] = cpu.idle + hidden  # charged to the soaker thread, as user time
    else:
        acc["idle"] = cpu.idle + hidden
    return acc, hidden
