// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

import org.direkt.contract.Layout;
import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.Descriptors;
import org.direkt.runtime.DmaException;
import org.direkt.runtime.device.BusRange;
import org.direkt.runtime.device.FpgaDevice;
import org.direkt.runtime.device.KernelCall;
import org.direkt.runtime.pcie.AddressTable;
import org.direkt.runtime.pcie.Bytes;

/**
 * The simulated FPGA as an {@link FpgaDevice}: one {@link SimulatedDevice} (the overlay's bridge,
 * its data movers, FPGA memory and the BSP's host descriptor controller in one simulator process)
 * for as long as it is open. The PCIe memory it is given stays on the host: its data movers read
 * and write it through the ranges {@link #map} and {@link #mapPinned} took, while a run lasts.
 * Pinned host memory is mapped at bus addresses of its own, from {@link #HOST_BUS_BASE} on, as the
 * FPGA's driver maps host memory. Its kernel is the runtime's issuing kernel, simulated: a
 * {@link KernelCall.Issue} or {@link KernelCall.IssueRegion} becomes the descriptor the header's
 * builders make ({@link Descriptors}, bit-exact with the header as {@code OpenClIssuerTest}
 * checks), written to the bridge's channel one at a time.
 */
public final class SimulatedFpga implements FpgaDevice {
    /** Where pinned host memory is mapped on the bus: a range of its own, which a kernel descriptor never reaches. */
    public static final long HOST_BUS_BASE = 0x20_0000_0000L;
    private static final long PAGE = AddressTable.PAGE_SIZE;

    private final SimulatedDevice device;
    /** What is mapped for the data movers, by bus address. */
    private final TreeMap<Long, BusRange> mapped = new TreeMap<>();
    /** Pinned host memory mapped, by its host address. */
    private final TreeMap<Long, BusRange> pinned = new TreeMap<>();
    private final HostMemory memory = new HostMemory();
    private long nextHostBus = HOST_BUS_BASE;

    private SimulatedFpga(SimulatedDevice device) {
        this.device = device;
    }

    /**
     * Starts the simulated FPGA of {@code manifest}'s bridge on {@code bench}: the default preset
     * and what the bridge changes in it, so overlays of one configuration share one build.
     *
     * @throws SimulationException the simulation could not be built or started (the message says why)
     */
    public static SimulatedFpga start(SimulatedBridge bench, OverlayManifest manifest) {
        return new SimulatedFpga(bench.device(OverlayManifest.GENERATOR_PRESET, manifest.generatorParams()));
    }

    /** {@link #start(SimulatedBridge, OverlayManifest)} on the bench of the repository this runtime runs from. */
    public static SimulatedFpga start(OverlayManifest manifest) {
        return start(SimulatedBridge.locate(), manifest);
    }

    /** The simulation itself (its simulator, process, log, and runs of raw descriptors). */
    public SimulatedDevice simulation() {
        return device;
    }

    @Override
    public String describe() {
        return "simulated FPGA (" + device.simulator() + ")";
    }

    @Override
    public boolean usable() {
        return device.usable();
    }

    @Override
    public long csrRead(String name) {
        return device.csrRead(name);
    }

    @Override
    public void csrWrite(String name, long value) {
        device.csrWrite(name, value);
    }

    @Override
    public void map(List<BusRange> ranges) {
        List<SimulatedDevice.Range> r = new ArrayList<>();
        for (BusRange b : ranges) {
            r.add(new SimulatedDevice.Range(b.bus(), b.size(), b.name()));
        }
        device.map(r);
        ranges.forEach(b -> mapped.put(b.bus(), b));
    }

    @Override
    public void unmap(List<BusRange> ranges) {
        List<Long> buses = ranges.stream().map(BusRange::bus).toList();
        buses.forEach(mapped::remove);
        if (device.usable()) {
            try {
                device.unmap(buses);
            } catch (SimulationException e) {
                if (device.usable()) {
                    throw e;
                }
                // found gone just now: the next call that needs it says so
            }
        }
    }

    @Override
    public OptionalLong mapPinned(MemorySegment segment, String what) {
        long size = Math.ceilDiv(segment.byteSize(), PAGE) * PAGE;
        long bus = nextHostBus;
        nextHostBus += size + PAGE;  // a gap: two pinned buffers never touch on the bus
        BusRange r = new BusRange(bus, segment.byteSize(), BusRange.Backing.of(segment), 0, what);
        map(List.of(r));
        pinned.put(segment.address(), r);
        return OptionalLong.of(bus);
    }

    @Override
    public void unmapPinned(MemorySegment segment) {
        BusRange r = pinned.remove(segment.address());
        if (r != null) {
            unmap(List.of(r));
        }
    }

    @Override
    public long toFpga(MemorySegment from, long fpgaAddress) {
        return hostDma(true, from, fpgaAddress);
    }

    @Override
    public long fromFpga(long fpgaAddress, MemorySegment into) {
        return hostDma(false, into, fpgaAddress);
    }

    /** Host descriptors between the pinned range that holds {@code host} and FPGA memory, split at the movers' 1 MB - 4 B. */
    private long hostDma(boolean toFpga, MemorySegment host, long fpgaAddress) {
        long bus = busOf(host);
        List<ReplayJob.HostDescriptor> descs = new ArrayList<>();
        for (long at = 0; at < host.byteSize(); at += AddressTable.MAX_TRANSFER_BYTES) {
            int n = (int) Math.min(AddressTable.MAX_TRANSFER_BYTES, host.byteSize() - at);
            descs.add(toFpga ? new ReplayJob.HostDescriptor(Direction.RD, bus + at, fpgaAddress + at, n)
                    : new ReplayJob.HostDescriptor(Direction.WR, fpgaAddress + at, bus + at, n));
        }
        SimulatedDevice.Run run = device.run(List.of(), descs, memory);
        for (ReplayResult.HostStatus s : run.hostStatuses()) {
            if (!s.completed()) {
                throw new DmaException(Layout.Error.ABORTED, s.id(), (toFpga ? "host -> FPGA" : "FPGA -> host") + " of "
                        + host.byteSize() + " bytes at FPGA address " + Bytes.hex(fpgaAddress) + ", host descriptor " + s.index()
                        + " (host ID " + s.id() + ", mover status 0x" + Long.toHexString(s.raw()) + ")");
            }
        }
        return run.dmaCycles();
    }

    private long busOf(MemorySegment host) {
        Map.Entry<Long, BusRange> e = pinned.floorEntry(host.address());
        if (e == null || host.address() - e.getKey() + host.byteSize() > e.getValue().size()) {
            throw new IllegalArgumentException(Bytes.human(host.byteSize()) + " of host memory at 0x"
                    + Long.toHexString(host.address()) + " lie in no pinned range mapped for the FPGA (mapPinned)");
        }
        return e.getValue().bus() + host.address() - e.getKey();
    }

    @Override
    public Launched launch(List<KernelCall> calls) {
        List<ReplayJob.Descriptor> descs = new ArrayList<>();
        long longest = 0;
        for (KernelCall c : calls) {
            switch (c) {
                case KernelCall.Issue i -> descs.add(ReplayJob.Descriptor.of(i.toFpga() ? Direction.RD : Direction.WR, i.toFpga()
                        ? Descriptors.cldesc(i.gpuBus(), i.fpgaAddress(), i.bytes(), i.tag())
                        : Descriptors.cldesc(i.fpgaAddress(), i.gpuBus(), i.bytes(), i.tag())));
                case KernelCall.IssueRegion r -> {
                    descs.add(ReplayJob.Descriptor.of(r.toFpga() ? Direction.RD : Direction.WR, Descriptors.cldescRegion(r.region(),
                            r.offset(), r.bytes(), r.fpgaAddress(), r.tag())));
                    longest = Math.max(longest, r.bytes());
                }
                case KernelCall.Named n -> throw new UnsupportedOperationException("the simulated FPGA runs the runtime's issuing"
                        + " kernels (" + KernelCall.Issue.KERNEL + ", " + KernelCall.IssueRegion.KERNEL + "), not " + n.kernel()
                        + ": run it on a board, or on PoCL in the header's emulation mode");
            }
        }
        // One region request may move up to 4 GB: its status may take longer than a descriptor's.
        long limit = Math.max(SimulatedDevice.STATUS_LIMIT_KERNEL_CYCLES, 2 * device.kernelCyclesToMove(longest));
        SimulatedDevice.Run run = device.run(descs, List.of(), memory, limit);
        List<long[]> statuses = new ArrayList<>();
        for (ReplayResult.Status s : run.statuses()) {
            statuses.add(new long[] {s.raw()});
        }
        return new Launched(statuses, run.dmaCycles());
    }

    @Override
    public void close() {
        device.close();
    }

    /** PCIe memory as the device's data movers reach it: whatever is mapped. */
    private final class HostMemory implements SimulatedDevice.HostMemory {
        @Override
        public void read(long bus, byte[] into) {
            access(bus, MemorySegment.ofArray(into), false);
        }

        @Override
        public void write(long bus, byte[] data) {
            access(bus, MemorySegment.ofArray(data), true);
        }

        private void access(long bus, MemorySegment buf, boolean write) {
            long pos = 0;
            while (pos < buf.byteSize()) {
                Map.Entry<Long, BusRange> e = mapped.floorEntry(bus + pos);
                BusRange m = e == null ? null : e.getValue();
                if (m == null || !m.holds(bus + pos, 1)) {
                    throw new IllegalStateException("the FPGA's data movers reached bus address " + Bytes.hex(bus + pos)
                            + ", which is not mapped for them");
                }
                long off = bus + pos - m.bus();
                MemorySegment part = buf.asSlice(pos, Math.min(buf.byteSize() - pos, m.size() - off));
                if (write) {
                    m.backing().write(m.offset() + off, part);
                } else {
                    m.backing().read(m.offset() + off, part);
                }
                pos += part.byteSize();
            }
        }
    }

    @Override
    public String toString() {
        return "SimulatedFpga[" + device + "]";
    }
}
