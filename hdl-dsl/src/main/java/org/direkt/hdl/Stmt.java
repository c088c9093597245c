// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.ArrayList;
import java.util.List;

/** The body of a module: assignments, possibly under when/elseWhen/otherwise conditions. */
sealed interface Stmt permits Stmt.Assign, Stmt.When {

    SourceLoc loc();

    /** {@code target := value} on the path where this statement sits. */
    record Assign(Signal target, Expr value, SourceLoc loc) implements Stmt {
    }

    /** {@code if (cond) then else otherwise}; the lists fill while the builder is inside the branch. */
    record When(Expr cond, List<Stmt> then, List<Stmt> otherwise, SourceLoc loc) implements Stmt {
        When(Expr cond, SourceLoc loc) {
            this(cond, new ArrayList<>(), new ArrayList<>(), loc);
        }
    }
}
