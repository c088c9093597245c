# SPDX-License-Identifier: Apache-2.0
"""The kernel channels' words: what a kernel writes to ``<t>_desc_data`` (a cldesc, or a region
request of one or several entries) and what it reads from ``<t>_status_data``.

Every field position comes from the manifest (``direkt-overlay.json``, see
:mod:`direkt_sim.layout`): words ``cldesc``, ``cldesc_region``, ``kernel_status_tagged`` /
``kernel_status_cycles``. The channel word's 32-bit words are in the bridge's configured order
(``x0_low``: x_i at bits [32i+31:32i]; ``x0_high``: reversed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .layout import Manifest

WORD_ORDERS = ("x0_low", "x0_high")


def port_prefix(direction: str, port: int = 0) -> str:
    """The pin prefix of kernel port *port* of *direction*: ``rd``, ``rd_p1``, ``rd_p2``, ..."""
    return direction if port == 0 else f"{direction}_p{port}"


def _in_order(m: Manifest, value: int, order: str) -> int:
    """*value* (a cldesc, x0 at bits [31:0]) with its 32-bit words in *order*; the same mapping
    turns a channel word in *order* back into the cldesc (reversing twice is the identity)."""
    if order not in WORD_ORDERS:
        raise ValueError(f"word order {order!r}: one of {WORD_ORDERS}")
    if order == "x0_low":
        return value
    n = int(m.layout["cldesc_words"])
    out = 0
    for i in range(n):
        out |= ((value >> (32 * i)) & 0xFFFF_FFFF) << (32 * (n - 1 - i))
    return out


def cldesc_word(m: Manifest, order: Optional[str] = None, **fields: int) -> int:
    """The 256-bit channel word of a cldesc with *fields* (manifest word ``cldesc``), in the
    bridge's configured word order, or in *order* (a kernel toolchain that lays the struct out
    otherwise than the bridge expects)."""
    return _in_order(m, m.word("cldesc").pack(**fields), order or m.bridge["word_order"])


def channel_cldesc(m: Manifest, word: int) -> int:
    """The cldesc the bridge reads from channel word *word*: its words taken in the bridge's order
    (the mapping is its own inverse, so it also turns a cldesc into its channel word)."""
    return _in_order(m, word, m.bridge["word_order"])


def cldesc_fields(m: Manifest, src: int, dst: int, nbytes: int, tag: int = 0, desc_id: int = 0,
                  **extra: int) -> dict[str, int]:
    """Fields of a cldesc moving *nbytes* (a multiple of 4, < 1 MB) from *src* to *dst*.

    ``tag`` goes to x5 (tagged status mode only); ``desc_id`` to x4's ID field (paper ID mode);
    *extra* sets any other field raw (``len_overflow``, ``flags``, ``reserved``, or overrides).
    """
    f = dict(src_lo=src & 0xFFFF_FFFF, src_hi=(src >> 32) & 0xFFFF_FFFF,
             dst_lo=dst & 0xFFFF_FFFF, dst_hi=(dst >> 32) & 0xFFFF_FFFF,
             dwords=(nbytes // 4) & m.word("cldesc")["dwords"].mask)
    if tag:
        f["tag"] = tag
    if desc_id:
        f["id"] = desc_id
    f.update(extra)
    return f


# --------------------------------------------------------------------------- region requests


def region_word(m: Manifest, region: int, offset: int, nbytes: int, fpga: int, tag: int, **extra: int) -> int:
    """The channel word of one region request entry (manifest word ``cldesc_region``, kind 1):
    *nbytes* at *offset* of *region* to or from FPGA address *fpga*; *extra* sets any other field
    raw (``more``, ``check``, ``kind``, ``reserved``, ...)."""
    f = dict(region=region, offset=offset, bytes=nbytes, fpga_lo=fpga & 0xFFFF_FFFF, fpga_hi=fpga >> 32, tag=tag,
             kind=1)
    f.update(extra)
    return channel_cldesc(m, m.word("cldesc_region").pack(**f))


def check_entry(moves: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The check entry a builder writes first: (offset, FPGA address, bytes) ending where the request's
    last byte ends, in the region and in FPGA memory (ranges start at 0: every entry is inside then)."""
    end = max(o + n for o, _, n in moves)
    fend = max(f + n for _, f, n in moves)
    return (min(end - 4, 0xFFFF_FFFC), fend - 4, 4)


def region_request(m: Manifest, region: int, moves: list[tuple[int, int, int]], tag: int) -> list[int]:
    """One request's channel words, *moves* being (region offset, FPGA address, bytes): a single
    move as one entry; several as the header's builders write them, a check entry (:func:`check_entry`),
    then the moves, ``more`` set on all but the last."""
    if len(moves) == 1:
        o, f, n = moves[0]
        return [region_word(m, region, o, n, f, tag)]
    entries = [check_entry(moves) + (1,)] + [mv + (0,) for mv in moves]
    return [region_word(m, region, o, n, f, tag, more=int(i < len(entries) - 1), check=c)
            for i, (o, f, n, c) in enumerate(entries)]


# --------------------------------------------------------------------------- statuses


@dataclass
class KernelStatus:
    """A decoded kernel status. ``error`` is the manifest error code (tagged mode); in cycles
    mode it is None and ``failed`` tells whether the word marks a failure (see :func:`decode_status`)."""

    raw: int
    tag: Optional[int]
    error: Optional[int]
    elapsed: int
    failed: bool
    cycle: int = 0


def decode_status(m: Manifest, word: int, cycle: int = 0) -> KernelStatus:
    """Cycles mode, by the manifest's ``kernel_status_cycles``: with a ``failed`` field, the word
    failed when that field is not 0; with ``cycles`` alone, when it is all ones."""
    ks = m.kernel_status
    f = ks.unpack(word)
    if m.bridge["status_mode"] == "tagged":
        return KernelStatus(word, f["tag"], f["error"], f["elapsed"], f["error"] != 0, cycle)
    failed = f["failed"] != 0 if "failed" in ks.fields else f["cycles"] == ks["cycles"].mask
    return KernelStatus(word, None, None, f["cycles"], failed, cycle)
