// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.aperture;

import static org.direkt.generators.Check.require;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.AvalonSt;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Stream;
import org.direkt.hdl.Unit;

/**
 * The PCIe side of {@link Aperture}, in the hard IP's clock: an Avalon-MM burst agent for the BAR's
 * bursting RX master, every accepted read and write beat packed into one command word, and the read
 * data back from the response buffer, in order.
 *
 * <p>What it promises:
 * <ul>
 * <li>A read burst is taken only while the response buffer has room for a whole burst of
 *     {@code maxBurst} beats beside every beat already reserved ({@code reserved}) and
 *     {@link #LAG_BEATS} more: the buffer, which the memory fills without back-pressure, never
 *     overflows, even as its write side sees the beats taken out a few cycles late. Up to
 *     {@link Params#outstandingReads} read bursts are outstanding.</li>
 * <li>Every write beat's command word carries its burst's first address and burst count, so the
 *     memory side needs no state of its own to follow a burst.</li>
 * <li>{@code s_waitrequest} depends on flip-flops and on {@code s_read} alone.</li>
 * </ul>
 *
 * <p>The command word, low bits first: byte enables, data, burst count, byte address within the
 * BAR, then 1 for a write ({@link #commandBits}).
 */
public final class ApertureFront extends Unit<ApertureFront.Params, ApertureFront.Io> {

    /**
     * Beats of the response buffer never reserved: its write side, in the memory's clock, sees the
     * beats read out through a synchroniser a few of its cycles late, during which the RX master's
     * clock takes out up to this many (enough for a memory clock of at least a third of the RX master's).
     */
    public static final int LAG_BEATS = 16;

    /**
     * @param addressBits   byte address bits of the BAR (its size is 2^addressBits)
     * @param dataBits      data bits of the RX master and the memory (a power of two, 32..1024)
     * @param maxBurst      the longest burst in beats (a power of two)
     * @param responseBeats read data beats the response buffer holds (a power of two, a multiple of maxBurst)
     */
    public record Params(int addressBits, int dataBits, int maxBurst, int responseBeats) {
        public Params {
            require(Check.isPowerOfTwo(dataBits) && dataBits >= 32 && dataBits <= 1024, "ApertureFront", "dataBits", dataBits,
                    "must be a power of two in 32..1024");
            int wordBits = Check.log2(dataBits / 8);
            require(addressBits > wordBits + Check.log2(Math.max(1, maxBurst)) && addressBits <= 40, "ApertureFront", "addressBits",
                    addressBits, "must be in " + (wordBits + 1) + "..40 and span at least one longest burst");
            require(Check.isPowerOfTwo(maxBurst) && maxBurst >= 1 && maxBurst <= 128, "ApertureFront", "maxBurst", maxBurst,
                    "must be a power of two in 1..128");
            require(Check.isPowerOfTwo(responseBeats) && responseBeats >= maxBurst + LAG_BEATS && responseBeats <= 4096, "ApertureFront",
                    "responseBeats", responseBeats, "must be a power of two in " + (maxBurst + LAG_BEATS) + "..4096 (a longest burst and "
                            + LAG_BEATS + " beats of crossing lag)");
        }

        /** Avalon-MM burst count bits: maxBurst itself must fit. */
        public int burstBits() {
            return Check.log2(maxBurst) + 1;
        }

        /** Read bursts outstanding at most. */
        public int outstandingReads() {
            return (responseBeats - LAG_BEATS) / maxBurst;
        }

        public int commandBits() {
            return dataBits / 8 + dataBits + burstBits() + addressBits + 1;
        }

        /** The counter of reserved beats: 0..responseBeats. */
        public int reservedBits() {
            return Check.log2(responseBeats) + 1;
        }
    }

    /** The agent's signals, as Platform Designer names them on an Avalon-MM slave. */
    public record Agent(Signal address, Signal read, Signal write, Signal burstcount, Signal writedata, Signal byteenable,
            Signal waitrequest, Signal readdata, Signal readdatavalid) {
    }

    /** {@code cmd}: command words to the memory side; {@code resp}: read data from it (always taken). */
    public record Io(Agent s, Stream cmd, Stream resp, Signal reserved) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_aperture_front_a" + p.addressBits() + "_w" + p.dataBits() + "_b" + p.maxBurst() + "_r" + p.responseBeats();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        Agent s = new Agent(at.in("s_address", p.addressBits(), cd), at.in("s_read", 1, cd), at.in("s_write", 1, cd),
                at.in("s_burstcount", p.burstBits(), cd), at.in("s_writedata", p.dataBits(), cd),
                at.in("s_byteenable", p.dataBits() / 8, cd), at.out("s_waitrequest", 1, cd), at.out("s_readdata", p.dataBits(), cd),
                at.out("s_readdatavalid", 1, cd));
        return new Io(s, at.source("cmd", AvalonSt.source(p.commandBits()), cd), at.sink("resp", AvalonSt.source(p.dataBits()), cd),
                at.out("reserved", p.reservedBits(), cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(String.format("""
                Aperture front: Avalon-MM burst agent of a %d-byte BAR, %d-bit data, bursts up to %d beats; reads
                taken while the %d-beat response buffer has room for a whole burst and %d beats of crossing lag
                (%d outstanding at most).""",
                1L << p.addressBits(), p.dataBits(), p.maxBurst(), p.responseBeats(), LAG_BEATS, p.outstandingReads()));
        ClockDomain cd = Domains.MAIN;
        Agent s = io.s();
        int rb = p.reservedBits();
        int bb = p.burstBits();

        // Beats reserved for reads taken and not yet delivered. Room for another longest burst is a
        // register, computed a cycle ahead from the count then plus a read taken then (never more
        // permissive: a beat delivered then counts only from the cycle after).
        Reg reserved = m.reg("reserved_beats", rb, cd).init(0);
        Reg room = m.reg("read_room", 1, cd).init(0);
        Signal readTaken = m.wire("read_taken", 1);
        Signal beatOut = m.wire("beat_out", 1);
        beatOut.set(io.resp().valid());
        // a burst count of 0 is taken as 1 beat (Avalon-MM never sends one)
        Signal count = m.wire("burst", bb);
        count.set(Expr.mux(s.burstcount().eq(0), m.lit(1, bb), s.burstcount()));
        Signal reservedNext = m.wire("reserved_next", rb);
        reservedNext.set(reserved.plus(Expr.mux(readTaken, count.zext(rb), m.lit(0, rb))).minus(beatOut.zext(rb)));
        reserved.set(reservedNext);
        room.set(reserved.plus(Expr.mux(readTaken, count.zext(rb), m.lit(0, rb))).le(m.lit(p.responseBeats() - LAG_BEATS - p.maxBurst(), rb)));

        // A write burst's first address and count, held for its later beats.
        Reg left = m.reg("write_beats_left", bb, cd).init(0);
        Reg burstAddress = m.reg("write_address", p.addressBits(), cd).init(0);
        Reg burstCount = m.reg("write_burstcount", bb, cd).init(0);
        Signal firstBeat = m.wire("write_first", 1);
        firstBeat.set(left.eq(0));

        Stream cmd = io.cmd();
        // offered: every write beat, a read while a burst's room is left; taken when the buffer's
        // command FIFO has a place
        cmd.valid().set(s.write().or(s.read().and(room)));
        Signal accept = m.wire("accept", 1);
        accept.set(cmd.fire());
        readTaken.set(accept.and(s.write().not()));
        s.waitrequest().set(accept.not());
        Signal writeTaken = m.wire("write_taken", 1);
        writeTaken.set(accept.and(s.write()));
        m.when(writeTaken, () -> {
            m.when(firstBeat, () -> {
                left.set(count.minus(1));
                burstAddress.set(s.address());
                burstCount.set(count);
            }).otherwise(() -> left.set(left.minus(1)));
        });
        Expr address = Expr.mux(s.write().and(firstBeat.not()), burstAddress, s.address());
        Expr burst = Expr.mux(s.write().and(firstBeat.not()), burstCount, count);
        cmd.data().set(Expr.cat(s.write(), address, burst, s.writedata(), s.byteenable()));

        io.resp().ready().set(m.lit(1, 1));
        s.readdatavalid().set(io.resp().valid());
        s.readdata().set(io.resp().data());
        io.reserved().set(reserved);
    }
}
