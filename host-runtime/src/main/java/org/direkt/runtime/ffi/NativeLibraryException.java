// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.io.Serial;

/**
 * A native library (or a symbol it must export) could not be loaded. The message names the
 * library, what was tried and what to install.
 */
public final class NativeLibraryException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Creates the exception with a complete, human-readable message. */
    public NativeLibraryException(String message) {
        super(message);
    }

    /** Creates the exception with a complete, human-readable message and its cause. */
    public NativeLibraryException(String message, Throwable cause) {
        super(message, cause);
    }
}
