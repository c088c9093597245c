// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Inputs of the system tests: the real BSP trees (read where they are, in ../shared/data/bsp-trees,
 * never copied into the project) and direkt's own synthetic systems (test resources).
 */
public final class Trees {
    private Trees() {
    }

    /** The real trees' folder; skips the test when it cannot be found. */
    public static Path bspTrees() {
        List<Path> tried = new ArrayList<>();
        String property = System.getProperty("direkt.bspTrees");
        if (property != null && !property.isBlank()) {
            tried.add(Path.of(property));
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            tried.add(d.resolve("shared/data/bsp-trees"));
        }
        tried.add(Path.of("/work/shared/data/bsp-trees"));
        for (Path p : tried) {
            if (Files.isDirectory(p.resolve("a10gx_16.1"))) {
                return p;
            }
        }
        assumeTrue(false, "real BSP trees not found; looked in -Ddirekt.bspTrees and " + tried);
        return null;
    }

    /** The a10gx 16.1 tree's root (holding hardware/a10gx/). */
    public static Path a10gx() {
        return bspTrees().resolve("a10gx_16.1");
    }

    /** Its board directory. */
    public static Path a10gxBoard() {
        return a10gx().resolve("hardware/a10gx");
    }

    /** A synthetic system folder of the test resources ({@code pro181_ref}, {@code standard_s10}). */
    public static Path resource(String name) {
        URL url = Trees.class.getResource(name);
        if (url == null) {
            throw new AssertionError("missing test resource " + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** A copy of resource folder {@code name} in {@code to}, to break on purpose. */
    public static Path copy(String name, Path to) throws IOException {
        return copyFrom(resource(name), to);
    }

    private static Path copyFrom(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.sorted().toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return to;
    }

    /** The 1-based line of the first occurrence of {@code text} in {@code file} (after {@code from}, when given). */
    public static int lineOf(Path file, String from, String text) throws IOException {
        String all = Files.readString(file, StandardCharsets.UTF_8);
        int start = from == null ? 0 : all.indexOf(from);
        if (start < 0) {
            throw new AssertionError(from + " not in " + file);
        }
        int at = all.indexOf(text, start);
        if (at < 0) {
            throw new AssertionError(text + " not in " + file);
        }
        return (int) all.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
    }

    /** A writable copy of real tree {@code name} (e.g. {@code a10gx_16.1}) at {@code dir}; returns {@code dir}. */
    public static Path copyTree(String name, Path dir) throws IOException {
        return copyFrom(bspTrees().resolve(name), dir);
    }
}
