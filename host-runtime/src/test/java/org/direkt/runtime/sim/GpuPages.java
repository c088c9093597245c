// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.direkt.contract.Layout;

/**
 * Test helper: a GPU BAR of equal pages at given bus addresses (a page table), with random initial
 * contents, and the kernel descriptors of a GPU<->FPGA transfer split where the bus addresses are
 * discontinuous and at {@link Layout#MAX_DWORDS} dwords (1 MB - 4 B).
 */
final class GpuPages {
    final long pageSize;
    final long[] bus; // page i of the GPU range sits at bus[i]
    final byte[][] data;

    GpuPages(long pageSize, long[] bus, long seed) {
        this.pageSize = pageSize;
        this.bus = bus.clone();
        Random rng = new Random(seed);
        this.data = new byte[bus.length][];
        for (int i = 0; i < bus.length; i++) {
            data[i] = new byte[(int) pageSize];
            rng.nextBytes(data[i]);
        }
    }

    long size() {
        return pageSize * bus.length;
    }

    long busOf(long offset) {
        return bus[(int) (offset / pageSize)] + offset % pageSize;
    }

    /** The initial bytes of GPU {@code [offset, offset + n)}. */
    byte[] read(long offset, int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            long o = offset + i;
            out[i] = data[(int) (o / pageSize)][(int) (o % pageSize)];
        }
        return out;
    }

    /** A piece of a transfer: {@code bytes} at PCIe {@code bus} and FPGA {@code fpga}. */
    record Piece(long bus, long fpga, int bytes) {
    }

    /** The legal pieces of GPU {@code [offset, offset + n)} <-> FPGA {@code fpga}. */
    List<Piece> split(long offset, long n, long fpga, int maxBytes) {
        if (n <= 0 || n % 4 != 0 || offset % 4 != 0 || offset + n > size()) {
            throw new IllegalArgumentException("transfer of " + n + " bytes at GPU offset " + offset);
        }
        maxBytes -= maxBytes % 4;
        // bus-contiguous segments first
        List<long[]> segs = new ArrayList<>();
        while (n > 0) {
            long take = Math.min(n, pageSize - offset % pageSize);
            long b = busOf(offset);
            long[] last = segs.isEmpty() ? null : segs.get(segs.size() - 1);
            if (last != null && last[0] + last[1] == b) {
                last[1] += take;
            } else {
                segs.add(new long[] {b, take});
            }
            offset += take;
            n -= take;
        }
        List<Piece> out = new ArrayList<>();
        for (long[] s : segs) {
            long b = s[0];
            long left = s[1];
            while (left > 0) {
                int take = (int) Math.min(left, maxBytes);
                out.add(new Piece(b, fpga, take));
                b += take;
                fpga += take;
                left -= take;
            }
        }
        return out;
    }

    static final int MAX_BYTES = Layout.MAX_DWORDS * 4;
}
