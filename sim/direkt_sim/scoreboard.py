# SPDX-License-Identifier: Apache-2.0
"""The in-order scoreboard and the run-wide coverage record shared by the benches."""

from __future__ import annotations

from collections import deque
from typing import Iterable, Optional

from direkt_sim.stimulus import hexstr as _hex


class Scoreboard:
    """Order, loss and duplication, from the pins only.

    ``put`` each word the sink side accepted, ``got`` each word the source side
    delivered. A reset drops what is inside (counted as lost to reset). A
    mismatch names what went wrong: a lost or reordered run of words (the word
    appears further ahead), a duplicate (it was delivered recently), or a
    corrupted word.
    """

    def __init__(self):
        self.expected: deque[tuple[int, int]] = deque()  # (sequence number, word)
        self.seq = 0
        self.accepted = 0
        self.delivered = 0
        self.lost_to_reset = 0
        self.recent: deque[tuple[int, int]] = deque(maxlen=8)  # last delivered (seq, word)

    def put(self, word: int) -> int:
        """Record an accepted word; return its sequence number."""
        self.expected.append((self.seq, word))
        self.seq += 1
        self.accepted += 1
        return self.seq - 1

    def __len__(self) -> int:
        """Words accepted and not yet delivered."""
        return len(self.expected)

    def head(self) -> Optional[int]:
        """The oldest word not yet delivered, or None."""
        return self.expected[0][1] if self.expected else None

    def got(self, word: Optional[int]) -> int:
        """Check a delivered word; return its sequence number."""
        if not self.expected:
            dup = [s for s, w in self.recent if w == word]
            raise AssertionError(
                f"delivered {_hex(word)} while no accepted word is outstanding "
                f"(duplicate{' of word #' + str(dup[-1]) if dup else ''} or invented word)"
            )
        seq, want = self.expected.popleft()
        if word != want:
            ahead = [s for s, w in list(self.expected)[:64] if w == word]
            dup = [s for s, w in self.recent if w == word]
            why = "corrupted or out of order"
            if ahead:
                why = f"it equals word #{ahead[0]}: word(s) #{seq}..#{ahead[0] - 1} lost or reordered"
            elif dup:
                why = f"it equals the already delivered word #{dup[-1]}: duplicated"
            raise AssertionError(f"delivered {_hex(word)}, expected word #{seq} = {want:#x}: {why}")
        self.recent.append((seq, word))
        self.delivered += 1
        return seq

    def reset(self) -> None:
        self.lost_to_reset += len(self.expected)
        self.expected.clear()

    def check_drained(self) -> None:
        if self.expected:
            seqs = [s for s, _ in self.expected]
            raise AssertionError(f"{len(seqs)} accepted word(s) never came out (lost): #{seqs[0]}..#{seqs[-1]}")
        assert self.accepted == self.delivered + self.lost_to_reset, "scoreboard bookkeeping"


class Coverage:
    """Coverage points summed over the tests of one simulator run (``hits``), counts reported
    alongside them but not asserted (``info``), and the tests that ran to their end and fed them
    (``contributed``)."""

    def __init__(self, points: Iterable[str], info: Iterable[str] = ()):
        self.hits = dict.fromkeys(points, 0)
        self.info = dict.fromkeys(info, 0)
        self.contributed: set[str] = set()

    def missing(self) -> list[str]:
        return [p for p, n in self.hits.items() if n == 0]

    def check(self, feeders: set[str], log) -> None:
        """Every point hit, by a run in which every test in *feeders* ran to its end."""
        ran = feeders & self.contributed
        log.info("coverage %s %s(from %d of %d tests)", self.hits, self.info or "", len(ran), len(feeders))
        # Coverage is a property of the whole traffic: a feeder that did not run to its end (it
        # failed, or TESTCASE left it out) leaves it unproved, and that is a failure, not a pass.
        assert ran == feeders, f"coverage cannot be checked: tests {sorted(feeders - ran)} did not run to their end"
        missing = self.missing()
        assert not missing, f"coverage points never reached: {missing} (hits {self.hits})"
