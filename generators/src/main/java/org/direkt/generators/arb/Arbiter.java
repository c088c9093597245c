// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.arb;

import static org.direkt.generators.Check.require;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.direkt.generators.Bits;
import org.direkt.generators.Check;
import org.direkt.generators.Domains;
import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;
import org.direkt.hdl.Ports;
import org.direkt.hdl.Reg;
import org.direkt.hdl.Signal;
import org.direkt.hdl.Unit;

/**
 * An n-way arbiter that grants whole transfers. Requester i raises {@code req[i]}; the grant
 * ({@code grant} one-hot, {@code grant_id} encoded, {@code grant_valid}) is given combinationally
 * in the cycle a requester wins and then held, whatever the requests do, until {@code done}
 * reports the end of the transfer; a one-cycle transfer (grant and done together) costs no
 * extra cycle, so back-to-back single-word transfers run at 1 per cycle.
 *
 * <p>With {@code offers} the one-hot {@code grant} gives way to {@code offer}: {@code offer[i]} is
 * the grant requester i gets this cycle if it requests (equal to the grant whenever {@code req[i]}
 * is high), a ready for requester i that does not wait on its own valid, so a requester whose
 * valid is a register fed back from its own transfers keeps that loop short.
 *
 * <ul>
 * <li>FIXED_PRIORITY: the lowest index wins (the priority encoder).</li>
 * <li>ROUND_ROBIN: after a transfer of requester g, g+1 has the highest priority; every waiting
 *     requester is served within n grants.</li>
 * <li>WEIGHTED: requester g may take up to weights[g] consecutive transfers before priority moves
 *     on; a waiting requester is served within the sum of the other weights, plus one, grants.</li>
 * </ul>
 */
public final class Arbiter extends Unit<Arbiter.Params, Arbiter.Io> {

    /**
     * Requests in, the end of the current grant in; the grant one-hot (null with offers), as an
     * index, and whether there is one; with offers, the grant each requester would get if it requested.
     */
    public record Io(Signal req, Signal done, Signal grant, Signal grantId, Signal grantValid, Signal offer) {
    }

    public enum Policy { FIXED_PRIORITY, ROUND_ROBIN, WEIGHTED }

    public record Params(int requesters, Policy policy, List<Integer> weights, boolean offers) {
        public Params(int requesters, Policy policy, List<Integer> weights) {
            this(requesters, policy, weights, false);
        }

        /** The same arbiter with {@code offer} in place of the one-hot {@code grant}. */
        public Params withOffers() {
            return new Params(requesters, policy, weights, true);
        }

        public Params {
            require(requesters >= 2 && requesters <= 32, "Arbiter", "requesters", requesters, "must be in 2..32");
            require(policy != null, "Arbiter", "policy", policy, "must be FIXED_PRIORITY, ROUND_ROBIN or WEIGHTED");
            weights = weights == null ? List.of() : List.copyOf(weights);
            if (policy == Policy.WEIGHTED) {
                require(weights.size() == requesters, "Arbiter", "weights", weights,
                        "WEIGHTED needs one weight per requester (" + requesters + ")");
                for (int w : weights) {
                    require(w >= 1 && w <= 255, "Arbiter", "weights", weights, "every weight must be in 1..255");
                }
            } else {
                require(weights.isEmpty(), "Arbiter", "weights", weights, "only the WEIGHTED policy takes weights");
            }
        }

        public static Params fixed(int n) {
            return new Params(n, Policy.FIXED_PRIORITY, List.of());
        }

        public static Params roundRobin(int n) {
            return new Params(n, Policy.ROUND_ROBIN, List.of());
        }

        public static Params weighted(Integer... weights) {
            return new Params(weights.length, Policy.WEIGHTED, List.of(weights));
        }

        /**
         * The most grants the other requesters receive, all together, between requester i's request
         * and its grant: round robin n - 1 (each other one once), weighted the sum of the others'
         * weights, fixed priority unbounded ({@link Integer#MAX_VALUE}). The arbiter bench
         * ({@code sim/tb/arbiter}) asserts it on the generated RTL, waits reaching it exactly under
         * saturation, and the bridge bench's {@code arbiter_bound} for both policies on the bridge.
         */
        public int waitBound(int i) {
            return switch (policy) {
                case FIXED_PRIORITY -> Integer.MAX_VALUE;
                case ROUND_ROBIN -> requesters - 1;
                case WEIGHTED -> weights.stream().mapToInt(Integer::intValue).sum() - weights.get(i);
            };
        }
    }

    @Override
    public String moduleName(Params p) {
        String policy = switch (p.policy()) {
            case FIXED_PRIORITY -> "fixed";
            case ROUND_ROBIN -> "rr";
            case WEIGHTED -> "wrr";
        };
        StringBuilder name = new StringBuilder("direkt_arbiter_" + policy + "_n" + p.requesters());
        for (int w : p.weights()) {
            name.append('_').append(w);
        }
        return name.append(p.offers() ? "_o" : "").toString();
    }

    @Override
    protected Io ports(Ports at, Params p) {
        ClockDomain cd = at.domain(Domains.MAIN);
        int n = p.requesters();
        int iw = Check.indexWidth(n);
        return new Io(at.in("req", n, cd), at.in("done", 1, cd), p.offers() ? null : at.out("grant", n, cd),
                at.out("grant_id", iw, cd), at.out("grant_valid", 1, cd), p.offers() ? at.out("offer", n, cd) : null);
    }

    @Override
    protected void build(ModuleBuilder m, Params p, Io io) {
        ClockDomain cd = Domains.MAIN;
        int n = p.requesters();
        int iw = Check.indexWidth(n);
        Signal req = io.req();
        Signal done = io.done();

        Signal grantId = io.grantId();
        Signal grantValid = io.grantValid();

        Reg locked = m.reg("locked", 1, cd).init(0);
        Reg heldGrant = m.reg("held_grant", n, cd).init(0);
        Signal pick = m.wire("pick", n);
        Signal current = m.wire("current", n);
        Signal id = m.wire("current_id", iw);

        current.set(Expr.mux(locked, heldGrant, pick));
        id.set(Bits.oneHotIndex(current, n, iw));

        m.when(locked, () -> {
            m.when(done, () -> locked.set(0));
        }).otherwise(() -> {
            m.when(pick.orR().and(done.not()), () -> {
                locked.set(1);
                heldGrant.set(pick);
            });
        });

        // offer[i]: pick[i] with req[i] taken as high, i.e. no other request ahead of i.
        List<Expr> offers = new ArrayList<>();  // (built for every policy; emitted only with offers)
        if (p.policy() == Policy.FIXED_PRIORITY) {
            pick.set(Bits.lowestSet(req));
            for (int i = 0; i < n; i++) {
                offers.add(i == 0 ? m.lit(1, 1) : req.bits(i - 1, 0).orR().not());
            }
        } else {
            Reg ptr = m.reg("priority_ptr", iw, cd).init(0);
            // Requests at or above the pointer win first; if none, the lowest request wraps around.
            Signal above = m.wire("req_above_ptr", n);
            above.set(req.and(m.lit((1L << n) - 1, n).shl(ptr)));
            pick.set(Expr.mux(above.orR(), Bits.lowestSet(above), Bits.lowestSet(req)));
            // Ahead of i: with i at or above the pointer, a request at or above it and below i;
            // with i below the pointer, any request at or above it, or below i.
            offers.add(ptr.eq(0).or(above.orR().not()));
            for (int i = 1; i < n; i++) {
                Expr aheadAbove = above.bits(i - 1, 0).orR();
                if (i == n - 1) {
                    offers.add(aheadAbove.not());  // never below the pointer
                } else {
                    Expr whenBelow = above.orR().or(req.bits(i - 1, 0).orR());
                    offers.add(Expr.mux(ptr.le(m.lit(i, iw)), aheadAbove, whenBelow).not());
                }
            }
            Expr following = Expr.mux(id.eq(n - 1), m.lit(0, iw), id.plus(1));
            Signal finished = m.wire("finished", 1);
            finished.set(current.orR().and(done));
            if (p.policy() == Policy.ROUND_ROBIN) {
                m.when(finished, () -> ptr.set(following));
            } else {
                Reg used = m.reg("used", 8, cd).init(0);
                Signal runLength = m.wire("run_length", 8);
                runLength.set(Expr.mux(id.eq(ptr), used.plus(1), m.lit(1, 8)));
                Signal weight = m.wire("weight", 8);
                Expr w = m.lit(p.weights().get(n - 1), 8);
                for (int i = n - 2; i >= 0; i--) {
                    w = Expr.mux(id.eq(i), m.lit(p.weights().get(i), 8), w);
                }
                weight.set(w);
                m.when(finished, () -> {
                    m.when(runLength.ge(weight), () -> {
                        ptr.set(following);
                        used.set(0);
                    }).otherwise(() -> {
                        ptr.set(id);
                        used.set(runLength);
                    });
                });
            }
        }
        grantId.set(id);
        grantValid.set(current.orR());
        if (p.offers()) {
            List<Expr> msbFirst = new ArrayList<>(offers);
            Collections.reverse(msbFirst);
            io.offer().set(Expr.mux(locked, heldGrant, Expr.cat(msbFirst.toArray(Expr[]::new))));
        } else {
            io.grant().set(current);
        }
    }
}
