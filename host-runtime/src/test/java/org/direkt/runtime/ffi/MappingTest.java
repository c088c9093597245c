// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** {@code mmap(2)} and {@code munmap(2)} as the aperture (and the GPU tests' RAM) use them, with the errno named. */
class MappingTest {

    /** This process's mappings that start at {@code address}, as /proc/self/maps lists them. */
    private static long mappingsAt(long address) throws IOException {
        String start = Long.toHexString(address) + "-";
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.startsWith(start)).count();
    }

    @Test
    void thePageSizeIsThePlatformsPowerOfTwo() {
        long page = Libc.pageSize();
        assertTrue(page >= 4096 && Long.bitCount(page) == 1, "page size " + page);
    }

    @Test
    void anAnonymousMappingIsReadWriteUntilUnmapped() throws IOException {
        long page = Libc.pageSize();
        MemorySegment m = Libc.mmap(4 * page, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0);
        assertEquals(4 * page, m.byteSize());
        assertEquals(0, m.address() % page, "a mapping starts on a page");
        assertEquals(0, m.get(ValueLayout.JAVA_LONG, 3 * page), "anonymous pages are zeroed");
        m.set(ValueLayout.JAVA_LONG, 3 * page + 8, 0x0123_4567_89ab_cdefL);
        assertEquals(0x0123_4567_89ab_cdefL, m.get(ValueLayout.JAVA_LONG, 3 * page + 8));
        assertEquals(1, mappingsAt(m.address()));
        Libc.munmap(m);
        assertEquals(0, mappingsAt(m.address()), "unmapped");
    }

    @Test
    void aRefusedMappingNamesTheErrno() {
        Libc.ErrnoException e = assertThrows(Libc.ErrnoException.class, () -> ApertureDevice.map(-1, Libc.pageSize()));
        assertEquals(9, e.errno());
        assertTrue(e.getMessage().contains("failed: EBADF (9)"), e.getMessage());
        e = assertThrows(Libc.ErrnoException.class,
                () -> Libc.mmap(0, Libc.PROT_READ, Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0));
        assertEquals(CsrDevice.EINVAL, e.errno(), "a mapping of 0 bytes");
    }
}
