// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import org.direkt.contract.Layout;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.pcie.Transfer;

/**
 * What a copy has the issuing kernel write to the bridge, one launch per descriptor or region
 * request, and what their statuses (tagged status mode) say: the first with an error code becomes a
 * {@link DmaException} naming the copy and, for a copy by bus addresses, the piece it moved.
 */
final class KernelIssue {
    private static final Layout.Field TAG = Layout.KERNEL_STATUS_TAGGED.field("tag");
    private static final Layout.Field ERROR = Layout.KERNEL_STATUS_TAGGED.field("error");

    private final List<KernelCall> calls;
    /** The piece each tag moves (a copy by bus addresses); empty through a region. */
    private final Map<Long, Transfer> byTag;

    KernelIssue(List<KernelCall> calls, Map<Long, Transfer> byTag) {
        this.calls = List.copyOf(calls);
        this.byTag = Map.copyOf(byTag);
    }

    int count() {
        return calls.size();
    }

    /** Launches the calls on {@code fpga} and checks every status; returns the dma_clk cycles the device counted, or -1. */
    long run(FpgaDevice fpga, String what) {
        FpgaDevice.Launched launched = fpga.launch(calls);
        for (long[] status : launched.statuses()) {
            BigInteger raw = new BigInteger(Long.toUnsignedString(status[0]));
            int code = (int) ERROR.getLong(raw);
            if (code != Layout.Error.OK.code()) {
                long tag = TAG.getLong(raw);
                Layout.Error[] errors = Layout.Error.values();
                if (code >= errors.length) {
                    throw new IllegalStateException(what + ": descriptor tag " + tag + " came back with error code " + code
                            + ", which this runtime's Layout does not know (status 0x" + raw.toString(16) + ")");
                }
                Transfer piece = byTag.get(tag);
                throw new DmaException(errors[code], tag, what + (piece == null ? "" : ", piece at GPU offset " + piece.gpuOffset()));
            }
        }
        return launched.dmaCycles();
    }
}
