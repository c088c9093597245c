// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * A generator with a typed interface: {@link #ports} declares the ports once as a record
 * {@code IO}; inside the unit {@link #build(ModuleBuilder, Record, Object)} receives that record
 * with the unit's own ports, and a parent that instantiates the unit with
 * {@link ModuleBuilder#sub} receives the same record with the instance's pins. A renamed or
 * removed port is then a compile error in the parent, not a failed lookup at elaboration.
 */
public abstract class Unit<P extends Record, IO> extends Generator<P> {

    /** Declares the unit's domains and ports for {@code params}; called inside the unit and at each instance. */
    protected abstract IO ports(Ports at, P params);

    /** Describes the unit's state and logic, given its own ports. */
    protected abstract void build(ModuleBuilder m, P params, IO io);

    @Override
    protected final void build(ModuleBuilder m, P params) {
        build(m, params, ports(m.ports(), params));
    }

    /** The interface record seen from a parent, on the pins of {@code instance} (a unit built with {@code params}). */
    final IO portsAt(Instance instance, P params) {
        return ports(instance.ports(), params);
    }
}
