// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** A built OpenCL program ({@link ClContext#build}); closing it releases it. */
public final class ClProgram implements AutoCloseable {
    private final ClContext owner;
    private final MemorySegment handle;
    private boolean closed;

    ClProgram(ClContext owner, MemorySegment handle) {
        this.owner = owner;
        this.handle = handle;
    }

    /** The {@code cl_program}. */
    public MemorySegment handle() {
        return handle;
    }

    /** Creates the kernel {@code name}; an unknown name throws naming CL_INVALID_KERNEL_NAME. */
    public ClKernel kernel(String name) {
        return new ClKernel(owner.openCl(), owner.openCl().createKernel(handle, name), name);
    }

    /** The names of the program's kernels. */
    public List<String> kernelNames() {
        return owner.openCl().programKernelNames(handle);
    }

    /** The program's device binary, for caching (see {@link ClContext#buildFromBinary}). */
    public byte[] binary() {
        return owner.openCl().programBinary(handle);
    }

    /** The build log of the context's device (warnings of a successful build). */
    public String buildLog() {
        return owner.openCl().programBuildLog(handle, owner.device().id());
    }

    /** Releases the program (once). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            owner.openCl().releaseProgram(handle);
        }
    }
}
