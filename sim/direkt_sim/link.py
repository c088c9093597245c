# SPDX-License-Identifier: Apache-2.0
"""The simulated device's link: framed messages over a Unix domain socket.

The host (Java's ``org.direkt.runtime.sim.SimulatedDevice``, or :class:`direkt_sim.device.DeviceClient`)
listens; the device (``tb/bridge_device``, inside the simulator) connects. A message is

    4 bytes   the header's length N, big-endian
    N bytes   the header: a JSON object, UTF-8, with "op"
    M bytes   raw data, when the header has "nbytes": M

so memory contents travel as bytes, not as base64 text. The operations are specified in
``tb/bridge_device/README.md``.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Optional

PROTOCOL = 1
_LEN = struct.Struct(">I")
# A header holds at most a few thousand descriptors; anything larger is a broken peer.
MAX_HEADER = 64 << 20


class LinkClosed(EOFError):
    """The peer closed the link (or its process ended)."""


class LinkError(ValueError):
    """The peer sent something that is not a message of this protocol."""


class Link:
    """One end of the link; blocking. While the device side waits in :meth:`recv`, the
    simulation does not advance."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.sent = 0
        self.received = 0

    @classmethod
    def connect(cls, path: str) -> "Link":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        return cls(s)

    def send(self, header: dict, data: bytes = b"") -> None:
        if data:
            header = {**header, "nbytes": len(data)}
        body = json.dumps(header, separators=(",", ":")).encode()
        try:
            self.sock.sendall(_LEN.pack(len(body)) + body)
            if data:
                self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError) as e:
            raise LinkClosed(f"the link's peer is gone ({e})") from None
        self.sent += 1

    def recv(self) -> tuple[dict, bytes]:
        (n,) = _LEN.unpack(self._exactly(_LEN.size))
        if n > MAX_HEADER:
            raise LinkError(f"a message header of {n} bytes (the limit is {MAX_HEADER})")
        try:
            header = json.loads(self._exactly(n))
        except ValueError as e:
            raise LinkError(f"a message header that is not JSON: {e}") from None
        if not isinstance(header, dict) or not isinstance(header.get("op"), str):
            raise LinkError(f"a message header without an op: {header!r}"[:300])
        nbytes = header.get("nbytes", 0)
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
            raise LinkError(f"{header['op']}: nbytes {nbytes!r}")
        data = self._exactly(nbytes) if nbytes else b""
        self.received += 1
        return header, data

    def _exactly(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = self.sock.recv(min(n - len(buf), 1 << 20))
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise LinkClosed("the link's peer closed it" + (" in the middle of a message" if buf else ""))
            buf += chunk
        return bytes(buf)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def expect(link: Link, op: str, what: str) -> tuple[dict, bytes]:
    """The next message, which must be *op* (an ``error`` message raises :class:`DeviceError`)."""
    header, data = link.recv()
    if header["op"] == "error":
        raise DeviceError(header.get("message", "?"), bool(header.get("fatal")))
    if header["op"] != op:
        raise LinkError(f"{what}: expected {op!r}, got {header['op']!r}")
    return header, data


class DeviceError(RuntimeError):
    """The device refused a request (``fatal``: and stopped)."""

    def __init__(self, message: str, fatal: bool = False, op: Optional[str] = None):
        super().__init__(message)
        self.fatal = fatal
        self.op = op
