// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.Set;

/**
 * A place in the designer's Java source: the file and line of the call that created a piece of
 * hardware. Frames of the HDL core itself and of the JDK are skipped, so the location is always the
 * generator line the designer wrote.
 */
public record SourceLoc(String file, int line) {

    /** Location used for things the core creates on its own (auto-named pin wires, literals). */
    public static final SourceLoc UNKNOWN = new SourceLoc("<direkt>", 0);

    private static final Set<String> CORE_PACKAGES = Set.of("org.direkt.hdl");
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /** The first caller outside the HDL core and the JDK. */
    public static SourceLoc capture() {
        return WALKER.walk(frames -> frames
                .filter(f -> !isInternal(f.getDeclaringClass()))
                .findFirst()
                .map(f -> new SourceLoc(f.getFileName() == null ? f.getClassName() : f.getFileName(), f.getLineNumber()))
                .orElse(UNKNOWN));
    }

    /**
     * Core classes and the JDK are skipped; the core's own generators (the synchroniser cell) are
     * not, so the modules they build point at their own source.
     */
    private static boolean isInternal(Class<?> c) {
        String pkg = c.getPackageName();
        boolean coreGenerator = Generator.class.isAssignableFrom(c) && c != Generator.class;
        return (CORE_PACKAGES.contains(pkg) && !coreGenerator) || pkg.startsWith("java.") || pkg.startsWith("jdk.")
                || pkg.startsWith("sun.");
    }

    /** The locator comment the emitter puts on declarations and always blocks. */
    public String locator() {
        return "// @[" + this + "]";
    }

    @Override
    public String toString() {
        return file + ":" + line;
    }
}
