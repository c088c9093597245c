// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.List;

import org.direkt.generators.Bits;
import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.generators.arb.Arbiter;
import org.direkt.generators.fifo.SyncFifo;
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
 * Several kernel ports of one direction onto the bridge's one request stream, kernel_clk side.
 *
 * <p>Each port is a descriptor channel and a status channel of its own. The generated
 * {@link Arbiter} picks the port whose request goes next and keeps it until the request's last
 * entry ({@code more} clear; without a {@code more} bit every word is a request), so the entries of
 * one request are never interleaved with another port's.
 *
 * <p>Credits: a port may have {@code credits} requests unanswered, counted from its first entry to
 * the kernel's read of its status; it is offered to the arbiter only below that. Its statuses wait in
 * a FIFO of its own, {@code credits} deep, so a port whose kernel does not read its statuses holds
 * up no other port, and a status never waits for room.
 *
 * <p>Tags: the bridge sees, in place of the kernel's tag, a token, port times {@code credits} plus a
 * slot of the port's own; the kernel's tag waits in that slot. A status's token names its port and
 * slot: the status goes to that port with the kernel's tag put back and frees the slot. Two ports may
 * use the same tags.
 */
public final class PortMux extends Unit<PortMux.Params, PortMux.Io> {

    /**
     * @param ports    kernel ports, 2..8
     * @param credits  requests a port may have unanswered, a power of two in 2..16
     * @param policy   the arbitration between the ports
     * @param weights  one per port with {@link Arbiter.Policy#WEIGHTED}
     * @param wordBits the descriptor channel's width
     * @param tagLsb   where the 32-bit tag sits in a descriptor channel word
     * @param moreBit  the bit that says another entry of the request follows, or -1 if there is none
     */
    public record Params(int ports, int credits, Arbiter.Policy policy, List<Integer> weights, int wordBits, int tagLsb, int moreBit) {
        public Params {
            require(ports >= 2 && ports <= Bridge.Params.MAX_PORTS, "PortMux", "ports", ports, "must be in 2.." + Bridge.Params.MAX_PORTS);
            require(Check.isPowerOfTwo(credits) && credits >= 2 && credits <= 16, "PortMux", "credits", credits,
                    "must be a power of two in 2..16");
            weights = weights == null ? List.of() : List.copyOf(weights);
            new Arbiter.Params(ports, policy, weights);
            require(tagLsb >= 0 && tagLsb + TAG_BITS <= wordBits, "PortMux", "tagLsb", tagLsb, "the tag must lie inside the word");
            require(moreBit >= -1 && moreBit < wordBits, "PortMux", "moreBit", moreBit, "must be -1 or a bit of the word");
        }

        /** Bits of a slot index within a port. */
        public int slotBits() {
            return Check.log2(credits);
        }

        /** Bits of a token: the port, then the slot. */
        public int tokenBits() {
            return Check.indexWidth(ports) + slotBits();
        }
    }

    /** The tag's width in a descriptor word and in a status (its bits [31:0]). */
    public static final int TAG_BITS = 32;

    /** The status words' width. */
    public static final int STATUS_BITS = 64;

    /** Per port its descriptor channel (in) and status channel (out); the merged request stream and the bridge's statuses. */
    public record Io(List<Stream> desc, List<Stream> status, Stream out, Stream in) {
    }

    @Override
    public String moduleName(Params p) {
        StringBuilder n = new StringBuilder("direkt_port_mux_n" + p.ports() + "_c" + p.credits() + "_"
                + p.policy().name().toLowerCase(java.util.Locale.ROOT).replace("_priority", "").replace("round_robin", "rr"));
        p.weights().forEach(w -> n.append('_').append(w));
        return n.append("_w").append(p.wordBits()).append("_t").append(p.tagLsb())
                .append(p.moreBit() < 0 ? "" : "_m" + p.moreBit()).toString();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        List<Stream> desc = new ArrayList<>();
        List<Stream> status = new ArrayList<>();
        for (int k = 0; k < p.ports(); k++) {
            desc.add(at.sink("p" + k + "_desc", AvalonSt.source(p.wordBits()), cd));
            status.add(at.source("p" + k + "_status", AvalonSt.source(STATUS_BITS), cd));
        }
        return new Io(desc, status, at.source("out", AvalonSt.source(p.wordBits()), cd),
                at.sink("in", AvalonSt.source(STATUS_BITS), cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        ClockDomain cd = Domains.MAIN;
        int n = p.ports();
        int c = p.credits();
        int sb = p.slotBits();
        int iw = Check.indexWidth(n);
        int tw = p.tokenBits();
        m.doc(String.format("%d kernel ports onto one request stream: %s arbitration, a request's entries kept together, "
                + "%d requests unanswered per port, statuses routed back by token.", n,
                p.policy().name().toLowerCase(java.util.Locale.ROOT), c));

        Arbiter.Io arb = m.sub("u_arb", new Arbiter(), new Arbiter.Params(n, p.policy(), p.weights())).clock(cd).io();
        Signal g = arb.grantId();

        // ---- per port: requests unanswered (first entry taken .. status read), slots holding a tag
        List<Reg> unanswered = new ArrayList<>();
        List<Reg> busy = new ArrayList<>();
        List<Signal> freeSlot = new ArrayList<>();
        List<Expr> req = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            unanswered.add(m.reg("p" + k + "_unanswered", sb + 1, cd).init(0));
            busy.add(m.reg("p" + k + "_slot_busy", c, cd).init(0));
            Signal free = m.wire("p" + k + "_free_slot", sb);
            Expr lowest = m.lit(0, sb);  // the lowest free slot (any, when none is: no credit then)
            for (int j = c - 1; j >= 0; j--) {
                lowest = Expr.mux(busy.get(k).bit(j).not(), m.lit(j, sb), lowest);
            }
            free.set(lowest);
            freeSlot.add(free);
            req.add(io.desc().get(k).valid().and(unanswered.get(k).ne(c)));
        }
        List<Expr> msbFirst = new ArrayList<>(req);
        java.util.Collections.reverse(msbFirst);
        arb.req().set(Expr.cat(msbFirst.toArray(Expr[]::new)));

        // ---- the granted port's word, its tag replaced by the request's token
        List<Expr> valids = new ArrayList<>();
        List<Expr> words = new ArrayList<>();
        List<Expr> slots = new ArrayList<>();
        for (int k = 0; k < 1 << iw; k++) {
            int at = Math.min(k, n - 1);
            valids.add(io.desc().get(at).valid());
            words.add(io.desc().get(at).data());
            slots.add(freeSlot.get(at));
        }
        Signal word = m.wire("granted_word", p.wordBits());
        word.set(Bits.select(words, g));
        Signal fire = m.wire("fire", 1);
        fire.set(arb.grantValid().and(Bits.select(valids, g)).and(io.out().ready()));
        Expr more = p.moreBit() < 0 ? m.lit(0, 1) : word.bit(p.moreBit());
        arb.done().set(fire.and(more.not()));
        for (int k = 0; k < n; k++) {
            io.desc().get(k).ready().set(arb.grant().bit(k).and(io.out().ready()));
        }
        // Within a request (after an entry with more set) its later entries carry the first one's token.
        Reg within = m.reg("within_request", 1, cd).init(0);
        Reg heldToken = m.reg("request_token", tw, cd).init(0);
        Signal newToken = m.wire("new_token", tw);
        newToken.set(Expr.cat(g, Bits.select(slots, g)));
        Signal start = m.wire("request_start", 1);
        start.set(fire.and(within.not()));
        m.when(fire, () -> within.set(more));
        m.when(start, () -> heldToken.set(newToken));
        Expr token = Expr.mux(within, heldToken, newToken).zext(TAG_BITS);
        int hi = p.tagLsb() + TAG_BITS;
        List<Expr> parts = new ArrayList<>();
        if (hi < p.wordBits()) {
            parts.add(word.bits(p.wordBits() - 1, hi));
        }
        parts.add(token);
        if (p.tagLsb() > 0) {
            parts.add(word.bits(p.tagLsb() - 1, 0));
        }
        io.out().valid().set(arb.grantValid().and(Bits.select(valids, g)));
        io.out().data().set(Expr.cat(parts.toArray(Expr[]::new)));
        Expr kernelTag = word.bits(hi - 1, p.tagLsb());

        // ---- statuses: the token names port and slot; the kernel's tag back in place
        Signal inToken = m.wire("status_token", tw);
        inToken.set(io.in().data().bits(tw - 1, 0));
        Signal inPort = m.wire("status_port", iw);
        inPort.set(inToken.bits(tw - 1, sb));
        // (a tag with bits above the token's set is no token of this unit's: no port takes it)
        Signal ours = m.wire("status_ours", 1);
        ours.set(io.in().data().bits(TAG_BITS - 1, tw).orR().not());
        Signal inSlot = m.wire("status_slot", sb);
        inSlot.set(inToken.bits(sb - 1, 0));
        List<Expr> tags = new ArrayList<>();
        for (int t = 0; t < 1 << tw; t++) {
            int k = t >> sb;
            if (k < n) {
                Reg tag = m.reg("p" + k + "_slot" + (t & (c - 1)) + "_tag", TAG_BITS, cd).powerUp(0);
                m.when(start.and(newToken.eq(t)), () -> tag.set(kernelTag));
                tags.add(tag);
            } else {
                tags.add(tags.getLast());  // no such port: never selected
            }
        }
        Signal restored = m.wire("status_kernel_tag", TAG_BITS);
        restored.set(Bits.select(tags, inToken));
        // A status always finds room: its port's FIFO holds at most the port's unanswered requests less
        // this one (formal/port_mux.sv proves it). Ready is the FIFO's all the same.
        List<Expr> room = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            SyncFifo.Io q = m.sub("u_p" + k + "_status", new SyncFifo(), SyncFifo.Params.of(STATUS_BITS, c).withoutFill()).clock(cd).io();
            Expr here = io.in().valid().and(inPort.eq(k)).and(ours);
            q.s().valid().set(here);
            q.s().data().set(Expr.cat(io.in().data().bits(STATUS_BITS - 1, TAG_BITS), restored));
            room.add(q.s().ready());
            m.connect(q.m(), io.status().get(k));
            Stream st = io.status().get(k);
            Expr read = st.valid().and(st.ready());
            Expr taken = start.and(g.eq(k));
            Reg u = unanswered.get(k);
            u.set(u.upDown(taken, read));
            Reg b = busy.get(k);
            Expr set = Expr.mux(taken, m.lit(1, c).shl(freeSlot.get(k)), m.lit(0, c));
            Expr clear = Expr.mux(here, m.lit(1, c).shl(inSlot), m.lit(0, c));
            b.set(b.or(set).and(clear.not()));
        }
        while (room.size() < 1 << iw) {
            room.add(room.getLast());
        }
        io.in().ready().set(Bits.select(room, inPort));
    }
}
