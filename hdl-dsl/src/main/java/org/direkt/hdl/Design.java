// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One elaboration: caches modules by generator and parameters, so identical parameters anywhere in
 * the hierarchy give one module definition, and refuses two different definitions with one name.
 */
public final class Design {
    private final Map<List<Object>, Module> modules = new HashMap<>();
    private final Map<String, List<Object>> names = new HashMap<>();
    private final Set<List<Object>> inProgress = new HashSet<>();
    private final List<Diagnostic> warnings = new ArrayList<>();

    public <P extends Record> Module elaborate(Generator<P> generator, P params) {
        SourceLoc loc = SourceLoc.capture();
        if (params == null) {
            throw ElaborationException.at(loc, "%s: parameters must not be null", generator.getClass().getSimpleName());
        }
        List<Object> key = List.of(generator.getClass(), params);
        Module done = modules.get(key);
        if (done != null) {
            return done;
        }
        if (!inProgress.add(key)) {
            throw ElaborationException.at(loc, "%s instantiates itself with %s: the hierarchy would be infinite",
                    generator.getClass().getSimpleName(), params);
        }
        try {
            String name = generator.moduleName(params);
            Names.requireIdentifier(name, "module name");
            List<Object> other = names.get(name);
            if (other != null && !other.equals(key)) {
                throw ElaborationException.at(loc, "module name '%s' is produced by both %s and %s: names must tell parameters apart",
                        name, describe(other), describe(key));
            }
            ModuleBuilder b = new ModuleBuilder(this, name, generator.getClass().getName(), params);
            generator.build(b, params);
            Module m = b.finish();
            modules.put(key, m);
            names.put(name, key);
            warnings.addAll(m.warnings());
            return m;
        } finally {
            inProgress.remove(key);
        }
    }

    /** Warnings of every module elaborated so far (unused inputs, unread signals). */
    public List<Diagnostic> warnings() {
        return List.copyOf(warnings);
    }

    private static String describe(List<Object> key) {
        return ((Class<?>) key.get(0)).getSimpleName() + key.get(1);
    }
}
