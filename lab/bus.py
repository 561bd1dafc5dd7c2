"""Bus time per packet for the host simulator, with the formulas and defaults of
docs/bus-model.md (sections 1 to 3), so that the simulator's bus saturates
exactly where bottleneckd's model says it does.

- Conventional PCI and PCI-X: clocks of the shared segment per transfer
  (address + attribute + wait + data + turnaround per burst).
- PCIe: transaction-layer bytes per direction (Neugebauer et al. 2018).
- Emulated (virtio): no physical limit; utilisation is not modelled.

A Bus answers two questions: what fraction of one second of bus time a given
traffic uses (`utilisation`), and the largest echo rate that fits (`max_rate`).
Standard library only.
"""

import math
from dataclasses import dataclass, field


# docs/bus-model.md section 3, "Bus timings".
PCI_TIMINGS = dict(address=1, attribute=0, write_wait=2, read_wait=12, turnaround=1,
                   max_write_burst=512, max_read_burst=128, mmio_read_wait=4)
PCIX_TIMINGS = dict(address=1, attribute=1, write_wait=2, read_wait=2, turnaround=1,
                    max_write_burst=512, max_read_burst=512, mmio_read_wait=4)

# docs/bus-model.md section 3, "NIC profiles" (the fields the simulator needs).
PROFILES = {
    "e1000": dict(descriptor_bytes=16, descriptor_fetch_batch=4, rx_writeback_bytes=16,
                  tx_writeback_bytes=4, writeback_batch=1, rx_doorbell_batch=16,
                  tx_doorbell_batch=1, doorbell_bytes=4, mmio_reads_per_interrupt=1,
                  msi_bytes=4),
    "igb": dict(descriptor_bytes=16, descriptor_fetch_batch=8, rx_writeback_bytes=16,
                tx_writeback_bytes=16, writeback_batch=4, rx_doorbell_batch=16,
                tx_doorbell_batch=1, doorbell_bytes=4, mmio_reads_per_interrupt=0,
                msi_bytes=4),
}


@dataclass
class Bus:
    """One link a NIC's DMA crosses. kind: "pci", "pcix", "pcie" or "emulated".

    pci/pcix: clock_hz (the real clock: 33.333 MHz, 133.333 MHz) and width_bytes.
    pcie: gts (GT/s per lane) and lanes; mps / mrrs in bytes.
    msi: whether the NIC signals interrupts with MSI/MSI-X writes (else INTx).
    """
    kind: str
    clock_hz: float = 0.0
    width_bytes: int = 4
    gts: float = 0.0
    lanes: int = 1
    mps: int = 256
    mrrs: int = 512
    msi: bool = False
    profile: str = "e1000"
    timings: dict = field(default_factory=dict)

    def __post_init__(self):
        base = PCIX_TIMINGS if self.kind == "pcix" else PCI_TIMINGS
        self.timings = dict(base, **self.timings)

    # ------------------------------------------------------- PCI / PCI-X --
    def _fixed(self, wait):
        t = self.timings
        return t["address"] + t["attribute"] + wait + t["turnaround"]

    def _data(self, n):
        return math.ceil(n / self.width_bytes)

    def _write_clocks(self, n):
        t = self.timings
        return math.ceil(n / t["max_write_burst"]) * self._fixed(t["write_wait"]) + self._data(n)

    def _read_clocks(self, n):
        t = self.timings
        bursts = math.ceil(n / t["max_read_burst"])
        if self.kind == "pci":  # delayed transaction: retries counted in read_wait
            return bursts * self._fixed(t["read_wait"]) + self._data(n)
        # PCI-X split transaction: requests, then completions costing as writes.
        return bursts * self._fixed(t["read_wait"]) + bursts * self._fixed(t["write_wait"]) \
            + self._data(n)

    def _mmio_read_clocks(self):
        t = self.timings
        return t["address"] + t["attribute"] + t["mmio_read_wait"] + 1 + t["turnaround"]

    def _clocks(self, rx_frame, tx_frame):
        """(clocks per received packet, per sent packet, per interrupt)."""
        p = PROFILES[self.profile]
        fetch = self._read_clocks(p["descriptor_bytes"] * p["descriptor_fetch_batch"]) \
            / p["descriptor_fetch_batch"]
        rx = (self._write_clocks(rx_frame) + fetch
              + self._write_clocks(p["rx_writeback_bytes"] * p["writeback_batch"])
              / p["writeback_batch"]
              + self._write_clocks(p["doorbell_bytes"]) / p["rx_doorbell_batch"])
        tx = (self._write_clocks(p["doorbell_bytes"]) / p["tx_doorbell_batch"] + fetch
              + self._read_clocks(tx_frame)
              + self._write_clocks(p["tx_writeback_bytes"] * p["writeback_batch"])
              / p["writeback_batch"])
        irq = p["mmio_reads_per_interrupt"] * self._mmio_read_clocks()
        if self.msi:
            irq += self._write_clocks(p["msi_bytes"])
        return rx, tx, irq

    # -------------------------------------------------------------- PCIe --
    def _pcie_capacity(self):
        encoding = 0.8 if self.gts <= 5.0 else 128.0 / 130.0
        return self.gts * 1e9 * self.lanes * encoding / 8 * (1 - 0.08)

    def _tlp(self, rx_frame, tx_frame):
        """(up, down) bytes per received packet, per sent packet, per interrupt."""
        p = PROFILES[self.profile]

        def write(n):
            return n + math.ceil(n / self.mps) * 24 if n else 0

        def read(n):  # (request bytes towards the target, completion bytes back)
            return math.ceil(n / self.mrrs) * 24, n + math.ceil(n / self.mps) * 20

        req, cpl = read(p["descriptor_bytes"] * p["descriptor_fetch_batch"])
        fetch_up, fetch_down = req / p["descriptor_fetch_batch"], cpl / p["descriptor_fetch_batch"]
        wb = lambda n: write(n * p["writeback_batch"]) / p["writeback_batch"]  # noqa: E731
        rx_up = write(rx_frame) + fetch_up + wb(p["rx_writeback_bytes"])
        rx_down = fetch_down + write(p["doorbell_bytes"]) / p["rx_doorbell_batch"]
        pay_req, pay_cpl = read(tx_frame)
        tx_up = fetch_up + pay_req + wb(p["tx_writeback_bytes"])
        tx_down = write(p["doorbell_bytes"]) / p["tx_doorbell_batch"] + fetch_down + pay_cpl
        irq_up = write(p["msi_bytes"]) if self.msi else 0
        irq_up += p["mmio_reads_per_interrupt"] * 24  # completion of a register read
        irq_down = p["mmio_reads_per_interrupt"] * 24
        return (rx_up, rx_down), (tx_up, tx_down), (irq_up, irq_down)

    # ------------------------------------------------------------ public --
    def utilisation(self, rx_pps, rx_frame, tx_pps, tx_frame, irq_per_s):
        """Share of the link's time (or capacity) the traffic uses; None when emulated."""
        if self.kind == "emulated":
            return None
        if self.kind == "pcie":
            rx, tx, irq = self._tlp(rx_frame, tx_frame)
            up = rx_pps * rx[0] + tx_pps * tx[0] + irq_per_s * irq[0]
            down = rx_pps * rx[1] + tx_pps * tx[1] + irq_per_s * irq[1]
            return max(up, down) / self._pcie_capacity()
        rx, tx, irq = self._clocks(rx_frame, tx_frame)
        return (rx_pps * rx + tx_pps * tx + irq_per_s * irq) / self.clock_hz

    def max_rx_rate(self, tx_per_rx, frame, irq_of_rate):
        """Largest received packet rate r whose traffic fits in the bus, when
        tx_per_rx x r packets are sent back and irq_of_rate(r) interrupts taken;
        None when the bus has no limit (emulated)."""
        if self.kind == "emulated":
            return None
        lo, hi = 0.0, 1e9
        for _ in range(100):  # bisection: utilisation grows with the rate
            mid = (lo + hi) / 2
            if self.utilisation(mid, frame, mid * tx_per_rx, frame, irq_of_rate(mid)) <= 1.0:
                lo = mid
            else:
                hi = mid
        return lo
