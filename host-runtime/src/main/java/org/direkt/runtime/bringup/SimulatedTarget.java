// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.bringup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.direkt.contract.BridgeModes;
import org.direkt.contract.BridgeSpec;
import org.direkt.contract.OverlayManifest;
import org.direkt.runtime.sim.ReplayJob;
import org.direkt.runtime.sim.ReplayResult;
import org.direkt.runtime.sim.SimulatedBridge;

/**
 * The bring-up on the simulated back end: the bridge the simulation builds is {@code hardware}, built
 * from {@code generatorParams} (an overlay's generator parameters that differ from the default
 * preset, so the default overlay shares the default build), one 64 KB GPU page is mapped at {@link #GPU_BUS},
 * and the simulated kernel issues the plan's descriptors one at a time, as the bring-up kernel does.
 * {@code channelWordOrder} is where the simulated kernel toolchain puts cldesc word x0 on the channel:
 * the bridge's own order, or the other one to model a toolchain that lays {@code cldesc_t} out
 * otherwise than the overlay's {@code word_order} says. Registers are read by the offsets the plan
 * gives, as a host that knows only its manifest reads them.
 */
public final class SimulatedTarget implements BringupTarget {
    /** The GPU page's bus address: inside the simulated BAR aperture {@code direkt-run demo} uses. */
    public static final long GPU_BUS = 0x38_0000_0000L;
    public static final long GPU_BYTES = 64 * 1024;
    public static final long FPGA_ADDRESS = 0x1000;

    private final SimulatedBridge bridge;
    private final BridgeSpec hardware;
    private final Map<String, Object> generatorParams;
    private final BridgeModes.WordOrder channelWordOrder;

    public SimulatedTarget(SimulatedBridge bridge, BridgeSpec hardware, Map<String, Object> generatorParams,
            BridgeModes.WordOrder channelWordOrder) {
        this.bridge = bridge;
        this.hardware = hardware;
        this.generatorParams = Map.copyOf(generatorParams);
        this.channelWordOrder = channelWordOrder;
    }

    @Override
    public String describe() {
        return "simulated bridge (" + bridge.simulator() + ")" + (channelWordOrder == hardware.wordOrder() ? ""
                : ", its kernel toolchain putting x0 " + where(channelWordOrder));
    }

    static String where(BridgeModes.WordOrder o) {
        return o == BridgeModes.WordOrder.X0_LOW ? "at channel bits [31:0]" : "at channel bits [255:224]";
    }

    @Override
    public Buffers buffers() {
        return new Buffers(GPU_BUS, GPU_BYTES, FPGA_ADDRESS, hardware.fpgaMemBytes() - FPGA_ADDRESS);
    }

    @Override
    public Observation run(BringupPlan plan) {
        ReplayJob.Builder job = ReplayJob.builder().preset(OverlayManifest.GENERATOR_PRESET).sequential();
        generatorParams.forEach(job::param);
        byte[] page = new byte[(int) GPU_BYTES];
        for (int i = 0; i < page.length; i++) {
            page[i] = (byte) (i * 7 + 1);
        }
        job.gpuPage(GPU_BUS, page);
        plan.windowWrites().forEach(w -> job.csrWrite(w.name(), w.value()));
        if (channelWordOrder != hardware.wordOrder()) {
            job.channelWordOrder(BridgeSpec.text(channelWordOrder));
        }
        for (BringupPlan.Probe p : plan.probes()) {
            job.descriptor(new ReplayJob.Descriptor(p.direction(), p.words(), false));
        }
        for (String name : plan.reads()) {
            job.csrReadAt(plan.config().offset(name));
        }
        ReplayResult r = bridge.run(job.build());
        List<Long> statuses = new ArrayList<>();
        List<Long> kernel = new ArrayList<>();
        for (ReplayResult.Status s : r.statuses()) {
            statuses.add(s.raw());
            kernel.add(s.statusKernelCycle() - s.issuedKernelCycle());
        }
        Map<String, Long> regs = new LinkedHashMap<>();
        for (String name : plan.reads()) {
            regs.put(name, r.csrAt(plan.config().offset(name)));
        }
        return new Observation(statuses, regs, kernel, job.build().clocks().dmaPs());
    }
}
