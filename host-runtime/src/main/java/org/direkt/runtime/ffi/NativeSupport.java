// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The one place that performs restricted FFM operations (opening libraries, linking downcalls,
 * giving a native pointer a size). Everything else in this package is ordinary Java.
 */
final class NativeSupport {
    /** The platform's linker (System V AMD64 / AArch64 ABI on Linux). */
    static final Linker LINKER = Linker.nativeLinker();

    /** C {@code size_t}; 64 bits on the LP64 Linux targets this runtime supports. */
    static final ValueLayout.OfLong SIZE_T = sizeT();

    /** C {@code void*}. */
    static final AddressLayout POINTER = ValueLayout.ADDRESS;

    private NativeSupport() {}

    private static ValueLayout.OfLong sizeT() {
        MemoryLayout layout = LINKER.canonicalLayouts().get("size_t");
        if (!(layout instanceof ValueLayout.OfLong l)) {
            throw new ExceptionInInitializerError("size_t is not 64 bits on this platform: " + layout);
        }
        return l;
    }

    /**
     * Opens the first library of {@code candidates} that the system loader can open, for the
     * lifetime of the JVM.
     *
     * @param what a short name of the library, for the message ("NVIDIA CUDA driver library")
     * @param candidates names (searched on the loader path) or absolute paths, in order
     * @param install what to install when none loads, for the message
     */
    @SuppressWarnings("restricted")
    static SymbolLookup openLibrary(String what, List<String> candidates, String install) {
        StringBuilder tried = new StringBuilder();
        for (String candidate : candidates) {
            try {
                return SymbolLookup.libraryLookup(candidate, Arena.global());
            } catch (IllegalCallerException e) {
                throw new NativeLibraryException("cannot open " + candidates.getFirst()
                        + ": native access is not enabled; run the JVM with"
                        + " --enable-native-access=ALL-UNNAMED (or the module's name)", e);
            } catch (IllegalArgumentException e) {
                if (!tried.isEmpty()) {
                    tried.append("; ");
                }
                tried.append(candidate).append(" (").append(e.getMessage()).append(')');
            }
        }
        String path = System.getenv("LD_LIBRARY_PATH");
        throw new NativeLibraryException(what + " " + candidates.getFirst() + " could not be loaded."
                + " Tried with dlopen: " + tried
                + "; LD_LIBRARY_PATH=" + (path == null ? "(unset)" : path) + ". " + install);
    }

    /** Binds a function that must exist. */
    static MethodHandle downcall(SymbolLookup lib, String libName, String symbol, FunctionDescriptor fd) {
        return optionalDowncall(lib, symbol, fd).orElseThrow(() -> new NativeLibraryException(
                libName + " does not export " + symbol + "; the installed library is too old or not the"
                        + " real one (a stub?). Install a current driver."));
    }

    /** Binds a function that may be absent (an older library version). */
    @SuppressWarnings("restricted")
    static Optional<MethodHandle> optionalDowncall(SymbolLookup lib, String symbol, FunctionDescriptor fd) {
        return lib.find(symbol).map(address -> LINKER.downcallHandle(address, fd));
    }

    /** Binds a function of the C library the JVM already links against (libc). */
    @SuppressWarnings("restricted")
    static MethodHandle libcDowncall(String symbol, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment address = LINKER.defaultLookup().find(symbol)
                .orElseThrow(() -> new NativeLibraryException("the C library does not export " + symbol));
        return LINKER.downcallHandle(address, fd, options);
    }

    /**
     * Reads a NUL-terminated string through a native pointer the library returned (for example
     * the static strings of cuGetErrorName). Returns {@code null} for a NULL pointer.
     */
    @SuppressWarnings("restricted")
    static String cString(MemorySegment pointer) {
        if (pointer.equals(MemorySegment.NULL)) {
            return null;
        }
        return pointer.reinterpret(Long.MAX_VALUE).getString(0, StandardCharsets.UTF_8);
    }

    /** Reads a NUL-terminated string from a buffer the caller owns, stopping at its end. */
    static String cString(MemorySegment buffer, long capacity) {
        long len = 0;
        while (len < capacity && buffer.get(ValueLayout.JAVA_BYTE, len) != 0) {
            len++;
        }
        byte[] bytes = buffer.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Rethrows what a downcall's {@code invokeExact} declared: errors and runtime exceptions as they are. */
    static RuntimeException rethrow(String call, Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(call + ": unexpected " + t, t);
    }
}
