// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.device;

import java.lang.foreign.MemorySegment;

import org.direkt.runtime.pcie.Bytes;

/**
 * {@code size} bytes of PCIe memory at bus address {@code bus}, backed by {@code backing} from
 * byte {@code offset} on; {@code name} says what they are in messages.
 */
public record BusRange(long bus, long size, Backing backing, long offset, String name) {
    public BusRange {
        if (bus < 0 || size <= 0 || bus % 4 != 0 || size % 4 != 0) {
            throw new IllegalArgumentException("PCIe range " + name + " at " + Bytes.hex(bus) + " of " + size + " bytes: the address"
                    + " and the size must be multiples of 4, the size positive, the address below 2^63");
        }
    }

    /** The memory behind a bus range, by byte offset. */
    public interface Backing {
        void read(long offset, MemorySegment into);

        void write(long offset, MemorySegment from);

        /** Host memory {@code segment} itself. */
        static Backing of(MemorySegment segment) {
            return new Backing() {
                @Override
                public void read(long offset, MemorySegment into) {
                    into.copyFrom(segment.asSlice(offset, into.byteSize()));
                }

                @Override
                public void write(long offset, MemorySegment from) {
                    segment.asSlice(offset, from.byteSize()).copyFrom(from);
                }
            };
        }
    }

    /** Whether {@code [at, at + bytes)} lies inside this range. */
    public boolean holds(long at, long bytes) {
        return at >= bus && bytes >= 0 && at - bus + bytes <= size;
    }
}
