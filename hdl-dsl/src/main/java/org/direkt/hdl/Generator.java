// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * A hardware generator: a parameter record in, one module definition out. Parameters are
 * immutable records validated in their compact constructors; equal records give the same module.
 */
public abstract class Generator<P extends Record> {

    /** The Verilog module name for these parameters; distinct parameters must give distinct names. */
    public abstract String moduleName(P params);

    /** Describes the module's ports, state and logic. */
    protected abstract void build(ModuleBuilder m, P params);

    /** Elaborates and checks the module (and its children) in a fresh design. */
    public final Module elaborate(P params) {
        return new Design().elaborate(this, params);
    }
}
