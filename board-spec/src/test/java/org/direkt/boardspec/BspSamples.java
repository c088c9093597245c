// SPDX-License-Identifier: Apache-2.0
package org.direkt.boardspec;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the real board_spec.xml samples at run time (they are data of others and are not copied into
 * the project): the system property {@code direkt.bspSamples}, else a {@code shared/data/bsp-samples}
 * folder in the working directory or one of its parents, else {@code /work/shared/data/bsp-samples}.
 * When none exists the calling test is skipped, saying where it looked.
 */
final class BspSamples {

    static final String A10 = "a10_ref_small.board_spec.xml";
    static final String D5005 = "ofs_d5005.board_spec.xml";
    static final String N6001 = "ofs_n6001_usm_iopipes.board_spec.xml";

    private BspSamples() {
    }

    /** The samples folder; skips the test when it cannot be found. */
    static Path dir() {
        List<Path> tried = new ArrayList<>();
        String property = System.getProperty("direkt.bspSamples");
        if (property != null && !property.isBlank()) {
            Path p = Path.of(property);
            tried.add(p);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve("shared/data/bsp-samples");
            tried.add(p);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        Path fallback = Path.of("/work/shared/data/bsp-samples");
        tried.add(fallback);
        assumeTrue(Files.isDirectory(fallback), "BSP samples not found; looked in -Ddirekt.bspSamples and " + tried);
        return fallback;
    }

    /** One sample file; skips the test when it is missing. */
    static Path file(String name) {
        Path p = dir().resolve(name);
        assumeTrue(Files.isRegularFile(p), "BSP sample " + p + " not found");
        return p;
    }

    /** The board name a sample carries: its file name less {@code .board_spec.xml}. */
    static String boardName(String fileName) {
        return fileName.substring(0, fileName.length() - ".board_spec.xml".length());
    }
}
