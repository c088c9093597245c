// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.direkt.runtime.device.BusRange;
import org.direkt.runtime.ffi.CudaException;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.Bytes;
import org.direkt.runtime.pcie.ImportRefusedException;
import org.direkt.runtime.pcie.ImportedRange;
import org.direkt.runtime.pin.PinRange;

/**
 * A GPU buffer on the direct path (peer-to-peer): exported as a dma-buf, which the bus-address
 * importer maps for the FPGA; its {@link #table()} holds the GPU's own pages as the importer mapped
 * them (SYNC_MEMOPS set), and the bridge's data movers reach them there.
 */
public final class DirectBuffer extends BufferMemory implements Session.GpuBuffer {
    private final int fd;
    private final ImportedRange range;
    private final AddressTable table;
    /** Its bus-contiguous runs, as mapped for the FPGA's data movers. */
    private List<BusRange> mapped = List.of();
    /** Its GPU range as the page table's pin cache knows it (regions addressing); else null. */
    PinRange pinKey;

    private DirectBuffer(SessionState session, GpuMemory.Allocation memory, long length, int fd, ImportedRange range) {
        super(session, memory, length, session.pathReason);
        this.fd = fd;
        this.range = range;
        this.table = range.addressTable(memory.address());
    }

    /**
     * {@code memory} exported and imported for the FPGA; when the driver will not export it, or the
     * exporter refuses to map it ({@link ImportRefusedException}), a bounced buffer with that reason.
     */
    static BufferMemory exportOrBounce(SessionState s, GpuMemory.Allocation memory, long length) {
        int fd;
        try {
            fd = memory.exportDmaBuf();
        } catch (CudaException e) {
            return BouncedBuffer.of(s, memory, length, "the CUDA driver refused to export this buffer as a dma-buf: "
                    + e.getMessage());
        }
        ImportedRange range;
        try {
            range = s.importer.importDmaBuf(fd, 0, length);
        } catch (ImportRefusedException e) {
            memory.closeExport(fd);
            return BouncedBuffer.of(s, memory, length, e.getMessage());
        } catch (RuntimeException e) {
            memory.closeExport(fd);
            throw e;
        }
        try {
            return new DirectBuffer(s, memory, length, fd, range);
        } catch (RuntimeException e) {
            s.importer.release(range);
            memory.closeExport(fd);
            throw e;
        }
    }

    @Override
    public DataPath path() {
        return DataPath.DIRECT;
    }

    /** The GPU's pages as the importer mapped them, by offset into the buffer. */
    @Override
    public AddressTable table() {
        return table;
    }

    @Override
    Session.GpuBuffer attach() {
        BusRange.Backing gpu = new BusRange.Backing() {
            @Override
            public void read(long offset, MemorySegment into) {
                memory.read(into, offset, into.byteSize());
            }

            @Override
            public void write(long offset, MemorySegment from) {
                memory.write(offset, from, from.byteSize());
            }
        };
        List<BusRange> runs = new ArrayList<>();
        for (int i = 0; i < table.segmentCount(); i++) {
            runs.add(new BusRange(table.segments().get(i).busAddress(), table.segments().get(i).length(), gpu,
                    table.segmentGpuOffset(i), "GPU buffer of " + Bytes.human(length) + (table.segmentCount() == 1 ? "" : ", run " + i)));
        }
        session.fpga.map(runs);
        mapped = List.copyOf(runs);
        if (session.regions != null) {
            session.regions.admit(this);
        }
        return this;
    }

    /**
     * Closes every region over the buffer and takes its pages out of the page table (regions
     * addressing), then unmaps it for the FPGA, releases its import and frees it.
     *
     * @throws IllegalStateException a region over it stayed busy: the buffer is closed, but its
     *     memory stays allocated and mapped, as a walker may still reach it
     */
    @Override
    void release() {
        if (pinKey != null) {
            session.regions.forget(this);
        }
        try {
            session.fpga.unmap(mapped);
            session.importer.release(range);
        } finally {
            memory.closeExport(fd);
            memory.free();
        }
    }
}
