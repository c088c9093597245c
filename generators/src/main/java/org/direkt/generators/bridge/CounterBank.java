// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.List;

import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.Memory;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * Event counters kept in a small RAM instead of one 32-bit adder each. Every event has a short
 * pre-counter; a flush pointer visits one counter per cycle and adds its pre-counter into the
 * RAM word, in two steps: the pre-counter is captured one cycle, added into the RAM word the
 * next, and only then restarted from the events of those two cycles, so until the RAM word holds
 * it the pre-counter still counts it. A read registers the RAM word and the pre-counter the cycle
 * it is asked for and offers their sum the next ({@code read_value}, one cycle of latency): the
 * count as it was in the asking cycle, exact. Clearing marks every RAM word empty (it reads as 0 until its next flush), zeroes
 * the pre-counters and drops a flush in flight, all in one cycle.
 *
 * <p>Counters are addressed {@code {group, index}}: group g, event i is {@code events[g * perGroup + i]}.
 * Each counts modulo 2^32.
 */
public final class CounterBank extends Unit<CounterBank.Params, CounterBank.Io> {

    public record Params(int groups, int perGroup) {
        public Params {
            require(groups >= 1 && groups <= 16, "CounterBank", "groups", groups, "must be in 1..16");
            require(perGroup >= 1 && perGroup <= 64, "CounterBank", "perGroup", perGroup, "must be in 1..64");
            require(groups * perGroup >= 2, "CounterBank", "perGroup", perGroup,
                    "must give at least two counters (groups x perGroup): a flush reads one word while it writes the one before");
        }

        int groupBits() {
            return Check.indexWidth(Math.max(2, groups));
        }

        int indexBits() {
            return Check.indexWidth(Math.max(2, perGroup));
        }

        public int counters() {
            return groups * perGroup;
        }

        /** A pre-counter restarts from at most two events and then counts until its next flush, a round later. */
        int preBits() {
            return Check.indexWidth(counters() + 2);
        }
    }

    public record Io(Signal events, Signal clear, Signal readAddr, Signal readValue) {
    }

    @Override
    public String moduleName(Params p) {
        return "direkt_counter_bank_g" + p.groups() + "_n" + p.perGroup();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        return new Io(at.in("events", p.counters(), cd), at.in("clear", 1, cd),
                at.in("read_addr", p.groupBits() + p.indexBits(), cd), at.out("read_value", 32, cd));
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        m.doc(p.counters() + " event counters of 32 bits in a RAM, exact on every read; pre-counters of " + p.preBits()
                + " bits, flushed round robin in two steps.");
        ClockDomain cd = Domains.MAIN;
        int gb = p.groupBits();
        int ib = p.indexBits();
        int pb = p.preBits();
        int n = p.counters();
        Memory counts = m.memory("counts", 32, 1 << (gb + ib), cd);
        // Step 1 position, one-hot (selects a pre-counter) and binary (the RAM address); step 2 is
        // the position a cycle earlier: the one-hot ring turned back, the address registered.
        Reg ring = m.reg("flush_onehot", n, cd).init(1);
        Reg flushGroup = m.reg("flush_group", gb, cd).init(0);
        Reg flushIndex = m.reg("flush_index", ib, cd).init(0);
        Signal ringBefore = m.wire("flush2_onehot", n);
        ringBefore.set(n == 1 ? ring : Expr.cat(ring.bit(0), ring.bits(n - 1, 1)));
        Reg addr2 = m.reg("flush2_addr", gb + ib, cd).init(0);
        Reg pre2 = m.reg("flush2_pre", pb, cd).init(0);
        Reg valid2 = m.reg("flush2_valid", 1, cd).init(0);
        // held[k]: counter k's RAM word is valid (cleared words read as 0 until their next flush)
        Reg held = m.reg("held", n, cd).init(0);
        Reg eventsBefore = m.reg("events_q", n, cd).init(0);
        eventsBefore.set(io.events());

        List<Expr> readSel = new ArrayList<>();
        Expr flushPre = m.lit(0, pb);
        Expr readPre = m.lit(0, pb);
        for (int g = 0; g < p.groups(); g++) {
            for (int i = 0; i < p.perGroup(); i++) {
                int k = g * p.perGroup() + i;
                Reg r = m.reg("pre_" + g + "_" + i, pb, cd).init(0);
                Expr event = io.events().bit(k).zext(pb);
                // Flushed last cycle: restart from the events of that cycle and this one.
                Expr restart = eventsBefore.bit(k).zext(pb).plus(event);
                m.when(io.clear(), () -> r.set(0))
                        .elseWhen(valid2.and(ringBefore.bit(k)), () -> r.set(restart))
                        .otherwise(() -> r.set(r.plus(event)));
                Expr sel = io.readAddr().eq((g << ib) | i);
                readSel.add(0, sel);
                flushPre = flushPre.or(r.and(ring.bit(k).repeat(pb)));
                readPre = readPre.or(r.and(sel.repeat(pb)));
            }
        }
        Signal readOneHot = m.wire("read_onehot", n);
        readOneHot.set(readSel.size() == 1 ? readSel.getFirst() : Expr.cat(readSel.toArray(Expr[]::new)));

        // Step 1: capture the pre-counter and the address.
        pre2.set(flushPre);
        addr2.set(Expr.cat(flushGroup, flushIndex));
        valid2.set(io.clear().not());
        m.when(flushIndex.eq(p.perGroup() - 1), () -> {
            flushIndex.set(0);
            flushGroup.set(Expr.mux(flushGroup.eq(p.groups() - 1), m.lit(0, gb), flushGroup.plus(1)));
        }).otherwise(() -> flushIndex.set(flushIndex.plus(1)));
        ring.set(n == 1 ? ring : Expr.cat(ring.bits(n - 2, 0), ring.bit(n - 1)));
        // Step 2: add it into the RAM word, read in step 1 into a register that a word not held (or
        // a clear) zeroes. The step-1 read never meets the step-2 write of the same word: the two
        // steps are at neighbouring counters (there are at least two).
        // A word's held flag cannot change between its two steps (only its own flush or a clear,
        // which cancels step 2, changes it), so step 1 reads it.
        // With three counters or more it is read a cycle early, from the position the ring turns to:
        // step 2 of this cycle writes the flag two positions behind that one, so only a clear changes it.
        Signal heldAt1 = m.wire("flush_held", 1);
        if (n >= 3) {
            Reg flushHeldQ = m.reg("flush_held_q", 1, cd).init(0);
            flushHeldQ.set(io.clear().not().and(held.and(Expr.cat(ring.bits(n - 2, 0), ring.bit(n - 1))).orR()));
            heldAt1.set(flushHeldQ);
        } else {
            heldAt1.set(held.and(ring).orR());
        }
        Reg word2 = m.reg("flush2_word", 32, cd).init(0);
        word2.set(Expr.mux(heldAt1, counts.readAsync(Expr.cat(flushGroup, flushIndex)), m.lit(0, 32)));
        Signal sum = m.wire("flush2_sum", 32);
        sum.set(word2.plus(pre2.zext(32)));
        counts.write(addr2, sum, valid2.and(io.clear().not()));
        m.when(io.clear(), () -> held.set(0))
                .elseWhen(valid2, () -> held.set(held.or(ringBefore)));

        Signal readHeld = m.wire("read_held", 1);
        readHeld.set(held.and(readOneHot).orR());
        Reg readWord = m.reg("read_word", 32, cd).init(0);
        Reg readPart = m.reg("read_pre", pb, cd).init(0);
        readWord.set(Expr.mux(readHeld, counts.readAsync(io.readAddr()), m.lit(0, 32)));
        readPart.set(readPre);
        io.readValue().set(readWord.plus(readPart.zext(32)));
    }
}
