// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * The Avalon-ST bundle type: data, valid and ready, with a data width and a ready latency. One
 * declaration gives both sides: {@link #flip()} turns the source side into the sink side. Signals
 * are named {@code <port>_data}, {@code <port>_valid}, {@code <port>_ready}, as the OpenCL kernel
 * system names channel ports.
 */
public record AvalonSt(int dataWidth, int readyLatency, Side side) {

    /** Source drives data and valid; sink drives ready. */
    public enum Side { SOURCE, SINK }

    public AvalonSt {
        if (dataWidth < 1) {
            throw new IllegalArgumentException("Avalon-ST dataWidth " + dataWidth + ": must be >= 1");
        }
        if (readyLatency < 0 || readyLatency > 8) {
            throw new IllegalArgumentException("Avalon-ST readyLatency " + readyLatency + ": must be in 0..8");
        }
        if (side == null) {
            throw new IllegalArgumentException("Avalon-ST side: must be SOURCE or SINK");
        }
    }

    /** The source side of a ready-latency-0 stream. */
    public static AvalonSt source(int dataWidth) {
        return new AvalonSt(dataWidth, 0, Side.SOURCE);
    }

    public static AvalonSt source(int dataWidth, int readyLatency) {
        return new AvalonSt(dataWidth, readyLatency, Side.SOURCE);
    }

    /** The other end of the same stream. */
    public AvalonSt flip() {
        return new AvalonSt(dataWidth, readyLatency, side == Side.SOURCE ? Side.SINK : Side.SOURCE);
    }

    @Override
    public String toString() {
        return "Avalon-ST " + side.name().toLowerCase(java.util.Locale.ROOT) + " (" + dataWidth + " bits, ready latency " + readyLatency + ")";
    }
}
