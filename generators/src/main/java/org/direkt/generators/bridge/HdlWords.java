// SPDX-License-Identifier: Apache-2.0
package org.direkt.generators.bridge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.direkt.contract.Layout;
import org.direkt.hdl.Expr;
import org.direkt.hdl.ModuleBuilder;

/** Builds hardware words from {@link Layout} fields, so no bit position is written twice. */
final class HdlWords {
    private HdlWords() {
    }

    /** Concatenates the named fields at their Layout positions; fields not named are zero. */
    static Expr pack(ModuleBuilder m, Layout.Word asked, Map<String, ? extends Expr> values) {
        Layout.Word word = Layout.resolve(asked);
        for (String name : values.keySet()) {
            word.field(name);
        }
        List<Layout.Field> fields = new ArrayList<>(word.fields());
        fields.sort(Comparator.comparingInt(Layout.Field::lsb).reversed());
        List<Expr> parts = new ArrayList<>();
        for (Layout.Field f : fields) {
            Expr v = values.get(f.name());
            if (v == null) {
                parts.add(m.lit(0, f.width()));
            } else if (v.width() != f.width()) {
                throw new IllegalArgumentException(word.name() + "." + f.name() + " is " + f.width()
                        + " bits, given " + v.width());
            } else {
                parts.add(v);
            }
        }
        return parts.size() == 1 ? parts.getFirst() : Expr.cat(parts.toArray(Expr[]::new));
    }

    /** The bits of field {@code name} of {@code value}. */
    static Expr get(Expr value, Layout.Word word, String name) {
        Layout.Field f = Layout.resolve(word).field(name);
        return value.bits(f.msb(), f.lsb());
    }
}
