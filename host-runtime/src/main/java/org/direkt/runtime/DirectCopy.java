// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.pcie.Transfer;

/**
 * A copy by a direct buffer's bus addresses (raw addressing): mover-legal pieces (at most 1 MB - 4 B,
 * never across a page discontinuity), each one descriptor the issuing kernel writes and waits for,
 * tagged so a failed status names its piece. The bridge lets through only pieces inside an open
 * window that allows their direction.
 */
public final class DirectCopy extends PlannedCopy implements Session.Copy {
    private final KernelIssue issue;

    private DirectCopy(SessionState s, boolean toFpga, DirectBuffer g, long gOff, long fpga, int bytes, KernelIssue issue) {
        super(s, toFpga, g, gOff, bytes, fpga);
        this.issue = issue;
    }

    static DirectCopy plan(SessionState s, boolean toFpga, DirectBuffer g, long gOff, long fpga, int bytes) {
        if (s.regions != null) {
            throw new IllegalStateException("cannot copy " + g + " by its bus addresses: the bridge of " + s.overlay() + " has"
                    + " regions addressing (addressing=regions) and rejects raw descriptors (KIND); open a region over"
                    + " the buffer (openRegion) and copy through it");
        }
        List<KernelCall> calls = new ArrayList<>();
        Map<Long, Transfer> byTag = new LinkedHashMap<>();
        for (Transfer t : g.table().split(gOff, bytes)) {
            long tag = s.nextTag();
            byTag.put(tag, t);
            calls.add(new KernelCall.Issue(toFpga, t.busAddress(), fpga + (t.gpuOffset() - gOff), t.bytes(), tag));
        }
        return new DirectCopy(s, toFpga, g, gOff, fpga, bytes, new KernelIssue(calls, byTag));
    }

    @Override
    public DataPath path() {
        return DataPath.DIRECT;
    }

    @Override
    public int descriptorCount() {
        return issue.count();
    }

    @Override
    public void await() {
        checkRunnable();
        ran(issue.run(session.fpga, what()));
    }
}
