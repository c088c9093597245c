// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.math.BigInteger;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.Layout;

/**
 * The bitstream a {@link BridgeStandIn} plays: the parameters its bridge was built with (which
 * CONFIG reports, and which decide its first checks and its status layout) and where the kernel
 * compiler puts cldesc word x0 on the 256-bit channel. By default the overlay's parameters, and
 * x0 where the bridge takes it; either can be the other, as a board may have it.
 *
 * @param built   the bridge's parameters
 * @param channel where the kernel compiler puts x0: {@code X0_LOW} at channel bits [31:0], {@code X0_HIGH} at [255:224]
 */
record StandInBitstream(BridgeSpec built, BridgeModes.WordOrder channel) {

    /** A bitstream built from {@code p}, compiled kernels putting x0 where its bridge takes it. */
    static StandInBitstream of(BridgeSpec p) {
        return new StandInBitstream(p, p.wordOrder());
    }

    /** CONFIG, as the bridge answers it. */
    long config() {
        BridgeSpec p = built;
        return Layout.CSR_CONFIG.pack(Map.of("window_entries", p.windowEntries(), "inflight", p.inflight(),
                "paper_ids", flag(p.idMode() == BridgeModes.IdMode.PAPER), "cycles_status", cycles() ? 1 : 0,
                "x0_high", flag(p.wordOrder() == BridgeModes.WordOrder.X0_HIGH), "sync_stages", p.syncStages(),
                "counters", flag(p.counters()), "bringup", flag(p.bringup()), "regions", flag(p.regionsAddressing()))).longValueExact();
    }

    private static int flag(boolean b) {
        return b ? 1 : 0;
    }

    boolean cycles() {
        return built.statusMode() == BridgeModes.StatusMode.CYCLES;
    }

    /** The channel's eight 32-bit words, word i its bits [32i+31:32i] (what LAST_DESC_i shows), for the words x0..x7 a kernel wrote. */
    long[] onChannel(long[] written) {
        return channel == BridgeModes.WordOrder.X0_LOW ? written.clone() : reversed(written);
    }

    /** Words x0..x7 as the bridge reads them off {@code onChannel}: in its own word order. */
    long[] asRead(long[] onChannel) {
        return built.wordOrder() == BridgeModes.WordOrder.X0_LOW ? onChannel.clone() : reversed(onChannel);
    }

    private static long[] reversed(long[] w) {
        long[] r = new long[w.length];
        for (int i = 0; i < w.length; i++) {
            r[i] = w[w.length - 1 - i];
        }
        return r;
    }

    /**
     * A raw descriptor's first checks, in {@link Layout.Error}'s order: RESERVED (x6, x7; x5 in cycles
     * status mode), TOO_LONG (x4 above the length; the ID bits too with managed IDs), ZERO_LENGTH,
     * BAD_ID (paper IDs below the kernel range); OK when it passes them.
     */
    Layout.Error firstChecks(Map<String, BigInteger> f) {
        boolean paper = built.idMode() == BridgeModes.IdMode.PAPER;
        if (f.get("flags").signum() != 0 || f.get("reserved").signum() != 0 || cycles() && f.get("tag").signum() != 0) {
            return Layout.Error.RESERVED;
        } else if (f.get("len_overflow").signum() != 0 || !paper && f.get("id").signum() != 0) {
            return Layout.Error.TOO_LONG;
        } else if (f.get("dwords").signum() == 0) {
            return Layout.Error.ZERO_LENGTH;
        } else if (paper && f.get("id").intValue() < Layout.KERNEL_ID_FIRST) {
            return Layout.Error.BAD_ID;
        }
        return Layout.Error.OK;
    }

    /** The kernel status in the bridge's layout: tagged (tag, error, elapsed) or cycles (cycles, failed: all ones when rejected). */
    long status(long tag, Layout.Error error, long elapsed) {
        if (cycles()) {
            return Layout.KERNEL_STATUS_CYCLES.pack(Map.of("cycles", elapsed, "failed",
                    error == Layout.Error.OK ? 0L : 0xFFFF_FFFFL)).longValue();
        }
        return Layout.KERNEL_STATUS_TAGGED.pack(Map.of("tag", tag, "error", error.code(), "elapsed", elapsed)).longValue();
    }

    /**
     * The mover ID of a completed descriptor, the {@code n}th completion of its direction: the
     * kernel's own ID with paper IDs, else one of the bridge's kernel IDs, one per slot in flight.
     */
    int moverId(Map<String, BigInteger> f, long n) {
        return built.idMode() == BridgeModes.IdMode.PAPER ? f.get("id").intValue()
                : Layout.KERNEL_ID_FIRST + (int) (n % built.inflight());
    }

    /** LAST_MOVER_STATUS for a completion with mover ID {@code id}, in the format the bridge assumes ({@link Layout#MOVER_STATUS}). */
    static long moverStatus(int id) {
        return Layout.MOVER_STATUS.pack(Map.of("id", id, "completed", 1)).longValueExact();
    }
}
