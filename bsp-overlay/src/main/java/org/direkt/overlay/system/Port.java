// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

/** One port of an interface: its HDL name, its role in the interface, {@code input}/{@code output}/{@code bidir}, and width. */
public record Port(String name, String role, String direction, int width) {
}
