// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl.tests;

import java.util.function.Consumer;

import org.direkt.hdl.ClockDomain;
import org.direkt.hdl.Generator;
import org.direkt.hdl.Module;
import org.direkt.hdl.ModuleBuilder;

/** A generator whose body is a lambda: lets each test describe a small module inline. */
final class Lambda extends Generator<Lambda.Params> {

    record Params(String name) {
    }

    static final ClockDomain MAIN = new ClockDomain("main", "clk", "rst",
            ClockDomain.ResetPolarity.ACTIVE_HIGH, ClockDomain.ResetKind.SYNC);

    private final Consumer<ModuleBuilder> body;

    Lambda(Consumer<ModuleBuilder> body) {
        this.body = body;
    }

    static Module build(String name, Consumer<ModuleBuilder> body) {
        return new Lambda(body).elaborate(new Params(name));
    }

    @Override
    public String moduleName(Params p) {
        return p.name();
    }

    @Override
    protected void build(ModuleBuilder m, Params p) {
        body.accept(m);
    }

    /** The line number of the caller: tests put it on the same line as the statement under test. */
    static int here() {
        return StackWalker.getInstance().walk(s -> s.skip(1).findFirst().orElseThrow().getLineNumber());
    }

    /** Holds the expected line, set from inside a lambda. */
    static final class Line {
        int value;
    }
}
