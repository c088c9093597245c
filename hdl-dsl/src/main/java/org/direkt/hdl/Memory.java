// SPDX-License-Identifier: Apache-2.0
package org.direkt.hdl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A memory array with one synchronous write port and any number of read ports, either synchronous
 * (registered read data, the block-RAM shape) or asynchronous (the distributed/MLAB shape). The
 * emitted Verilog follows the templates Yosys and Quartus infer RAM from.
 */
public final class Memory {
    private final ModuleBuilder owner;
    private final String name;
    private final int width;
    private final int depth;
    private final int addrWidth;
    private final ClockDomain writeDomain;
    private final SourceLoc loc;
    private boolean distributed;
    private boolean noReadWriteCheck;
    WritePort writePort;
    final List<SyncRead> syncReads = new ArrayList<>();
    final List<AsyncRead> asyncReads = new ArrayList<>();

    record WritePort(Expr addr, Expr data, Expr enable, SourceLoc loc) {
    }

    record SyncRead(Signal data, Expr addr, Expr enable, ClockDomain domain, SourceLoc loc) {
    }

    Memory(ModuleBuilder owner, String name, int width, int depth, ClockDomain writeDomain, SourceLoc loc) {
        if (width < 1) {
            throw ElaborationException.at(loc, "memory '%s' width %d: must be >= 1", name, width);
        }
        if (depth < 2) {
            throw ElaborationException.at(loc, "memory '%s' depth %d: must be >= 2", name, depth);
        }
        this.owner = owner;
        this.name = name;
        this.width = width;
        this.depth = depth;
        this.addrWidth = 32 - Integer.numberOfLeadingZeros(depth - 1);
        this.writeDomain = writeDomain;
        this.loc = loc;
    }

    public String name() {
        return name;
    }

    public int width() {
        return width;
    }

    public int depth() {
        return depth;
    }

    /** Address width: ceil(log2(depth)). */
    public int addrWidth() {
        return addrWidth;
    }

    public ClockDomain writeDomain() {
        return writeDomain;
    }

    /**
     * Asks the synthesis tools for distributed RAM (LUT RAM, Intel MLAB) however deep the memory is:
     * its read is fast from the address register where a block RAM's output without its own register
     * is slow. Emitted as {@code ram_style = "distributed"} (Yosys, Vivado) and {@code ramstyle = "MLAB"}
     * (Quartus).
     */
    public Memory distributed() {
        distributed = true;
        return this;
    }

    public boolean isDistributed() {
        return distributed;
    }

    /**
     * Declares that no read of this memory is used in a cycle where the write port writes the word it
     * reads (the design refuses or ignores such reads), so the tools need not make a collision give
     * the old or the new word: without it a block RAM whose ports may collide gets a bypass register
     * and a mux on its read data in soft logic. Emitted as {@code no_rw_check} (Yosys) and {@code
     * ramstyle = "no_rw_check"} (Quartus).
     */
    public Memory noReadWriteCheck() {
        noReadWriteCheck = true;
        return this;
    }

    public boolean isNoReadWriteCheck() {
        return noReadWriteCheck;
    }

    SourceLoc loc() {
        return loc;
    }

    List<SyncRead> syncReads() {
        return Collections.unmodifiableList(syncReads);
    }

    /** The write port: at each write-domain clock edge where {@code enable} is 1, {@code data} goes to {@code addr}. */
    public void write(Expr addr, Expr data, Expr enable) {
        SourceLoc at = SourceLoc.capture();
        if (writePort != null) {
            throw ElaborationException.at(at, "memory '%s' already has its write port (declared at %s)", name, writePort.loc());
        }
        checkAddr(addr, at);
        if (data.width() != width) {
            throw ElaborationException.at(at, "width mismatch: memory '%s' holds %d-bit words, write data %s is %d bits",
                    name, width, data.describe(), data.width());
        }
        checkEnable(enable, at);
        writePort = new WritePort(addr, data, enable, at);
    }

    /**
     * A synchronous read port in {@code domain}: the word at {@code addr} appears in the named read
     * register one clock later, in cycles where {@code enable} is 1. A domain other than the write
     * domain makes a dual-clock RAM, the one place data may cross without a synchroniser: the
     * designer's pointer protocol must keep the read away from words being written.
     */
    public Signal readSync(String dataName, Expr addr, Expr enable, ClockDomain domain) {
        SourceLoc at = SourceLoc.capture();
        checkAddr(addr, at);
        checkEnable(enable, at);
        owner.requireDomain(domain, at);
        owner.requireClocked(domain, "read port '" + dataName + "' of memory '" + name + "'", at);
        Signal data = owner.newSignal(Signal.Kind.MEM_READ, dataName, width, domain, at);
        syncReads.add(new SyncRead(data, addr, enable, domain, at));
        return data;
    }

    /** An asynchronous read in the write domain: the word at {@code addr}, combinationally. */
    public Expr readAsync(Expr addr) {
        return readAsync(addr, writeDomain, SourceLoc.capture());
    }

    /** An asynchronous read whose address and result belong to {@code domain} (dual-clock distributed RAM). */
    public Expr readAsync(Expr addr, ClockDomain domain) {
        return readAsync(addr, domain, SourceLoc.capture());
    }

    private Expr readAsync(Expr addr, ClockDomain domain, SourceLoc at) {
        checkAddr(addr, at);
        owner.requireDomain(domain, at);
        AsyncRead r = new AsyncRead(this, addr, domain, at);
        asyncReads.add(r);
        return r;
    }

    private void checkAddr(Expr addr, SourceLoc at) {
        Expr.mergeOwner(owner, addr, at);
        if (addr.width() != addrWidth) {
            throw ElaborationException.at(at, "width mismatch: memory '%s' (depth %d) takes a %d-bit address, %s is %d bits",
                    name, depth, addrWidth, addr.describe(), addr.width());
        }
    }

    private void checkEnable(Expr enable, SourceLoc at) {
        Expr.mergeOwner(owner, enable, at);
        if (enable.width() != 1) {
            throw ElaborationException.at(at, "memory '%s' port enable %s is %d bits wide: it must be 1 bit",
                    name, enable.describe(), enable.width());
        }
    }

    /** The combinational read of an asynchronous read port. */
    public static final class AsyncRead extends Expr {
        final Memory memory;
        final Expr addr;
        final ClockDomain domain;

        AsyncRead(Memory memory, Expr addr, ClockDomain domain, SourceLoc loc) {
            super(memory.width, loc);
            this.memory = memory;
            this.addr = addr;
            this.domain = domain;
        }

        @Override
        ModuleBuilder owner() {
            return memory.owner;
        }

        @Override
        String describe() {
            return "read of memory '" + memory.name + "'";
        }
    }
}
