package org.direkt.hdl;

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
        if (stages < 2) {
            throw ElaborationException.at(loc, "synchroniser '%s' has %d stage(s): at least 2 flip-flops are needed against metastability",
                    instName, stages);
        }
        m.requireDomain(to, loc);
        Instance inst = m.instance(instName, new SyncCell(), new SyncCell.Params(src.width(), stages, to.polarity(), to.kind()));
        inst.clock("dst", to);
        inst.pin("d").set(src);
        return inst.pin("q");
    }
}
