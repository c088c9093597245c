// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.stream;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.generators.fifo.SyncFifo;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Unit;

/**
 * Joins Avalon-ST ends of different ready latency (the DMA movers' descriptor sinks have ready
 * latency 1, OpenCL channels 0).
 *
 * <ul>
 * <li>0 to 1: {@code ready} is registered; a word goes out only in a cycle that follows one with
 *     {@code m_ready} high, and that is exactly when the source side may transfer.</li>
 * <li>1 to 0: a ready-latency-1 source may send a word the cycle after it saw ready, whatever the
 *     sink does then, so the words in flight land in a 4-word FIFO, and ready is offered only
 *     while it has room for the word that may still come. {@code fill} shows the buffer level and
 *     {@code overflow} flags a word that arrived while the buffer was full (the upstream ignored
 *     ready; the word is dropped). {@code s_ready} may be high during reset: hold the upstream in
 *     the same reset.</li>
 * </ul>
 */
public final class ReadyLatencyAdapter extends Unit<ReadyLatencyAdapter.Params, ReadyLatencyAdapter.Io> {

    /** Sink {@code s}, source {@code m}; {@code fill} and {@code overflow} only in the 1-to-0 direction with monitors (else null). */
    public record Io(Stream s, Stream m, Signal fill, Signal overflow) {
    }

    public enum Direction { RL0_TO_RL1, RL1_TO_RL0 }

    /**
     * @param monitors 1 to 0: the {@code fill} and {@code overflow} outputs, for a source that may ignore
     *                 ready latency 1 (a BSP's controller); without them where the source is direkt's own
     *                 and keeps it by construction
     */
    public record Params(int width, Direction direction, boolean monitors) {
        public Params {
            require(width >= 1 && width <= 4096, "ReadyLatencyAdapter", "width", width, "must be in 1..4096");
            require(direction != null, "ReadyLatencyAdapter", "direction", direction, "must be RL0_TO_RL1 or RL1_TO_RL0");
        }

        /** An adapter with its monitors. */
        public Params(int width, Direction direction) {
            this(width, direction, true);
        }
    }

    /** Words the 1-to-0 direction can hold: one arriving, one authorised, two of slack for full rate. */
    static final int BUFFER_DEPTH = 4;

    @Override
    public String moduleName(Params p) {
        return "direkt_rl_adapter_w" + p.width() + (p.direction() == Direction.RL0_TO_RL1 ? "_0to1" : "_1to0")
                + (p.monitors() || p.direction() == Direction.RL0_TO_RL1 ? "" : "_nm");
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        boolean up = p.direction() == Direction.RL0_TO_RL1;
        Stream s = at.sink("s", AvalonSt.source(p.width(), up ? 0 : 1), cd);
        Stream mo = at.source("m", AvalonSt.source(p.width(), up ? 1 : 0), cd);
        return up || !p.monitors() ? new Io(s, mo, null, null)
                : new Io(s, mo, at.out("fill", Check.log2(BUFFER_DEPTH) + 1, cd), at.out("overflow", 1, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        ClockDomain cd = Domains.MAIN;
        boolean up = p.direction() == Direction.RL0_TO_RL1;
        Stream s = io.s();
        Stream mo = io.m();
        if (up) {
            Reg readyQ = m.reg("ready_q", 1, cd).init(0);
            readyQ.set(mo.ready());
            s.ready().set(readyQ);
            mo.valid().set(s.valid().and(readyQ));
            mo.data().set(s.data());
            return;
        }
        SyncFifo.Params bp = SyncFifo.Params.of(p.width(), BUFFER_DEPTH).withAlmostFull(BUFFER_DEPTH - 1).withRegisteredFlags(true);
        SyncFifo.Io buf = m.sub("u_buffer", new SyncFifo(), p.monitors() ? bp : bp.withoutFill()).clock(cd).io();
        // Every valid word of a ready-latency-1 source is a transfer: it must be taken (without monitors,
        // never over a held word: the same push for a source that keeps ready latency 1).
        buf.s().valid().set(p.monitors() ? s.valid() : s.valid().and(buf.s().ready()));
        buf.s().data().set(s.data());
        // Ready only with room for the word that may arrive next cycle on top of the one arriving now.
        s.ready().set(buf.almostFull().not());
        mo.valid().set(buf.m().valid());
        mo.data().set(buf.m().data());
        buf.m().ready().set(mo.ready());
        if (p.monitors()) {
            io.fill().set(buf.fill());
            // A source that ignores ready latency 1 would push into a full buffer: flag it, for monitors.
            io.overflow().set(s.valid().and(buf.s().ready().not()));
        }
    }
}
