// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The ioctl interface of the importer kernel module ({@code /dev/direkt_importer}, declared in
 * {@code host-runtime/driver/direkt_importer.h} and documented in {@code docs/importer-contract.md}),
 * called through FFM: {@code open(2)} and the variadic {@code ioctl(2)} with {@code errno} captured,
 * the argument structs off-heap. A call the kernel interrupts ({@code EINTR}) is made again; every
 * other failure is an {@link ImporterException} that carries the errno.
 *
 * <p>This class speaks the ABI only; {@link org.direkt.runtime.pcie.LinuxBusAddressImporter} gives
 * the errors their meaning for the runtime. Thread-safe: the kernel serialises what needs it.
 */
public final class ImporterDevice implements AutoCloseable {
    /** {@code DIREKT_IMPORTER_ABI}: the ABI this class speaks; the module reports its own in STATS. */
    public static final int ABI = 1;

    public static final Path DEFAULT_PATH = Path.of("/dev/direkt_importer");

    /** struct direkt_segment */
    static final StructLayout SEGMENT = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("bus_addr"),
            ValueLayout.JAVA_LONG.withName("len"));

    /** struct direkt_import */
    static final StructLayout IMPORT = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("dmabuf_fd"),
            ValueLayout.JAVA_INT.withName("flags"),
            ValueLayout.JAVA_LONG.withName("offset"),
            ValueLayout.JAVA_LONG.withName("length"),
            ValueLayout.JAVA_INT.withName("pci_domain"),
            ValueLayout.JAVA_BYTE.withName("pci_bus"),
            ValueLayout.JAVA_BYTE.withName("pci_device"),
            ValueLayout.JAVA_BYTE.withName("pci_function"),
            ValueLayout.JAVA_BYTE.withName("reserved0"),
            ValueLayout.JAVA_LONG.withName("segments"),
            ValueLayout.JAVA_INT.withName("max_segments"),
            ValueLayout.JAVA_INT.withName("nr_segments"),
            ValueLayout.JAVA_INT.withName("handle"),
            ValueLayout.JAVA_INT.withName("reserved1"));

    /** struct direkt_release */
    static final StructLayout RELEASE = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("handle"),
            ValueLayout.JAVA_INT.withName("reserved"));

    /** struct direkt_revocations */
    static final StructLayout REVOCATIONS = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("handles"),
            ValueLayout.JAVA_INT.withName("max"),
            ValueLayout.JAVA_INT.withName("count"),
            ValueLayout.JAVA_INT.withName("more"),
            ValueLayout.JAVA_INT.withName("reserved"));

    /** struct direkt_stats */
    static final StructLayout STATS = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("abi"),
            ValueLayout.JAVA_INT.withName("attachments"),
            ValueLayout.JAVA_INT.withName("mappings"),
            ValueLayout.JAVA_INT.withName("revoked"));

    /** The request numbers, as the kernel's _IOWR / _IOW / _IOR encode them (direction, size, type, number). */
    static final long IOC_IMPORT = ModuleFile.ioc(ModuleFile.READ | ModuleFile.WRITE, 1, IMPORT);
    static final long IOC_RELEASE = ModuleFile.ioc(ModuleFile.WRITE, 2, RELEASE);
    static final long IOC_REVOCATIONS = ModuleFile.ioc(ModuleFile.READ | ModuleFile.WRITE, 3, REVOCATIONS);
    static final long IOC_STATS = ModuleFile.ioc(ModuleFile.READ, 4, STATS);

    /** The errno values the module documents, by number (Linux x86-64 and AArch64 share them). */
    public static final Map<Integer, String> ERRNO_NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(2, "ENOENT"), Map.entry(4, "EINTR"), Map.entry(5, "EIO"),
            Map.entry(6, "ENXIO"), Map.entry(7, "E2BIG"), Map.entry(9, "EBADF"), Map.entry(12, "ENOMEM"),
            Map.entry(13, "EACCES"), Map.entry(14, "EFAULT"), Map.entry(19, "ENODEV"), Map.entry(22, "EINVAL"),
            Map.entry(23, "ENFILE"), Map.entry(24, "EMFILE"), Map.entry(25, "ENOTTY"), Map.entry(28, "ENOSPC"),
            Map.entry(34, "ERANGE"), Map.entry(95, "EOPNOTSUPP"), Map.entry(98, "EADDRINUSE"));

    public static final int EINTR = 4;
    public static final int E2BIG = 7;

    /** A failed call: the errno and what was called. */
    public static final class ImporterException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int errno;

        ImporterException(String call, int errno) {
            super(call + " failed: " + errnoName(errno));
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }
    }

    /** "ENODEV (19)", or "errno 123" for a value the module does not document. */
    public static String errnoName(int errno) {
        String n = ERRNO_NAMES.get(errno);
        return n == null ? "errno " + errno : n + " (" + errno + ")";
    }

    /** What IMPORT returned: the handle and the (bus address, length) segments in buffer order. */
    public record Import(int handle, long[] busAddresses, long[] lengths) {
    }

    /** Module-wide counts (DIREKT_IOC_STATS). */
    public record Stats(int abi, int attachments, int mappings, int revoked) {
    }

    /** Handles the exporter revoked since the last call, and whether more are listed. */
    public record Revocations(List<Integer> handles, boolean more) {
    }

    private final ModuleFile file;

    private ImporterDevice(ModuleFile file) {
        this.file = file;
    }

    /**
     * Opens the device node read-write (close-on-exec).
     *
     * @throws ImporterException with the errno of {@code open(2)} (ENOENT: no such node; EACCES: no permission)
     */
    public static ImporterDevice open(Path path) {
        return new ImporterDevice(ModuleFile.open(path));
    }

    public Path path() {
        return file.path();
    }

    private void ioctl(String what, long request, MemorySegment arg, Arena arena) {
        file.ioctlOrThrow(what, request, arg, arena);
    }

    private static void set(MemorySegment s, StructLayout l, String field, long v) {
        MemoryLayout f = l.select(MemoryLayout.PathElement.groupElement(field));
        long at = l.byteOffset(MemoryLayout.PathElement.groupElement(field));
        switch ((int) f.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, at, (byte) v);
            case 4 -> s.set(ValueLayout.JAVA_INT, at, (int) v);
            default -> s.set(ValueLayout.JAVA_LONG, at, v);
        }
    }

    private static long get(MemorySegment s, StructLayout l, String field) {
        long at = l.byteOffset(MemoryLayout.PathElement.groupElement(field));
        return l.select(MemoryLayout.PathElement.groupElement(field)).byteSize() == 4
                ? Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT, at)) : s.get(ValueLayout.JAVA_LONG, at);
    }

    /**
     * DIREKT_IOC_IMPORT of {@code [offset, offset + length)} of dma-buf {@code dmabufFd} for the PCI
     * function {@code domain:bus:device.function}. Starts with room for {@code segmentsHint} segments
     * and asks again with as many as the module says are needed (E2BIG).
     */
    public Import importRange(int dmabufFd, long offset, long length, int domain, int bus, int device, int function,
            int segmentsHint) {
        int max = Math.max(1, segmentsHint);
        while (true) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment segs = arena.allocate(SEGMENT, max);
                MemorySegment req = arena.allocate(IMPORT);
                set(req, IMPORT, "dmabuf_fd", dmabufFd);
                set(req, IMPORT, "offset", offset);
                set(req, IMPORT, "length", length);
                set(req, IMPORT, "pci_domain", domain);
                set(req, IMPORT, "pci_bus", bus);
                set(req, IMPORT, "pci_device", device);
                set(req, IMPORT, "pci_function", function);
                set(req, IMPORT, "segments", segs.address());
                set(req, IMPORT, "max_segments", max);
                try {
                    ioctl("DIREKT_IOC_IMPORT", IOC_IMPORT, req, arena);
                } catch (ImporterException e) {
                    long needed = get(req, IMPORT, "nr_segments");
                    if (e.errno() == E2BIG && needed > max && needed <= Integer.MAX_VALUE) {
                        max = (int) needed;
                        continue;
                    }
                    throw e;
                }
                int n = (int) get(req, IMPORT, "nr_segments");
                long[] bus0 = new long[n];
                long[] len = new long[n];
                for (int i = 0; i < n; i++) {
                    bus0[i] = segs.getAtIndex(ValueLayout.JAVA_LONG, 2L * i);
                    len[i] = segs.getAtIndex(ValueLayout.JAVA_LONG, 2L * i + 1);
                }
                return new Import((int) get(req, IMPORT, "handle"), bus0, len);
            }
        }
    }

    /** DIREKT_IOC_RELEASE. */
    public void release(int handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(RELEASE);
            set(req, RELEASE, "handle", handle);
            ioctl("DIREKT_IOC_RELEASE", IOC_RELEASE, req, arena);
        }
    }

    /** DIREKT_IOC_REVOCATIONS: up to {@code max} handles. */
    public Revocations revocations(int max) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handles = arena.allocate(ValueLayout.JAVA_INT, Math.max(1, max));
            MemorySegment req = arena.allocate(REVOCATIONS);
            set(req, REVOCATIONS, "handles", handles.address());
            set(req, REVOCATIONS, "max", max);
            ioctl("DIREKT_IOC_REVOCATIONS", IOC_REVOCATIONS, req, arena);
            int n = (int) get(req, REVOCATIONS, "count");
            List<Integer> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(handles.getAtIndex(ValueLayout.JAVA_INT, i));
            }
            return new Revocations(List.copyOf(out), get(req, REVOCATIONS, "more") != 0);
        }
    }

    /** DIREKT_IOC_STATS. */
    public Stats stats() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(STATS);
            ioctl("DIREKT_IOC_STATS", IOC_STATS, s, arena);
            return new Stats((int) get(s, STATS, "abi"), (int) get(s, STATS, "attachments"),
                    (int) get(s, STATS, "mappings"), (int) get(s, STATS, "revoked"));
        }
    }

    /**
     * The struct sizes, field offsets and request numbers this class uses, by their C expressions
     * ({@code sizeof(struct direkt_import)}, {@code offsetof(struct direkt_import, handle)},
     * {@code DIREKT_IOC_IMPORT}, ...), for the test that compares them with the C header.
     */
    public static Map<String, Long> abi() {
        Map<String, Long> m = new java.util.TreeMap<>();
        ModuleFile.putStructs(m, Map.of("direkt_segment", SEGMENT, "direkt_import", IMPORT,
                "direkt_release", RELEASE, "direkt_revocations", REVOCATIONS, "direkt_stats", STATS));
        m.put("DIREKT_IOC_IMPORT", IOC_IMPORT);
        m.put("DIREKT_IOC_RELEASE", IOC_RELEASE);
        m.put("DIREKT_IOC_REVOCATIONS", IOC_REVOCATIONS);
        m.put("DIREKT_IOC_STATS", IOC_STATS);
        m.put("DIREKT_IMPORTER_ABI", (long) ABI);
        return m;
    }

    /** Closes the file: the module releases every import made through it. */
    @Override
    public void close() {
        file.close();
    }
}
