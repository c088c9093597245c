// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.board;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.direkt.runtime.ffi.ClContext;
import org.direkt.runtime.ffi.ClProgram;
import org.direkt.runtime.ffi.OpenCl;
import org.direkt.runtime.ffi.OpenClException;

/**
 * The runtime's issuing kernels ({@code direkt_issue.cl}), or other kernels of a board's binary,
 * as a binary stands in for an {@code .aocx} on PoCL: built from source against an overlay's header
 * in the header's emulation mode, its {@code CL_PROGRAM_BINARIES} written to a file that a
 * {@link BoardDevice} then loads.
 */
public final class IssuingBinary {
    /** PoCL's platform name. */
    public static final String POCL = "Portable Computing Language";

    private IssuingBinary() {
    }

    /** Whether the ICD loader is installed and finds PoCL with a device (the tests that need it are skipped otherwise). */
    public static boolean poclPresent() {
        if (!OpenCl.isAvailable()) {
            return false;
        }
        try {
            ClContext.openRequired(POCL).close();
            return true;
        } catch (OpenClException e) {
            return false;
        }
    }

    /** Builds the issuing kernels against {@code overlay}'s {@code include/direkt_dma.h} and writes the binary to {@code out}. */
    public static Path build(Path overlay, Path out) throws IOException {
        try (InputStream in = IssuingBinary.class.getResourceAsStream("/org/direkt/runtime/opencl/direkt_issue.cl")) {
            return build(overlay, new String(in.readAllBytes(), StandardCharsets.UTF_8), out);
        }
    }

    /**
     * Builds {@code source}, kernels written against the overlay's header (the bring-up kernel, a
     * user's), as a {@link BridgeStandIn} takes them: in the header's emulation mode with its
     * {@link BridgeStandIn#SLOTS} descriptors per channel; writes the binary to {@code out}.
     */
    public static Path build(Path overlay, String source, Path out) throws IOException {
        String options = "-I " + overlay.resolve("include").toAbsolutePath() + " -DDIREKT_EMULATION -DDIREKT_EMU_SLOTS="
                + BridgeStandIn.SLOTS + "U";
        try (ClContext cl = ClContext.openRequired(POCL); ClProgram p = cl.build(source, options)) {
            Files.write(out, p.binary());
        }
        return out;
    }
}
