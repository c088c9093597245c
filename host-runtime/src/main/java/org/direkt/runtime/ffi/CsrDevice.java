// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.direkt.runtime.ffi.ImporterDevice.ImporterException;

/**
 * The CSR-window requests of the importer kernel module ({@code /dev/direkt_importer}, declared in
 * {@code host-runtime/driver/direkt_importer.h} and documented in {@code docs/importer-contract.md}):
 * a window on a range of a PCI function's memory BAR, kept only when its identity registers read
 * as direkt's bridge of the expected layout version; 32-bit reads and writes inside it; its close;
 * and the module's counts with the open windows. Called through FFM as {@link ImporterDevice} is.
 * One instance is one open file of the node: closing it closes every window it still holds.
 *
 * <p>This class speaks the ABI only; {@link org.direkt.runtime.board.CsrWindow} gives the errors
 * their meaning. Thread-safe: the module serialises window accesses.
 */
public final class CsrDevice implements AutoCloseable {
    /** {@code DIREKT_CSR_MAGIC}: "DRKT", what the bridge's MAGIC register reads. */
    public static final int MAGIC = 0x4452_4B54;
    /** {@code DIREKT_CSR_MAGIC_OFFSET}, {@code DIREKT_CSR_VERSION_OFFSET}: bytes from the window's start. */
    public static final int MAGIC_OFFSET = 0x00;
    public static final int VERSION_OFFSET = 0x04;
    /** {@code DIREKT_CSR_MIN_BYTES}: a window holds MAGIC and VERSION at least. */
    public static final int MIN_BYTES = 8;

    /** struct direkt_bar_range */
    static final StructLayout BAR_RANGE = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("pci_domain"),
            ValueLayout.JAVA_BYTE.withName("pci_bus"),
            ValueLayout.JAVA_BYTE.withName("pci_device"),
            ValueLayout.JAVA_BYTE.withName("pci_function"),
            ValueLayout.JAVA_BYTE.withName("bar"),
            ValueLayout.JAVA_LONG.withName("offset"),
            ValueLayout.JAVA_LONG.withName("length"));

    /** struct direkt_csr_open */
    static final StructLayout CSR_OPEN = MemoryLayout.structLayout(
            BAR_RANGE.withName("csr"),
            ValueLayout.JAVA_INT.withName("version"),
            ValueLayout.JAVA_INT.withName("flags"),
            ValueLayout.JAVA_INT.withName("handle"),
            ValueLayout.JAVA_INT.withName("found_magic"),
            ValueLayout.JAVA_INT.withName("found_version"),
            ValueLayout.JAVA_INT.withName("reserved"));

    /** struct direkt_csr_io */
    static final StructLayout CSR_IO = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("handle"),
            ValueLayout.JAVA_INT.withName("value"),
            ValueLayout.JAVA_LONG.withName("offset"));

    /** struct direkt_csr_close */
    static final StructLayout CSR_CLOSE = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("handle"),
            ValueLayout.JAVA_INT.withName("reserved"));

    /** struct direkt_stats2 */
    static final StructLayout STATS2 = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("abi"),
            ValueLayout.JAVA_INT.withName("attachments"),
            ValueLayout.JAVA_INT.withName("mappings"),
            ValueLayout.JAVA_INT.withName("revoked"),
            ValueLayout.JAVA_INT.withName("csr_windows"));

    private static final int WRITE = ModuleFile.WRITE;
    private static final int READ = ModuleFile.READ;
    static final long IOC_STATS2 = ModuleFile.ioc(READ, 4, STATS2);
    static final long IOC_CSR_OPEN = ModuleFile.ioc(READ | WRITE, 5, CSR_OPEN);
    static final long IOC_CSR_READ = ModuleFile.ioc(READ | WRITE, 6, CSR_IO);
    static final long IOC_CSR_WRITE = ModuleFile.ioc(WRITE, 7, CSR_IO);
    static final long IOC_CSR_CLOSE = ModuleFile.ioc(WRITE, 8, CSR_CLOSE);

    /** The errno values of open(2) and the CSR requests (Linux x86-64 and AArch64 share them). */
    public static final int EPERM = 1;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int EACCES = 13;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOTTY = 25;
    public static final int ERANGE = 34;
    public static final int EPROTO = 71;
    public static final int EMEDIUMTYPE = 124;

    /**
     * What CSR_OPEN answered: {@code errno} 0 and the window's {@code handle}, or the refusal's
     * errno; {@code foundMagic} and {@code foundVersion} are what the identity registers read (0
     * when the module read none: it refused before mapping the range).
     */
    public record Opened(int errno, int handle, int foundMagic, int foundVersion) {
    }

    /** Module-wide counts (DIREKT_IOC_STATS2). */
    public record Stats(int abi, int attachments, int mappings, int revoked, int csrWindows) {
    }

    /** "EPROTO (71)", as {@link ImporterDevice#errnoName} names the others. */
    public static String errnoName(int errno) {
        return switch (errno) {
            case EPROTO -> "EPROTO (71)";
            case EMEDIUMTYPE -> "EMEDIUMTYPE (124)";
            default -> ImporterDevice.errnoName(errno);
        };
    }

    private final ModuleFile file;

    private CsrDevice(ModuleFile file) {
        this.file = file;
    }

    /**
     * Opens the device node read-write (close-on-exec).
     *
     * @throws ImporterException with the errno of {@code open(2)} (ENOENT: no such node; EACCES: no permission)
     */
    public static CsrDevice open(Path path) {
        return new CsrDevice(ModuleFile.open(path));
    }

    public Path path() {
        return file.path();
    }

    /** The request on this file: 0, or its errno. */
    private int ioctl(long request, MemorySegment arg, Arena arena) {
        return file.ioctl(request, arg, arena);
    }

    private void ioctlOrThrow(String what, long request, MemorySegment arg, Arena arena) {
        file.ioctlOrThrow(what, request, arg, arena);
    }

    /** The byte offset of a (nested) field: {@code at(CSR_OPEN, "csr", "bar")}. */
    private static long at(StructLayout l, String... path) {
        MemoryLayout.PathElement[] p = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            p[i] = MemoryLayout.PathElement.groupElement(path[i]);
        }
        return l.byteOffset(p);
    }

    /**
     * DIREKT_IOC_CSR_OPEN: a window on {@code [offset, offset + length)} of BAR {@code bar} of
     * {@code domain:bus:device.function}, whose VERSION register must read {@code version}.
     */
    public Opened openWindow(int domain, int bus, int device, int function, int bar, long offset, long length,
            int version) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(CSR_OPEN);
            req.set(ValueLayout.JAVA_INT, at(CSR_OPEN, "csr", "pci_domain"), domain);
            req.set(ValueLayout.JAVA_BYTE, at(CSR_OPEN, "csr", "pci_bus"), (byte) bus);
            req.set(ValueLayout.JAVA_BYTE, at(CSR_OPEN, "csr", "pci_device"), (byte) device);
            req.set(ValueLayout.JAVA_BYTE, at(CSR_OPEN, "csr", "pci_function"), (byte) function);
            req.set(ValueLayout.JAVA_BYTE, at(CSR_OPEN, "csr", "bar"), (byte) bar);
            req.set(ValueLayout.JAVA_LONG, at(CSR_OPEN, "csr", "offset"), offset);
            req.set(ValueLayout.JAVA_LONG, at(CSR_OPEN, "csr", "length"), length);
            req.set(ValueLayout.JAVA_INT, at(CSR_OPEN, "version"), version);
            int errno = ioctl(IOC_CSR_OPEN, req, arena);
            return new Opened(errno, errno == 0 ? req.get(ValueLayout.JAVA_INT, at(CSR_OPEN, "handle")) : 0,
                    req.get(ValueLayout.JAVA_INT, at(CSR_OPEN, "found_magic")),
                    req.get(ValueLayout.JAVA_INT, at(CSR_OPEN, "found_version")));
        }
    }

    /** DIREKT_IOC_CSR_READ: the register at byte {@code offset} of window {@code handle}. */
    public int read(int handle, long offset) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(CSR_IO);
            req.set(ValueLayout.JAVA_INT, at(CSR_IO, "handle"), handle);
            req.set(ValueLayout.JAVA_LONG, at(CSR_IO, "offset"), offset);
            ioctlOrThrow("DIREKT_IOC_CSR_READ", IOC_CSR_READ, req, arena);
            return req.get(ValueLayout.JAVA_INT, at(CSR_IO, "value"));
        }
    }

    /** DIREKT_IOC_CSR_WRITE: {@code value} to the register at byte {@code offset} of window {@code handle}. */
    public void write(int handle, long offset, int value) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(CSR_IO);
            req.set(ValueLayout.JAVA_INT, at(CSR_IO, "handle"), handle);
            req.set(ValueLayout.JAVA_INT, at(CSR_IO, "value"), value);
            req.set(ValueLayout.JAVA_LONG, at(CSR_IO, "offset"), offset);
            ioctlOrThrow("DIREKT_IOC_CSR_WRITE", IOC_CSR_WRITE, req, arena);
        }
    }

    /** DIREKT_IOC_CSR_CLOSE. */
    public void closeWindow(int handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(CSR_CLOSE);
            req.set(ValueLayout.JAVA_INT, at(CSR_CLOSE, "handle"), handle);
            ioctlOrThrow("DIREKT_IOC_CSR_CLOSE", IOC_CSR_CLOSE, req, arena);
        }
    }

    /** DIREKT_IOC_STATS2. */
    public Stats stats() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(STATS2);
            ioctlOrThrow("DIREKT_IOC_STATS2", IOC_STATS2, s, arena);
            return new Stats(s.get(ValueLayout.JAVA_INT, at(STATS2, "abi")),
                    s.get(ValueLayout.JAVA_INT, at(STATS2, "attachments")),
                    s.get(ValueLayout.JAVA_INT, at(STATS2, "mappings")),
                    s.get(ValueLayout.JAVA_INT, at(STATS2, "revoked")),
                    s.get(ValueLayout.JAVA_INT, at(STATS2, "csr_windows")));
        }
    }

    /**
     * The struct sizes, field offsets, request numbers and constants this class uses, by their C
     * expressions ({@code sizeof(struct direkt_csr_open)}, {@code DIREKT_IOC_CSR_OPEN}, ...), for
     * the test that compares them with the C header.
     */
    public static Map<String, Long> abi() {
        Map<String, Long> m = new TreeMap<>();
        ModuleFile.putStructs(m, Map.of("direkt_bar_range", BAR_RANGE, "direkt_csr_open", CSR_OPEN,
                "direkt_csr_io", CSR_IO, "direkt_csr_close", CSR_CLOSE, "direkt_stats2", STATS2));
        m.put("DIREKT_IOC_STATS2", IOC_STATS2);
        m.put("DIREKT_IOC_CSR_OPEN", IOC_CSR_OPEN);
        m.put("DIREKT_IOC_CSR_READ", IOC_CSR_READ);
        m.put("DIREKT_IOC_CSR_WRITE", IOC_CSR_WRITE);
        m.put("DIREKT_IOC_CSR_CLOSE", IOC_CSR_CLOSE);
        m.put("DIREKT_CSR_MAGIC", Integer.toUnsignedLong(MAGIC));
        m.put("DIREKT_CSR_MAGIC_OFFSET", (long) MAGIC_OFFSET);
        m.put("DIREKT_CSR_VERSION_OFFSET", (long) VERSION_OFFSET);
        m.put("DIREKT_CSR_MIN_BYTES", (long) MIN_BYTES);
        return m;
    }

    /** Closes the file: the module closes every window opened through it. */
    @Override
    public void close() {
        file.close();
    }
}
