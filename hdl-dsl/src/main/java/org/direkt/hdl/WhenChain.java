// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

/** The rest of a when/elseWhen/otherwise chain; see {@link ModuleBuilder#when}. */
public final class WhenChain {
    private final ModuleBuilder m;
    private final Stmt.When when;
    private boolean closed;

    WhenChain(ModuleBuilder m, Stmt.When when) {
        this.m = m;
        this.when = when;
    }

    /** Runs {@code body} when the earlier conditions are false and {@code cond} is true. */
    public WhenChain elseWhen(Expr cond, Runnable body) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        closed = true;
        Stmt.When next = m.newWhen(cond, loc);
        when.otherwise().add(next);
        m.inScope(next.then(), body);
        return new WhenChain(m, next);
    }

    /** Runs {@code body} when every earlier condition is false. */
    public void otherwise(Runnable body) {
        SourceLoc loc = SourceLoc.capture();
        checkOpen(loc);
        closed = true;
        m.inScope(when.otherwise(), body);
    }

    private void checkOpen(SourceLoc loc) {
        if (closed) {
            throw ElaborationException.at(loc, "this when chain already has its else branch");
        }
    }
}
