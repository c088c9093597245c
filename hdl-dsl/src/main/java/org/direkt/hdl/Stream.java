// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/**
 * One end of an Avalon-ST stream as seen from inside a module: a producer offers words (a sink
 * port of this module, or a source port of a child instance), a consumer takes them (a source
 * port of this module, or a sink port of a child). {@link ModuleBuilder#connect} joins a producer
 * to a consumer of the same type.
 */
public record Stream(String name, AvalonSt type, Role role, Signal data, Signal valid, Signal ready, SourceLoc loc) {

    public enum Role { PRODUCER, CONSUMER }

    /** Data width in bits. */
    public int width() {
        return type.dataWidth();
    }

    /** A word moves on this clock edge (ready latency 0). */
    public Expr fire() {
        return valid.and(ready);
    }
}
