# SPDX-License-Identifier: Apache-2.0
"""The bridge's bit layouts, read from the overlay manifest (``direkt-overlay.json``).

Every bit position the benches use comes from the manifest the Java generator
wrote next to the Verilog; nothing is restated here.

    m = load_manifest()                      # $DIREKT_RTL_DIR/direkt-overlay.json
    cl = m.word("cldesc")
    value = cl.pack(src_lo=..., dwords=16, tag=7)
    fields = m.word("mover_status").unpack(word)
    m.error("WINDOW")                        # its code
    m.csr_offset("WIN0_CTRL")
    m.has_counters                           # False when the bridge was generated with counters=false
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

MANIFEST_NAME = "direkt-overlay.json"
FORMAT_VERSION = 1  # the manifest structure this reader understands
LAYOUT_VERSION = 2  # the bit layouts and CSR map (aligned power-of-two windows, ALARMS) the models speak


class ManifestError(Exception):
    """The manifest is missing, malformed or of another format version."""


@dataclass(frozen=True)
class Field:
    name: str
    lsb: int
    width: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    def get(self, word: int) -> int:
        return (word >> self.lsb) & self.mask


class Word:
    """A named word made of fields (``layout.words.<name>`` in the manifest)."""

    def __init__(self, name: str, spec: Mapping):
        self.name = name
        self.bits = int(spec["bits"])
        self.fields = {
            n: Field(n, int(f["lsb"]), int(f["width"])) for n, f in spec["fields"].items()
        }

    def __getitem__(self, field: str) -> Field:
        try:
            return self.fields[field]
        except KeyError:
            raise KeyError(f"{self.name} has no field {field!r} (it has {sorted(self.fields)})") from None

    def pack(self, **values: int) -> int:
        """The word with the named fields set; a value too wide for its field is refused."""
        word = 0
        for name, value in values.items():
            f = self[name]
            value = int(value)
            if value < 0 or value > f.mask:
                raise ValueError(f"{self.name}.{name} = {value:#x} does not fit in {f.width} bits")
            word |= value << f.lsb
        return word

    def unpack(self, word: int) -> dict[str, int]:
        return {n: f.get(int(word)) for n, f in self.fields.items()}

    def get(self, word: int, field: str) -> int:
        return self[field].get(int(word))


class Manifest:
    def __init__(self, data: Mapping, path: Path | None = None):
        self.path = path
        if data.get("format") != "direkt-overlay":
            raise ManifestError(f"{path}: not a direkt overlay manifest (format = {data.get('format')!r})")
        if data.get("format_version") != FORMAT_VERSION:
            raise ManifestError(
                f"{path}: format_version {data.get('format_version')!r}; this reader understands {FORMAT_VERSION}"
            )
        self.data = data
        self.layout = data["layout"]
        if self.layout.get("version") != LAYOUT_VERSION:
            raise ManifestError(
                f"{path}: layout version {self.layout.get('version')!r}; these models speak {LAYOUT_VERSION} "
                "(re-emit the bridge with the current generators: make build)"
            )
        self.bridge = data["bridge"]
        # A descriptor controller's overlay (HostDescController): its top, descriptor sinks' ready
        # latency, register read latency, table entries and fetch IDs; None for a bridge alone.
        self.controller = data.get("controller")
        self.words = {n: Word(n, spec) for n, spec in self.layout["words"].items()}
        self.csr = self.layout["csr"]
        self._csr_offsets = {r["name"]: int(r["offset"]) for r in self.csr["registers"]}

    def word(self, name: str) -> Word:
        try:
            return self.words[name]
        except KeyError:
            raise KeyError(f"manifest has no word {name!r} (it has {sorted(self.words)})") from None

    def error(self, name: str) -> int:
        return int(self.layout["errors"][name]["code"])

    def error_name(self, code: int) -> str:
        for name, e in self.layout["errors"].items():
            if int(e["code"]) == code:
                return name
        return f"<unknown error {code}>"

    def csr_offset(self, name: str) -> int:
        try:
            return self._csr_offsets[name]
        except KeyError:
            raise KeyError(f"no CSR register {name!r}") from None

    @property
    def has_counters(self) -> bool:
        """The event counters are there (``layout.csr.events`` is empty without them)."""
        return bool(self.csr["events"])

    def counter_offset(self, direction: str, event: str) -> int:
        d = {"rd": 0, "wr": 1}[direction]
        events = self.csr["events"]
        if event not in events:
            raise KeyError(f"no counter {event!r} (the manifest's events: {events or 'none, counters=false'})")
        return int(self.csr["counters_offset"]) + int(self.csr["counters_stride"]) * d + events.index(event)

    def channel(self, direction: str, role: str) -> Mapping:
        for c in self.bridge["channels"]:
            if c["direction"] == direction and c["role"] == role:
                return c
        raise KeyError(f"no {direction} {role} channel in the manifest")

    @property
    def kernel_status(self) -> Word:
        return self.word("kernel_status_tagged" if self.bridge["status_mode"] == "tagged" else "kernel_status_cycles")


def load_manifest(path: str | os.PathLike | None = None) -> Manifest:
    """Reads the manifest at *path*, or the one the emitter left in ``$DIREKT_RTL_DIR``."""
    if path is None:
        rtl = os.environ.get("DIREKT_RTL_DIR")
        if not rtl:
            raise ManifestError("no manifest path given and DIREKT_RTL_DIR is not set")
        path = Path(rtl) / MANIFEST_NAME
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ManifestError(f"{path}: no manifest (was the bridge emitted?)") from None
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    return Manifest(data, path)
