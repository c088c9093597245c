// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.direkt.runtime.ffi.Cuda;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.ffi.NativeLibraryException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The copy engine's rate to pinned host memory, 4 KiB .. 64 MiB both ways on streams
 * ({@link ApertureBench}): printed, and written as {@code aperture-gpu-<device>.json} into
 * {@code $OUT} (the GPU bundle's results) or, without it, {@code target/}. Tagged "gpu"; skipped
 * where there is no GPU.
 */
@Tag("gpu")
class ApertureRateGpuTest {

    private static boolean gpu() {
        try {
            Cuda cuda = Cuda.load();
            cuda.init();
            return cuda.deviceCount() > 0;
        } catch (NativeLibraryException | CudaException e) {
            return false;
        }
    }

    @Test
    void theCopyEnginesRateToPinnedMemoryIsMeasuredAndWritten() throws IOException {
        assumeTrue(gpu(), "no NVIDIA GPU here");
        String env = System.getenv("OUT");
        Path out = env == null || env.isBlank() ? Path.of("target") : Path.of(env);
        Path file = ApertureBench.run(out, null);
        System.out.println("wrote " + file);
        JsonNode doc = new ObjectMapper().readTree(file.toFile());
        assertEquals(ApertureBench.fileName(doc.path("device").asText()), file.getFileName().toString());
        JsonNode sizes = doc.path("sizes");
        assertEquals(8, sizes.size(), "4 KiB, 16 KiB, ..., 64 MiB");
        assertEquals(4096, sizes.get(0).path("bytes").asLong());
        assertEquals(64L << 20, sizes.get(7).path("bytes").asLong());
        for (JsonNode row : sizes) {
            for (String way : new String[] {"d2h", "h2d"}) {
                assertTrue(row.path(way).path("median_us").asDouble() > 0 && row.path(way).path("gb_per_s").asDouble() > 0,
                        row.toString());
            }
        }
        assertTrue(sizes.get(7).path("d2h").path("gb_per_s").asDouble() > sizes.get(0).path("d2h").path("gb_per_s").asDouble(),
                "large copies move more bytes a second than small ones");
        assertTrue(Files.size(file) > 0);
    }
}
