// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.pcie;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A PCI function's address, {@code domain:bus:device.function} as Linux writes it
 * ({@code 0000:3b:00.0}): domain 0..0xffff_ffff, bus 0..255, device 0..31, function 0..7.
 */
public record PciAddress(long domain, int bus, int device, int function) {
    /** Intel's PCI vendor ID (Altera FPGAs and their OpenCL BSPs). */
    public static final int INTEL_FPGA_VENDOR = 0x1172;

    private static final Pattern FORM = Pattern.compile("(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])");

    public PciAddress {
        if (domain < 0 || domain > 0xFFFF_FFFFL || bus < 0 || bus > 255 || device < 0 || device > 31 || function < 0
                || function > 7) {
            throw new IllegalArgumentException("PCI address " + Long.toHexString(domain) + ":" + Integer.toHexString(bus)
                    + ":" + Integer.toHexString(device) + "." + function
                    + " is out of range (domain < 2^32, bus < 256, device < 32, function < 8)");
        }
    }

    /** Parses {@code [domain:]bus:device.function} in hex (lspci's and sysfs's form). */
    public static PciAddress parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a PCI address: write domain:bus:device.function in hex,"
                    + " as lspci -D prints it (for example 0000:3b:00.0)");
        }
        return new PciAddress(m.group(1) == null ? 0 : Long.parseLong(m.group(1), 16), Integer.parseInt(m.group(2), 16),
                Integer.parseInt(m.group(3), 16), Integer.parseInt(m.group(4)));
    }

    /**
     * The PCI functions under {@code sysfsDevices} (normally {@code /sys/bus/pci/devices}) whose
     * vendor is {@code vendor}, in address order; empty when the folder does not exist.
     */
    public static List<PciAddress> withVendor(Path sysfsDevices, int vendor) {
        if (!Files.isDirectory(sysfsDevices)) {
            return List.of();
        }
        List<PciAddress> found = new ArrayList<>();
        try (Stream<Path> devices = Files.list(sysfsDevices)) {
            for (Path d : devices.sorted().toList()) {
                Path v = d.resolve("vendor");
                if (!Files.isReadable(v)) {
                    continue;
                }
                String text = Files.readString(v).trim();
                if (text.equalsIgnoreCase(String.format("0x%04x", vendor))) {
                    found.add(parse(d.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + sysfsDevices, e);
        }
        return List.copyOf(found);
    }

    @Override
    public String toString() {
        return String.format("%04x:%02x:%02x.%x", domain, bus, device, function);
    }
}
