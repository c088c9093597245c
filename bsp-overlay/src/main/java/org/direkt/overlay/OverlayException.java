// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay;

/**
 * A problem that stops the overlay, with the kind deciding the exit code: bad usage or input
 * files (2), a BSP that cannot take the bridge (3), an inconsistency between generated artifacts
 * (4), a failure to write (5).
 */
public final class OverlayException extends Exception {
    private static final long serialVersionUID = 1L;

    public enum Kind {
        INPUT(2), BSP(3), CONSISTENCY(4), WRITE(5);

        public final int exitCode;

        Kind(int exitCode) {
            this.exitCode = exitCode;
        }
    }

    private final Kind kind;

    public OverlayException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public OverlayException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
