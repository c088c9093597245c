// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;

class LibcTest {
    /** Runs on a thread of its own, so the pin never reaches the test runner's thread. */
    private static <T> T onFreshThread(java.util.concurrent.Callable<T> body) throws Exception {
        try (var pool = Executors.newSingleThreadExecutor()) {
            return pool.submit(body).get();
        }
    }

    /** What the kernel says the calling thread may run on, e.g. "3" or "0-1". */
    private static String allowedCpus() throws java.io.IOException {
        return java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/thread-self/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:")).map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst().orElseThrow();
    }

    @Test
    void pinnedThreadRunsOnItsCpuAndThreadsItStartsStayThere() throws Exception {
        String[] seen = onFreshThread(() -> {
            int cpu = Libc.currentCpu();
            String before = allowedCpus();
            Libc.pinCurrentThread(cpu);
            String child = CompletableFuture.supplyAsync(() -> {
                try {
                    return allowedCpus() + "@" + Libc.currentCpu();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, r -> new Thread(r).start()).get();
            return new String[] {Integer.toString(cpu), before, allowedCpus(), Integer.toString(Libc.currentCpu()), child};
        });
        String cpu = seen[0];
        assertEquals(cpu, seen[2], "the kernel's CPU list for the pinned thread (it was " + seen[1] + " before)");
        assertEquals(cpu, seen[3], "the pinned thread runs on its CPU");
        assertEquals(cpu + "@" + cpu, seen[4], "a thread started by the pinned thread inherits its CPU");
        assertEquals(seen[1], allowedCpus(), "the pin stays with the thread that asked for it");
    }

    @Test
    void cpuTheKernelCannotGiveIsRefusedWithItsErrno() {
        int cpus = Runtime.getRuntime().availableProcessors();
        assertTrue(cpus < 1024, "this test needs a machine with fewer than 1024 CPUs");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> onFreshThreadUnchecked(() -> Libc.pinCurrentThread(1023)));
        assertTrue(e.getMessage().contains("sched_setaffinity(CPU 1023) failed: errno 22 (EINVAL"), e.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> Libc.pinCurrentThread(-1));
        assertEquals("CPU -1 is outside 0..1023", range.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Libc.pinCurrentThread(1024));
    }

    @Test
    void closingADescriptorThatIsNotOpenNamesEbadf() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Libc.close(-1));
        assertEquals("close(-1) failed: errno 9 (EBADF: not an open file descriptor)", e.getMessage());
    }

    private static void onFreshThreadUnchecked(Runnable body) {
        try {
            onFreshThread(() -> {
                body.run();
                return null;
            });
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
