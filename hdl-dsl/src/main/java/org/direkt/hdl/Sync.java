// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.math.BigInteger;

/**
 * The one legal way for a signal to enter another clock domain. What crosses must come straight
 * from a register of its source domain; multi-bit values must be Gray-coded (one bit changes at a
 * time) or otherwise held stable while they cross.
 */
public final class Sync {
    private Sync() {
    }

    /**
     * Brings register {@code src} into domain {@code to} through a synchroniser instance named
     * {@code instName} with {@code stages} flops; returns the synchronised value (domain {@code to}).
     */
    public static Signal bits(ModuleBuilder m, String instName, Signal src, ClockDomain to, int stages) {
        SourceLoc loc = SourceLoc.capture();
        requireStages(instName, stages, loc);
        m.requireDomain(to, loc);
        return wire(m.instance(instName, new SyncCell(), new SyncCell.Params(src.width(), stages, to.polarity(), to.kind())), src, to);
    }

    private static void requireStages(String instName, int stages, SourceLoc loc) {
        if (stages < 2) {
            throw ElaborationException.at(loc, "synchroniser '%s' has %d stage(s): at least 2 flip-flops are needed against metastability",
                    instName, stages);
        }
    }

    private static Signal wire(Instance inst, Signal src, ClockDomain to) {
        inst.clock("dst", to);
        inst.pin("d").set(src);
        return inst.pin("q");
    }

    /**
     * As {@link #bits}, through a synchroniser that no reset clears ({@link ResetlessSyncCell}):
     * every stage holds {@code powerUp} from configuration on and then only ever what it sampled.
     * For a value that must not jump when the destination domain is reset, such as a Gray pointer
     * whose source is never reset either.
     */
    public static Signal bitsWithoutReset(ModuleBuilder m, String instName, Signal src, ClockDomain to, int stages, long powerUp) {
        SourceLoc loc = SourceLoc.capture();
        requireStages(instName, stages, loc);
        BigInteger value = BigInteger.valueOf(powerUp);
        if (value.signum() < 0 || value.bitLength() > src.width()) {
            throw ElaborationException.at(loc, "synchroniser '%s': power-up value %d does not fit in the %d bits of %s",
                    instName, powerUp, src.width(), src.describe());
        }
        m.requireDomain(to, loc);
        return wire(m.instance(instName, new ResetlessSyncCell(), new ResetlessSyncCell.Params(src.width(), stages, value)), src, to);
    }
}
