// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.direkt.runtime.ffi.ImporterDevice;
import org.direkt.runtime.ffi.ImporterDevice.ImporterException;

/**
 * The {@link BusAddressImporter} of a Linux machine: the importer kernel module
 * ({@code host-runtime/driver}, {@code /dev/direkt_importer}) maps a dma-buf range for the FPGA at
 * a PCI address and returns its bus-address segments, which become one bus address per 64 KB page.
 * The module's errno values become the runtime's exceptions, each naming the fd, the range, the
 * FPGA and what to do ({@code docs/importer-contract.md} lists them).
 *
 * <p>Revocations (the exporter moved or freed the memory) are polled from the module every
 * {@link #POLL_MS} ms while listeners are registered, and by {@link #pollRevocations()}. Closing the
 * importer closes the device file, which releases every import still open.
 *
 * <p>{@link #system()} finds the module and the FPGA, or says what is missing.
 */
public final class LinuxBusAddressImporter implements BusAddressImporter, AutoCloseable {
    private static final long PAGE = AddressTable.PAGE_SIZE;
    /** How often revocations are polled while a listener is registered. */
    public static final long POLL_MS = 20;

    private final ImporterDevice device;
    private final PciAddress fpga;
    private final Map<Integer, ImportedRange> live = new ConcurrentHashMap<>();
    private final List<RevocationListener> listeners = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService poller;

    public LinuxBusAddressImporter(ImporterDevice device, PciAddress fpga) {
        this.device = device;
        this.fpga = fpga;
    }

    /**
     * The importer of this machine: {@code /dev/direkt_importer} (or {@code $DIREKT_IMPORTER}) for
     * the FPGA at {@code $DIREKT_FPGA}, else the one Intel FPGA on the PCI bus. When something is
     * missing, an importer that cannot import and names what is missing
     * ({@link BusAddressImporter#unavailableReason()}).
     *
     * @throws IllegalArgumentException if {@code DIREKT_FPGA} is set but is not a PCI address
     */
    public static BusAddressImporter system() {
        return system(null, null);
    }

    /**
     * {@link #system()} with the device node and the FPGA's address given where they are not null
     * (a command line's options); each one left null comes from the environment as there.
     */
    public static BusAddressImporter system(String deviceSetting, String fpgaSetting) {
        String dev = deviceSetting != null ? deviceSetting : System.getenv("DIREKT_IMPORTER");
        return locate(dev == null || dev.isBlank() ? ImporterDevice.DEFAULT_PATH : Path.of(dev),
                Path.of("/sys/bus/pci/devices"), fpgaSetting != null ? fpgaSetting : System.getenv("DIREKT_FPGA"));
    }

    /** {@link #system()} with the device node, the sysfs PCI folder and the FPGA setting given. */
    public static BusAddressImporter locate(Path node, Path sysfsDevices, String fpgaSetting) {
        PciAddress fpga = null;
        if (fpgaSetting != null && !fpgaSetting.isBlank()) {
            try {
                fpga = PciAddress.parse(fpgaSetting);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("the FPGA's address (--fpga or DIREKT_FPGA): " + e.getMessage(), e);
            }
        }
        if (!System.getProperty("os.name", "").equals("Linux")) {
            return BusAddressImporter.none("no bus-address importer on " + System.getProperty("os.name")
                    + ": the importer is a Linux kernel module (host-runtime/driver)");
        }
        if (!Files.exists(node)) {
            return BusAddressImporter.none("no " + node + ": the importer kernel module is not loaded (build it with"
                    + " `make -C host-runtime/driver`, load it with `sudo insmod host-runtime/driver/direkt_importer.ko`;"
                    + " README, host-runtime/driver)");
        }
        if (fpga == null) {
            List<PciAddress> fpgas = PciAddress.withVendor(sysfsDevices, PciAddress.INTEL_FPGA_VENDOR);
            if (fpgas.isEmpty()) {
                return BusAddressImporter.none("no Intel FPGA (PCI vendor 0x1172) under " + sysfsDevices
                        + ": name the FPGA with DIREKT_FPGA=domain:bus:device.function (lspci -D)");
            }
            if (fpgas.size() > 1) {
                return BusAddressImporter.none(fpgas.size() + " Intel FPGAs " + fpgas
                        + ": choose one with DIREKT_FPGA=domain:bus:device.function");
            }
            fpga = fpgas.getFirst();
        }
        ImporterDevice dev;
        try {
            dev = ImporterDevice.open(node);
        } catch (ImporterException e) {
            String why = e.errno() == 13 || e.errno() == 1
                    ? " is not open to this user (" + ImporterDevice.errnoName(e.errno()) + "): the node is root-only"
                            + " (mode 0600); run as root or grant access with a udev rule"
                    : ": " + e.getMessage();
            return BusAddressImporter.none(node + why);
        }
        try {
            ImporterDevice.Stats s = dev.stats();
            if (s.abi() != ImporterDevice.ABI) {
                dev.close();
                return BusAddressImporter.none(node + " speaks importer ABI " + s.abi() + ", this runtime speaks "
                        + ImporterDevice.ABI + ": build and load the module from this release");
            }
        } catch (ImporterException e) {
            dev.close();
            return BusAddressImporter.none(node + " is not the direkt importer (" + e.getMessage() + ")");
        }
        return new LinuxBusAddressImporter(dev, fpga);
    }

    public PciAddress fpga() {
        return fpga;
    }

    /** The module's counts (all importers on the machine). */
    public ImporterDevice.Stats stats() {
        return device.stats();
    }

    @Override
    public ImportedRange importDmaBuf(int fd, long offset, long length) {
        ImportedRange.checkDmaBufRange(fd, offset, length);
        String what = "dma-buf fd " + fd + " [" + Bytes.hex(offset) + ", +" + Bytes.size(length) + ")";
        ImporterDevice.Import imp;
        try {
            imp = device.importRange(fd, offset, length, (int) fpga.domain(), fpga.bus(), fpga.device(),
                    fpga.function(), (int) Math.min(length / PAGE, 4096));
        } catch (ImporterException e) {
            throw failure(e, what, length);
        }
        long[] pages;
        try {
            pages = pages(imp.busAddresses(), imp.lengths(), length);
        } catch (IllegalStateException e) {
            device.release(imp.handle());
            throw new IllegalStateException(what + ": " + e.getMessage(), e);
        }
        ImportedRange r = new ImportedRange(Integer.toUnsignedLong(imp.handle()), fd, offset, length, pages);
        live.put(imp.handle(), r);
        return r;
    }

    /**
     * One bus address per 64 KB page of a range of {@code length} bytes from its segments (bus
     * address, length) in buffer order.
     *
     * @throws IllegalStateException if a segment is not whole 64 KB pages or the segments do not
     *     cover the range exactly
     */
    static long[] pages(long[] bus, long[] len, long length) {
        long[] pages = new long[(int) (length / PAGE)];
        int p = 0;
        long covered = 0;
        for (int i = 0; i < bus.length; i++) {
            if (len[i] <= 0 || len[i] % PAGE != 0) {
                throw new IllegalStateException("the exporter mapped segment " + i + " (" + Bytes.size(len[i]) + " at bus "
                        + Bytes.hex(bus[i]) + ") in a piece that is not whole 64 KB pages; the FPGA's address table"
                        + " needs 64 KB pages (GPU memory is exported in them)");
            }
            covered += len[i];
            if (covered > length) {
                break;
            }
            for (long at = 0; at < len[i]; at += PAGE) {
                pages[p++] = bus[i] + at;
            }
        }
        if (covered != length) {
            throw new IllegalStateException("the importer's " + bus.length + " segments cover " + Bytes.size(covered)
                    + ", the range has " + Bytes.size(length));
        }
        return pages;
    }

    private RuntimeException failure(ImporterException e, String what, long length) {
        String errno = ImporterDevice.errnoName(e.errno());
        return switch (e.errno()) {
            case 9 -> new IllegalArgumentException(what + ": not an open file descriptor (" + errno + ")", e);
            case 22 -> new IllegalArgumentException(what + ": not a dma-buf, or a malformed request (" + errno + ")", e);
            case 34 -> new IllegalArgumentException(what + ": the range lies outside the dma-buf (" + errno + ")", e);
            case 19 -> new IllegalStateException(what + ": no PCI device at " + fpga + " (" + errno
                    + "); check the FPGA's address with lspci -D", e);
            case 95 -> new ImportRefusedException(what + ": the exporter refuses to map it for the FPGA at " + fpga + " ("
                    + errno + "): no peer-to-peer path between the GPU and the FPGA (peer-to-peer disabled in the GPU"
                    + " driver, or the two under different root complexes)");
            case 28 -> new ApertureExhaustedException(what + ": the exporter's aperture (GPU BAR1) is full (" + errno
                    + "); release mappings first", length);
            case 6 -> new IllegalStateException(what + ": the exporter returned bus addresses that the FPGA's IOMMU"
                    + " domain does not translate (" + errno + "); the exporter must map the memory for the FPGA", e);
            // NVIDIA's exporter reports every failed mapping (no peer-to-peer, a topology it does not support,
            // BAR1 full) as a NULL table, which the kernel turns into ENOMEM: treated as a refusal, so the
            // runtime falls back to host memory rather than stopping.
            case 12 -> new ImportRefusedException(what + ": the exporter could not map it for the FPGA at " + fpga + " ("
                    + errno + "; NVIDIA's exporter reports any failed mapping this way: no peer-to-peer support,"
                    + " a topology it does not support, or BAR1 full)");
            default -> new IllegalStateException(what + ": " + e.getMessage(), e);
        };
    }

    @Override
    public void release(ImportedRange range) {
        int handle = (int) range.handle();
        if (live.get(handle) != range) {
            throw new IllegalArgumentException(range + " is not a live import of this importer (released already,"
                    + " or imported elsewhere)");
        }
        try {
            device.release(handle);
        } catch (ImporterException e) {
            throw new IllegalArgumentException(range + ": the module does not know it (" + e.getMessage() + ")", e);
        } finally {
            live.remove(handle, range);
        }
    }

    /**
     * Asks the module for revocations now and tells the listeners; returns the revoked ranges.
     * Handles of imports released meanwhile are skipped.
     */
    public List<ImportedRange> pollRevocations() {
        List<ImportedRange> out = new ArrayList<>();
        ImporterDevice.Revocations r;
        do {
            r = device.revocations(256);
            for (int h : r.handles()) {
                ImportedRange range = live.get(h);
                if (range != null) {
                    out.add(range);
                }
            }
        } while (r.more());
        for (ImportedRange range : out) {
            for (RevocationListener l : listeners) {
                l.revoked(range, "the exporter moved or freed the memory (dma-buf move_notify)");
            }
        }
        return out;
    }

    @Override
    public synchronized void addRevocationListener(RevocationListener listener) {
        listeners.add(listener);
        if (poller == null) {
            poller = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "direkt-importer-revocations");
                t.setDaemon(true);
                return t;
            });
            poller.scheduleWithFixedDelay(() -> {
                try {
                    pollRevocations();
                } catch (RuntimeException e) {
                    // the device went away (closed): nothing more will be revoked
                }
            }, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public synchronized void removeRevocationListener(RevocationListener listener) {
        listeners.remove(listener);
        if (listeners.isEmpty() && poller != null) {
            poller.shutdownNow();
            poller = null;
        }
    }

    /** Closes the device file: the module releases every import still open. */
    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
            poller = null;
        }
        live.clear();
        device.close();
    }

    @Override
    public String toString() {
        return "LinuxBusAddressImporter(" + device.path() + ", FPGA " + fpga + ")";
    }
}
