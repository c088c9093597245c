package org.direkt.generators.stream;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Domains;
import org.direkt.generators.fifo.SyncFifo;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Instance;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Stream;

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
public final class ReadyLatencyAdapter extends Generator<ReadyLatencyAdapter.Params> {

    public enum Direction { RL0_TO_RL1, RL1_TO_RL0 }

    public record Params(int width, Direction direction) {
        public Params {
            require(width >= 1 && width <= 4096, "ReadyLatencyAdapter", "width", width, "must be in 1..4096");
            require(direction != null, "ReadyLatencyAdapter", "direction", direction, "must be RL0_TO_RL1 or RL1_TO_RL0");
        }
    }

    /** Words the 1-to-0 direction can hold: one arriving, one authorised, two of slack for full rate. */
    static final int BUFFER_DEPTH = 4;

    @Override
    public String moduleName(Params p) {
        return "direkt_rl_adapter_w" + p.width() + (p.direction() == Direction.RL0_TO_RL1 ? "_0to1" : "_1to0");
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        ClockDomain cd = m.domain(Domains.MAIN);
        boolean up = p.direction() == Direction.RL0_TO_RL1;
        Stream s = m.stream("s", AvalonSt.source(p.width(), up ? 0 : 1).flip(), cd);
        Stream mo = m.stream("m", AvalonSt.source(p.width(), up ? 1 : 0), cd);
        if (up) {
            Reg readyQ = m.reg("ready_q", 1, cd).init(0);
            readyQ.set(mo.ready());
            s.ready().set(readyQ);
            mo.valid().set(s.valid().and(readyQ));
            mo.data().set(s.data());
            return;
        }
        Instance buf = m.instance("u_buffer", new SyncFifo(),
                SyncFifo.Params.of(p.width(), BUFFER_DEPTH).withAlmostFull(BUFFER_DEPTH - 1)).clock(cd);
        // Every valid word of a ready-latency-1 source is a transfer: it must be taken.
        buf.pin("s_valid").set(s.valid());
        buf.pin("s_data").set(s.data());
        // Ready only with room for the word that may arrive next cycle on top of the one arriving now.
        s.ready().set(buf.pin("almost_full").not());
        mo.valid().set(buf.pin("m_valid"));
        mo.data().set(buf.pin("m_data"));
        buf.pin("m_ready").set(mo.ready());
        m.output("fill", buf.pin("fill").width(), cd).set(buf.pin("fill"));
        // A source that ignores ready latency 1 would push into a full buffer: flag it, for monitors.
        m.output("overflow", 1, cd).set(s.valid().and(buf.pin("s_ready").not()));
    }
}
