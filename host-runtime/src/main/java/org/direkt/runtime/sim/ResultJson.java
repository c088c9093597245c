// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.sim;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/** The replay bench's result file as written (see {@code sim/tb/bridge_replay/README.md}); unknown keys are ignored. */
@JsonIgnoreProperties(ignoreUnknown = true)
record ResultJson(
        @JsonProperty("version") int version,
        @JsonProperty("bridge") Bridge bridge,
        @JsonProperty("statuses") List<StatusJson> statuses,
        @JsonProperty("host_statuses") List<HostStatusJson> hostStatuses,
        @JsonProperty("memory") Memory memory,
        @JsonProperty("mover") Map<String, Mover> mover,
        @JsonProperty("counters") Map<String, Map<String, Long>> counters,
        @JsonProperty("alarms") Map<String, Long> alarms,
        @JsonProperty("csr_reads") List<CsrValue> csrReads,
        @JsonProperty("cycles") Cycles cycles,
        @JsonProperty("wall_s") double wallS) {

    static final int VERSION = 2;

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Bridge(@JsonProperty("status_mode") String statusMode, @JsonProperty("word_order") String wordOrder,
                  @JsonProperty("inflight") int inflight) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record StatusJson(@JsonProperty("index") int index, @JsonProperty("direction") Direction direction,
                      @JsonProperty("raw") BigInteger raw, @JsonProperty("fields") Map<String, BigInteger> fields,
                      @JsonProperty("failed") boolean failed,
                      @JsonProperty("issued_kernel_cycle") long issuedKernelCycle,
                      @JsonProperty("status_kernel_cycle") long statusKernelCycle) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record HostStatusJson(@JsonProperty("index") int index, @JsonProperty("direction") Direction direction,
                          @JsonProperty("id") int id, @JsonProperty("raw") long raw,
                          @JsonProperty("completed") boolean completed,
                          @JsonProperty("sent_dma_cycle") long sentDmaCycle,
                          @JsonProperty("done_dma_cycle") long doneDmaCycle) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Memory(@JsonProperty("gpu") List<Range> gpu, @JsonProperty("fpga") List<Range> fpga,
                  @JsonProperty("host") List<Range> host) {
    }

    /** A read-back range: {@code bus} (GPU, host) or {@code addr} (FPGA), its length and its bytes. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Range(@JsonProperty("bus") Long bus, @JsonProperty("addr") Long addr, @JsonProperty("len") int len,
                 @JsonProperty("data_b64") byte[] data) {
        long address() {
            return bus != null ? bus : addr;
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Mover(@JsonProperty("descriptors") long descriptors, @JsonProperty("kernel_descriptors") long kernelDescriptors,
                 @JsonProperty("bytes") long bytes, @JsonProperty("tlps") long tlps,
                 @JsonProperty("busy_cycles") long busyCycles) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record CsrValue(@JsonProperty("name") String name, @JsonProperty("offset") int offset, @JsonProperty("value") long value) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Cycles(@JsonProperty("kernel") long kernel, @JsonProperty("dma") long dma,
                  @JsonProperty("sim_time_ps") long simTimePs) {
    }
}
