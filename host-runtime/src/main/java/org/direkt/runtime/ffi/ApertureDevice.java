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
 * The aperture request of the importer kernel module ({@code DIREKT_IOC_APERTURE_OPEN}, declared in
 * {@code host-runtime/driver/direkt_importer.h}, documented in {@code docs/importer-contract.md},
 * "Apertures"): a page-aligned range of a memory BAR of the function whose CSR range reads as
 * direkt's bridge, given as a file of its own whose {@code mmap} maps exactly that range (one
 * {@code VM_IO | VM_PFNMAP} mapping, shared only, never executable). One instance is one open file
 * of the node, needed only to ask: an aperture outlives it.
 *
 * <p>This class speaks the ABI only; {@link org.direkt.runtime.board.Aperture} gives the errors
 * their meaning.
 */
public final class ApertureDevice implements AutoCloseable {
    /** {@code DIREKT_APERTURE_UC}, {@code DIREKT_APERTURE_WC}: how the module maps the BAR for the CPU. */
    public static final int UNCACHED = 1;
    public static final int WRITE_COMBINING = 2;

    /** The errno values only apertures answer (the others are {@link CsrDevice}'s). */
    public static final int EFAULT = 14;
    public static final int EADDRINUSE = 98;
    public static final int ENOMEM = 12;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;

    /** struct direkt_aperture_open */
    static final StructLayout APERTURE_OPEN = MemoryLayout.structLayout(
            CsrDevice.BAR_RANGE.withName("csr"),
            ValueLayout.JAVA_INT.withName("version"),
            ValueLayout.JAVA_INT.withName("flags"),
            ValueLayout.JAVA_INT.withName("bar"),
            ValueLayout.JAVA_INT.withName("fd"),
            ValueLayout.JAVA_LONG.withName("offset"),
            ValueLayout.JAVA_LONG.withName("length"),
            ValueLayout.JAVA_INT.withName("found_magic"),
            ValueLayout.JAVA_INT.withName("found_version"),
            ValueLayout.JAVA_INT.withName("caching"),
            ValueLayout.JAVA_INT.withName("reserved"));

    static final long IOC_APERTURE_OPEN = ModuleFile.ioc(ModuleFile.READ | ModuleFile.WRITE, 9, APERTURE_OPEN);

    /**
     * What APERTURE_OPEN answered: {@code errno} 0 with the aperture's file {@code fd} (close-on-exec)
     * and how the module maps it ({@link #WRITE_COMBINING} or {@link #UNCACHED}), or the refusal's
     * errno and fd -1; {@code foundMagic} and {@code foundVersion} are what the identity registers
     * read (0 when the module read none).
     */
    public record Opened(int errno, int fd, int foundMagic, int foundVersion, int caching) {
    }

    private final ModuleFile file;

    private ApertureDevice(ModuleFile file) {
        this.file = file;
    }

    /**
     * Opens the device node read-write (close-on-exec).
     *
     * @throws ImporterException with the errno of {@code open(2)} (ENOENT: no such node; EACCES: no permission)
     */
    public static ApertureDevice open(Path path) {
        return new ApertureDevice(ModuleFile.open(path));
    }

    private static long at(String... path) {
        MemoryLayout.PathElement[] p = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            p[i] = MemoryLayout.PathElement.groupElement(path[i]);
        }
        return APERTURE_OPEN.byteOffset(p);
    }

    /**
     * DIREKT_IOC_APERTURE_OPEN: an aperture on {@code [offset, offset + length)} of BAR {@code bar}
     * of {@code domain:bus:device.function}, granted once the CSR range {@code [csrOffset, csrOffset
     * + csrLength)} of BAR {@code csrBar} reads MAGIC and VERSION {@code version}.
     */
    public Opened openAperture(int domain, int bus, int device, int function, int csrBar, long csrOffset, long csrLength,
            int version, int bar, long offset, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(APERTURE_OPEN);
            req.set(ValueLayout.JAVA_INT, at("csr", "pci_domain"), domain);
            req.set(ValueLayout.JAVA_BYTE, at("csr", "pci_bus"), (byte) bus);
            req.set(ValueLayout.JAVA_BYTE, at("csr", "pci_device"), (byte) device);
            req.set(ValueLayout.JAVA_BYTE, at("csr", "pci_function"), (byte) function);
            req.set(ValueLayout.JAVA_BYTE, at("csr", "bar"), (byte) csrBar);
            req.set(ValueLayout.JAVA_LONG, at("csr", "offset"), csrOffset);
            req.set(ValueLayout.JAVA_LONG, at("csr", "length"), csrLength);
            req.set(ValueLayout.JAVA_INT, at("version"), version);
            req.set(ValueLayout.JAVA_INT, at("bar"), bar);
            req.set(ValueLayout.JAVA_INT, at("fd"), -1);
            req.set(ValueLayout.JAVA_LONG, at("offset"), offset);
            req.set(ValueLayout.JAVA_LONG, at("length"), length);
            int errno = file.ioctl(IOC_APERTURE_OPEN, req, arena);
            return new Opened(errno, errno == 0 ? req.get(ValueLayout.JAVA_INT, at("fd")) : -1,
                    req.get(ValueLayout.JAVA_INT, at("found_magic")), req.get(ValueLayout.JAVA_INT, at("found_version")),
                    errno == 0 ? req.get(ValueLayout.JAVA_INT, at("caching")) : 0);
        }
    }

    /**
     * Maps {@code length} bytes of the aperture file {@code fd} from its first byte, read-write and
     * shared (the only mapping the module grants).
     *
     * @throws Libc.ErrnoException with the errno of {@code mmap(2)}
     */
    public static MemorySegment map(int fd, long length) {
        return Libc.mmap(length, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED, fd, 0);
    }

    /**
     * The struct's size and field offsets, the request number and the constants this class uses, by
     * their C expressions, for the test that compares them with the C header.
     */
    public static Map<String, Long> abi() {
        Map<String, Long> m = new TreeMap<>();
        ModuleFile.putStructs(m, Map.of("direkt_aperture_open", APERTURE_OPEN));
        m.put("DIREKT_IOC_APERTURE_OPEN", IOC_APERTURE_OPEN);
        m.put("DIREKT_APERTURE_UC", (long) UNCACHED);
        m.put("DIREKT_APERTURE_WC", (long) WRITE_COMBINING);
        return m;
    }

    /** Closes the node's file; apertures opened through it stay. */
    @Override
    public void close() {
        file.close();
    }
}
