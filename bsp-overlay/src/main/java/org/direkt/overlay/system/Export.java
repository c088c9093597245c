// SPDX-License-Identifier: Apache-2.0
package org.direkt.overlay.system;

/** An exported interface: its name on the system's boundary and the {@code instance.interface} it exports. */
public record Export(String name, String internal, String type, String dir, Where where) {
}
