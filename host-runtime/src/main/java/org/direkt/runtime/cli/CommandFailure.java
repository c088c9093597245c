// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.cli;

/**
 * A command that cannot go on, with the exit code that says why and a message naming what and
 * where: {@link DirektRun#run} prints the message as one line and exits with the code.
 */
final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final DirektRun.ExitCode code;

    CommandFailure(DirektRun.ExitCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    DirektRun.ExitCode code() {
        return code;
    }
}
