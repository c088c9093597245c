// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.MemorySegment;

/**
 * A retained primary context of one device ({@link Cuda#retainPrimaryContext(int)}); closing it
 * releases the retain. The handle is shared by every retain of the same device in the process.
 *
 * @param cuda the driver
 * @param device the CUdevice
 * @param handle the CUcontext
 */
public record PrimaryContext(Cuda cuda, int device, MemorySegment handle) implements AutoCloseable {
    /** Makes this context current on the calling thread ({@code cuCtxSetCurrent}). */
    public void makeCurrent() {
        cuda.setCurrentContext(handle);
    }

    /** Releases the retain ({@code cuDevicePrimaryCtxRelease}). */
    @Override
    public void close() {
        cuda.primaryContextRelease(device);
    }
}
