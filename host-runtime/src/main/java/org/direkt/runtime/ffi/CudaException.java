// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.io.Serial;

/**
 * A CUDA driver API call returned something other than {@code CUDA_SUCCESS}. The message reads
 * {@code "<call>(<args>) failed: <code> <CUresult name> (<description>)"}, for example
 * {@code "cuMemAlloc_v2(1099511627776 bytes) failed: 2 CUDA_ERROR_OUT_OF_MEMORY (out of memory)"}.
 */
public final class CudaException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int code;
    private final String errorName;

    /**
     * @param call the call with its arguments, as it appears in the message
     * @param code the numeric CUresult
     * @param errorName the CUresult's name (cuGetErrorName)
     * @param description its meaning (cuGetErrorString)
     */
    public CudaException(String call, int code, String errorName, String description) {
        super(call + " failed: " + code + " " + errorName + " (" + description + ")");
        this.call = call;
        this.code = code;
        this.errorName = errorName;
    }

    /** The call with its arguments, e.g. {@code "cuMemFree_v2(0x7f0000000000)"}. */
    public String call() {
        return call;
    }

    /** The numeric CUresult. */
    public int code() {
        return code;
    }

    /** The CUresult's symbolic name, e.g. {@code "CUDA_ERROR_INVALID_VALUE"}. */
    public String errorName() {
        return errorName;
    }
}
