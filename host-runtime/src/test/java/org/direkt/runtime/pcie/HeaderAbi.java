// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What the kernel module's C header says of each expression the Java side names (struct sizes,
 * field offsets, request numbers, constants): a C program printing them, compiled with gcc
 * {@code -Wall -Werror} against host-runtime/driver and run.
 */
public final class HeaderAbi {
    private HeaderAbi() {
    }

    /** The header's value of every key of {@code java}, by the same key. */
    public static Map<String, Long> of(Map<String, Long> java, Path dir) throws IOException, InterruptedException {
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include \"direkt_importer.h\"\n"
                + "int main(void) {\n");
        java.keySet().forEach(k -> c.append("  printf(\"%s=%llu\\n\", \"").append(k).append("\", (unsigned long long)(")
                .append(k).append("));\n"));
        c.append("  return 0;\n}\n");
        Path src = dir.resolve("abi.c");
        Files.writeString(src, c);
        Process cc = new ProcessBuilder("gcc", "-Wall", "-Werror", "-I" + Path.of("driver").toAbsolutePath(), src.toString(),
                "-o", dir.resolve("abi").toString()).redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes());
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "gcc failed on the header:\n" + ccOut);
        Process run = new ProcessBuilder(dir.resolve("abi").toString()).start();
        Map<String, Long> header = new TreeMap<>();
        for (String line : new String(run.getInputStream().readAllBytes()).split("\n")) {
            int eq = line.lastIndexOf('=');
            header.put(line.substring(0, eq), Long.parseUnsignedLong(line.substring(eq + 1)));
        }
        run.waitFor();
        return header;
    }
}
