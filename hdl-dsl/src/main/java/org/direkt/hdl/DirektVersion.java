// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * direkt's version, set once in the root {@code pom.xml} and filled into
 * {@code direkt-version.properties} by the build: what {@code direkt --version} prints and what the
 * overlay's manifest records.
 */
public final class DirektVersion {
    private DirektVersion() {
    }

    private static final String VERSION = load();

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = DirektVersion.class.getResourceAsStream("direkt-version.properties")) {
            if (in == null) {
                throw new IllegalStateException("direkt-version.properties is missing from the hdl-dsl classes: rebuild with Maven");
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "");
            if (v.isBlank() || v.contains("${")) {
                throw new IllegalStateException("direkt-version.properties was not filled in by the build (version=" + v + ")");
            }
            return v.strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
