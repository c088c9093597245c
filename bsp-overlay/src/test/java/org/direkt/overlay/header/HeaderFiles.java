// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.header;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the header tests leave their files (a fresh folder under target/, kept for inspection), and how they read and write them. */
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

    /** A test resource of this package, as text. */
    static String resource(String name) {
        String path = "/org/direkt/overlay/header/" + name;
        try (InputStream in = HeaderFiles.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("test resource missing: " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** 64-bit values, little-endian, as an OpenCL buffer holds them. */
    static void write(Path p, long[] values) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        Files.write(p, b.array());
    }

    /** 32-bit values, little-endian. */
    static void writeInts(Path p, int[] values) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putInt(v);
        }
        Files.write(p, b.array());
    }

    static long[] read(Path p) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        long[] v = new long[b.remaining() / 8];
        for (int i = 0; i < v.length; i++) {
            v[i] = b.getLong();
        }
        return v;
    }

    static int[] readInts(Path p) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        int[] v = new int[b.remaining() / 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = b.getInt();
        }
        return v;
    }

    /** A buffer of 32-bit words, unsigned. */
    static long[] readWords(Path p) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        long[] v = new long[b.remaining() / 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = b.getInt() & 0xFFFF_FFFFL;
        }
        return v;
    }
}
