// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime;


import org.direkt.contract.Layout;

/** A kernel descriptor came back with an error code in its status word. */
public final class DmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Layout.Error error;
    private final long tag;

    public DmaException(Layout.Error error, long tag, String what) {
        super(what + ": descriptor tag " + tag + " failed with " + error.name() + " (" + error.code() + "): " + error.meaning);
        this.error = error;
        this.tag = tag;
    }

    public Layout.Error error() {
        return error;
    }

    public long tag() {
        return tag;
    }
}
