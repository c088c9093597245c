// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * An instance of a {@link Unit} as its parent sees it: the instance (for clock binding) and the
 * unit's interface record on the instance's pins.
 */
public record Sub<IO>(Instance instance, IO io) {

    /** Binds the unit's domain {@code childDomain} (as the unit declared it) to the parent's {@code parent}. */
    public Sub<IO> clock(ClockDomain childDomain, ClockDomain parent) {
        instance.clock(childDomain.name(), parent);
        return this;
    }

    /** Drives the reset of the unit's domain {@code childDomain} from register {@code rst} ({@link Instance#reset}). */
    public Sub<IO> reset(ClockDomain childDomain, Reg rst) {
        instance.reset(childDomain.name(), rst);
        return this;
    }

    /** Binds every domain of the unit to {@code parent}. */
    public Sub<IO> clock(ClockDomain parent) {
        instance.clock(parent);
        return this;
    }
}
