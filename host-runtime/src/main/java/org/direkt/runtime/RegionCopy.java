// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.direkt.runtime.device.KernelCall;

/**
 * A copy through a region (regions addressing): one region request of up to 4 GB - 4 B, which the
 * bridge checks against its region table (inside the region, the direction allowed: else
 * {@code REGION_RANGE} or {@code REGION}, and nothing moves) and splits at the region's pages.
 */
public final class RegionCopy extends PlannedCopy implements Session.Copy {
    private final BufferRegion region;
    private final KernelIssue issue;

    private RegionCopy(SessionState s, boolean toFpga, BufferRegion r, long rOff, long fpga, long bytes, KernelIssue issue) {
        super(s, toFpga, r.buffer(), rOff, bytes, fpga);
        this.region = r;
        this.issue = issue;
    }

    /**
     * A request for {@code bytes} between byte {@code rOff} of {@code r} and byte {@code fOff} of {@code f}.
     *
     * @throws IllegalStateException    the region is closed
     * @throws IllegalArgumentException the FPGA range is outside {@code f}, or an offset or the length breaks the request's rules
     */
    static RegionCopy plan(SessionState s, boolean toFpga, Session.Region r, long rOff, Session.FpgaBuffer f, long fOff, long bytes) {
        Objects.requireNonNull(r, "region");
        Objects.requireNonNull(f, "FPGA buffer");
        BufferRegion region = (BufferRegion) r;
        if (region.buffer().session != s) {
            throw new IllegalArgumentException(r + " belongs to another session");
        }
        if (!r.isOpen()) {
            throw new IllegalStateException("cannot copy through region " + r.number() + ": it is closed (" + r + ")");
        }
        f.checkRange(fOff, bytes);
        Descriptors.checkRegionRequest(rOff, bytes, f.address() + fOff);
        KernelCall call = new KernelCall.IssueRegion(toFpga, r.number(), rOff, f.address() + fOff, bytes, s.nextTag());
        return new RegionCopy(s, toFpga, region, rOff, f.address() + fOff, bytes, new KernelIssue(List.of(call), Map.of()));
    }

    @Override
    public DataPath path() {
        return DataPath.DIRECT;
    }

    /** One: the region request (the bridge splits it). */
    @Override
    public int descriptorCount() {
        return issue.count();
    }

    @Override
    public void await() {
        checkRunnable();
        // A closed region's number may belong to another buffer's region by now.
        if (!region.isOpen()) {
            throw new IllegalStateException("region " + region.number() + " of this copy was closed before it ran");
        }
        ran(issue.run(session.fpga, what()));
    }

    @Override
    String what() {
        return super.what() + " through region " + region.number() + " at offset " + gpuOffset;
    }
}
