// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chan_id a kernel names in {@code io("...")}: C escapes resolved, one io attribute per channel. */
class IoAttributeTest {

    private static String ioId(String literal) {
        return KernelChannels.parse("channel ulong c __attribute__((depth(0))) __attribute__((io(" + literal + ")));\n", "k.cl")
                .declaration("c").ioId();
    }

    @Test
    void escapesInTheChanIdAreResolved() {
        assertEquals("plain", ioId("\"plain\""));
        assertEquals("a\tb\nc\0d", ioId("\"a\\tb\\nc\\0d\""));
        assertEquals("q\"x\\y", ioId("\"q\\\"x\\\\y\""));
        assertEquals("", ioId("\"\""));
    }

    @Test
    void aChannelHasOneIoAttribute() {
        KernelSyntaxException e = assertThrows(KernelSyntaxException.class, () -> KernelChannels.parse(
                "channel ulong c __attribute__((io(\"a\"))) __attribute__((io(\"b\")));\n", "k.cl"));
        assertEquals("k.cl:1:57: second io attribute (the first is at 1:32)", e.getMessage());
    }

    @Test
    void aFileIsReadWithItsPathAsTheSourceName(@TempDir Path dir) throws IOException {
        Path f = Files.writeString(dir.resolve("k.cl"), "channel uint x __attribute__((io(\"rx\")));\n__kernel void k() { uint v = read_channel_intel(x); }\n");
        KernelChannels k = KernelChannels.parseFile(f);
        assertEquals(f.toString(), k.sourceName());
        assertEquals("rx", k.declaration("x").ioId());
        assertEquals(1, k.usesOf("x").size());
    }
}
