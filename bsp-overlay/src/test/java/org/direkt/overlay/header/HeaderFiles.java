// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the header tests leave their files: a fresh folder under target/, kept for inspection. */
final class HeaderFiles {
    private HeaderFiles() {
    }

    static Path module() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    }

    static Path dir(String name) {
        try {
            Path target = module().resolve("target");
            Files.createDirectories(target);
            return Files.createTempDirectory(target, "direkt-header-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path write(Path dir, String name, String text) {
        try {
            Path p = dir.resolve(name);
            Files.writeString(p, text, StandardCharsets.UTF_8);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
