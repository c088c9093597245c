// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.ArrayList;
import java.util.List;

/** The statements that drive one signal: the module body pruned to that signal's assignments. */
final class Drivers {
    private Drivers() {
    }

    static List<Stmt> project(List<Stmt> stmts, Signal target) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a && a.target() == target) {
                out.add(a);
            } else if (s instanceof Stmt.When w) {
                List<Stmt> then = project(w.then(), target);
                List<Stmt> otherwise = project(w.otherwise(), target);
                if (!then.isEmpty() || !otherwise.isEmpty()) {
                    out.add(new Stmt.When(w.cond(), then, otherwise, w.loc()));
                }
            }
        }
        return out;
    }

    /** True when every path through {@code stmts} assigns the target (no latch). */
    static boolean complete(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign) {
                return true;
            }
            if (s instanceof Stmt.When w && complete(w.then()) && complete(w.otherwise())) {
                return true;
            }
        }
        return false;
    }

    /** The single unconditional assignment, when that is all there is. */
    static Stmt.Assign single(List<Stmt> stmts) {
        return stmts.size() == 1 && stmts.getFirst() instanceof Stmt.Assign a ? a : null;
    }

    /** The first assignment in source order (for locators). */
    static Stmt.Assign first(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                return a;
            }
            if (s instanceof Stmt.When w) {
                Stmt.Assign a = first(w.then());
                if (a == null) {
                    a = first(w.otherwise());
                }
                if (a != null) {
                    return a;
                }
            }
        }
        return null;
    }

    /** Every expression the projection reads: assigned values and the conditions above them. */
    static void forEachExpr(List<Stmt> stmts, java.util.function.Consumer<Expr> visit) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                visit.accept(a.value());
            } else if (s instanceof Stmt.When w) {
                visit.accept(w.cond());
                forEachExpr(w.then(), visit);
                forEachExpr(w.otherwise(), visit);
            }
        }
    }
}
