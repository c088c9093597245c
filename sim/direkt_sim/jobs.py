# SPDX-License-Identifier: Apache-2.0
"""What the host asks of the simulated bridge, read and checked: the parts a replay job
(``tb/bridge_replay``) and a request to the simulated device (``tb/bridge_device``) share.

Kernel descriptors (the eight cldesc words a kernel writes), host descriptors (what the host
writes to the BSP's descriptor controller), CSR registers by name or offset, and the JSON form of
the statuses they get back. Every check raises :class:`JobError` naming the offending entry.
"""

from __future__ import annotations

import base64
from typing import Optional

from .channel import WORD_ORDERS, channel_cldesc, cldesc_word
from .kernel import KernelJob
from .mover import max_bytes
from .pins import DIRECTIONS

ISSUE_MODES = ("sequential", "pipelined")


class JobError(ValueError):
    """The job (or request) is malformed (the message names the offending entry)."""


def integer(v, what: str, lo: int = 0, hi: int = (1 << 64) - 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise JobError(f"{what}: {v!r} is not an integer")
    if not lo <= v <= hi:
        raise JobError(f"{what}: {v:#x} outside [{lo:#x}, {hi:#x}]")
    return v


def b64(entry: dict, what: str) -> bytes:
    text = entry.get("data_b64")
    if text is None:
        return b""
    try:
        return base64.b64decode(text, validate=True)
    except Exception as e:  # binascii.Error
        raise JobError(f"{what}.data_b64: not base64 ({e})") from None


def csr_address(m, entry, what: str) -> int:
    """The offset of a ``csr_writes`` / ``csr_reads`` entry: its register's name in the manifest, or its offset."""
    if not isinstance(entry, dict) or ("name" in entry) == ("offset" in entry):
        raise JobError(f"{what}: {entry!r}: give the register's name or its offset (one of them)")
    if "name" in entry:
        try:
            return m.csr_offset(entry["name"])
        except KeyError:
            raise JobError(f"{what}: the manifest has no CSR register {entry['name']!r}") from None
    return integer(entry["offset"], f"{what}.offset", 0, (1 << int(m.csr["address_bits"])) - 1)


def host_descriptors(entries, m, pcie, fpga_size: int) -> list[tuple[str, int, int, int]]:
    """``host_descriptors`` entries as (direction, src, dst, bytes), each checked the way the
    host's driver must check it (the kernel path's checks do not apply to host descriptors):
    the PCIe range inside memory mapped on *pcie* (anything with ``contains(bus, n)``)."""
    out = []
    limit = max_bytes(m)
    for i, d in enumerate(entries or []):
        what = f"host_descriptors[{i}]"
        if not isinstance(d, dict):
            raise JobError(f"{what}: {d!r} is not an object")
        t = d.get("direction")
        if t not in DIRECTIONS:
            raise JobError(f"{what}.direction = {t!r}: rd or wr")
        src, dst = integer(d.get("src"), f"{what}.src"), integer(d.get("dst"), f"{what}.dst")
        n = integer(d.get("bytes"), f"{what}.bytes", 4, limit)
        if n % 4 or src % 4 or dst % 4:
            raise JobError(f"{what}: src {src:#x}, dst {dst:#x} and bytes {n} must be multiples of 4")
        bus, addr = (src, dst) if t == "rd" else (dst, src)
        if not pcie.contains(bus, n):
            raise JobError(f"{what}: PCIe range [{bus:#x}, +{n:#x}) is not inside mapped host or GPU memory")
        if addr + n > fpga_size:
            raise JobError(f"{what}: FPGA range [{addr:#x}, +{n:#x}) beyond the FPGA memory ({fpga_size:#x} bytes)")
        out.append((t, src, dst, n))
    return out


class Issue(KernelJob):
    """One kernel descriptor of a job: its channel word, the tag its status carries and (later) its status."""

    def __init__(self, index: int, direction: str, wait: bool, word: int, tag: Optional[int]):
        super().__init__(words=[word], tag=tag)
        self.index = index
        self.t = direction
        self.wait = wait


def issue_mode(entry: Optional[dict], m) -> tuple[str, int]:
    """(mode, most outstanding per direction) of an ``issue`` entry; sequential keeps one."""
    entry = entry or {}
    mode = entry.get("mode", "sequential")
    if mode not in ISSUE_MODES:
        raise JobError(f"issue.mode = {mode!r}: sequential or pipelined")
    limit = integer(entry.get("inflight", int(m.bridge["inflight"])), "issue.inflight", 1, 1 << 16)
    return mode, 1 if mode == "sequential" else limit


def kernel_issues(entries, m, chan_order: Optional[str] = None) -> list[Issue]:
    """``descriptors`` entries (``{"direction", "words": [x0..x7], "wait"?}``) as the channel
    words a kernel toolchain putting x0 where *chan_order* says (default: the bridge's order)
    writes, with the tag the bridge reads from each (tagged status mode)."""
    chan_order = chan_order or m.bridge["word_order"]
    if chan_order not in WORD_ORDERS:
        raise JobError(f"channel_word_order = {chan_order!r}: one of {list(WORD_ORDERS)}")
    cl = m.word("cldesc")
    tagged = m.bridge["status_mode"] == "tagged"
    out: list[Issue] = []
    for i, d in enumerate(entries or []):
        if not isinstance(d, dict):
            raise JobError(f"descriptors[{i}]: {d!r} is not an object")
        t = d.get("direction")
        if t not in DIRECTIONS:
            raise JobError(f"descriptors[{i}].direction = {t!r}: rd or wr")
        words = d.get("words")
        if not isinstance(words, list) or len(words) != int(m.layout["cldesc_words"]):
            raise JobError(f"descriptors[{i}].words: {m.layout['cldesc_words']} 32-bit words x0..x7 expected, got {words!r}")
        value = 0
        for k, w in enumerate(words):
            value |= integer(w, f"descriptors[{i}].words[{k}]", 0, 0xFFFF_FFFF) << (32 * k)
        word = cldesc_word(m, order=chan_order, **cl.unpack(value))
        # A status carries the tag the bridge read, which is x5 only when the channel's order is its own.
        seen = cl.unpack(channel_cldesc(m, word))
        out.append(Issue(i, t, bool(d.get("wait", False)), word, seen["tag"] if tagged else None))
    return out


def status_json(m, it: Issue) -> dict:
    st = it.status
    fields = m.kernel_status.unpack(st.raw)
    out = {"index": it.index, "direction": it.t, "raw": st.raw, "raw_hex": f"{st.raw:#018x}", "fields": fields,
           "failed": bool(st.failed), "issued_kernel_cycle": it.issued_cycle, "status_kernel_cycle": st.cycle}
    if st.error is not None:
        out["error_name"] = m.error_name(st.error)
    return out


def host_status_json(m, index: int, t: str, d) -> dict:
    f = m.word("mover_status").unpack(d.status)
    return {"index": index, "direction": t, "id": d.id, "raw": d.status, "fields": f,
            "completed": bool(f["completed"]), "sent_dma_cycle": d.cycle, "done_dma_cycle": d.done_cycle}
