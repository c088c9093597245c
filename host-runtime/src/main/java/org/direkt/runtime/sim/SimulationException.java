// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

/**
 * A replay could not be run or did not finish: the Python environment or the simulator is missing,
 * the bench failed (the message carries the tail of its output), it timed out, or its result is
 * inconsistent with this runtime's {@link org.direkt.contract.Layout}.
 */
public class SimulationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SimulationException(String message) {
        super(message);
    }

    public SimulationException(String message, Throwable cause) {
        super(message, cause);
    }
}
