// SPDX-License-Identifier: Apache-2.0
package org.direkt.runtime.ffi;

import java.io.Serial;

/**
 * CUDA refused to register a range as I/O memory ({@code cuMemHostRegister} with
 * {@code CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_DEVICEMAP}), with what the refusal means
 * and what to do about it in the message; the driver's own error is the cause.
 */
public final class IoMemoryRefusedException extends IllegalStateException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** CUresult codes the registration answers. */
    public static final int CUDA_ERROR_INVALID_VALUE = 1;
    public static final int CUDA_ERROR_OUT_OF_MEMORY = 2;
    public static final int CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712;
    public static final int CUDA_ERROR_NOT_PERMITTED = 800;
    public static final int CUDA_ERROR_NOT_SUPPORTED = 801;
    public static final int CUDA_ERROR_UNKNOWN = 999;

    /** What the refusal means. */
    public enum Reason {
        /** CUDA_ERROR_NOT_PERMITTED: the driver lets only privileged callers map a peer's memory */
        NOT_PERMITTED,
        /** CUDA_ERROR_INVALID_VALUE on a range that is not whole pages */
        NOT_PAGE_ALIGNED,
        /** CUDA_ERROR_INVALID_VALUE on whole pages: not one VM_IO|VM_PFNMAP mapping of a device (RAM, say) */
        NOT_IO_MEMORY,
        /** CUDA_ERROR_NOT_SUPPORTED: this kernel and driver cannot register I/O memory */
        NOT_SUPPORTED,
        /** CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: the range, or part of it, is registered already */
        ALREADY_REGISTERED,
        /** CUDA_ERROR_OUT_OF_MEMORY or CUDA_ERROR_UNKNOWN: the driver could not map the range for the GPU */
        NOT_MAPPED_FOR_THE_GPU,
        /** any other code (the driver's name for it is in the message) */
        OTHER
    }

    /** How a GPU reaches a peer's BAR, for the refusals (and failed copies) where the path between them matters. */
    public static final String PEER_PATH = "the GPU reaches the BAR by its bus address, which the driver maps with"
            + " dma_map_resource: an IOMMU is no obstacle, but with it (or with ACS redirection) the traffic goes up to the root"
            + " complex, which must forward peer-to-peer requests between the two (many CPUs forward writes, fewer reads); best"
            + " is the GPU and the FPGA under one PCIe switch (`nvidia-smi topo -m` and `lspci -tv` show the path)";

    private final Reason reason;
    private final int code;
    private final String errorName;

    private IoMemoryRefusedException(Reason reason, CudaException cause, String message) {
        super(message, cause);
        this.reason = reason;
        this.code = cause.code();
        this.errorName = cause.errorName();
    }

    public Reason reason() {
        return reason;
    }

    /** The CUresult the driver answered. */
    public int code() {
        return code;
    }

    /** Its name, e.g. {@code CUDA_ERROR_NOT_PERMITTED}. */
    public String errorName() {
        return errorName;
    }

    /**
     * The meaning of {@code e}, the driver's refusal to register {@code bytes} at host address
     * {@code address} as I/O memory, where pages are {@code pageSize} bytes.
     */
    public static IoMemoryRefusedException of(CudaException e, long address, long bytes, long pageSize) {
        String head = e.getMessage() + ": ";
        boolean aligned = address % pageSize == 0 && bytes % pageSize == 0 && bytes > 0;
        return switch (e.code()) {
            case CUDA_ERROR_NOT_PERMITTED -> new IoMemoryRefusedException(Reason.NOT_PERMITTED, e, head + "an unprivileged"
                    + " process may not map a peer device's memory for the GPU: run as root, or load the nvidia module with"
                    + " NVreg_RegistryDwords=\"PeerMappingOverride=1\" (a line `options nvidia"
                    + " NVreg_RegistryDwords=\"PeerMappingOverride=1\"` in /etc/modprobe.d/, then reload the driver or reboot)");
            case CUDA_ERROR_INVALID_VALUE -> aligned
                    ? new IoMemoryRefusedException(Reason.NOT_IO_MEMORY, e, head + "the range is not I/O memory CUDA can"
                            + " register: it must be one VM_IO|VM_PFNMAP mapping of a device's BAR (the importer module's"
                            + " aperture, a VFIO region), physically contiguous and not a GPU's BAR; ordinary RAM (malloc, an"
                            + " anonymous or file mapping) and a range spanning several mappings are refused")
                    : new IoMemoryRefusedException(Reason.NOT_PAGE_ALIGNED, e, head + "the range is not page aligned: its"
                            + " start " + Cuda.hex(address) + " and its length " + bytes + " must be multiples of the page size ("
                            + pageSize + " bytes); register the whole mapping the aperture's mmap returned");
            case CUDA_ERROR_NOT_SUPPORTED -> new IoMemoryRefusedException(Reason.NOT_SUPPORTED, e, head + "this kernel and"
                    + " NVIDIA driver cannot register I/O memory: kernels 6.10 and later (no follow_pfn) need NVIDIA's open kernel"
                    + " modules 570.133.07 or later; older proprietary modules, WSL and non-Linux systems have no I/O memory"
                    + " registration; update the driver (the open flavour) or run an older kernel");
            case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED -> new IoMemoryRefusedException(Reason.ALREADY_REGISTERED, e, head
                    + "the range, or part of it, is registered already in this process: unregister it first"
                    + " (cuMemHostUnregister), or keep using that registration (a session registers its aperture once)");
            case CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_UNKNOWN -> new IoMemoryRefusedException(Reason.NOT_MAPPED_FOR_THE_GPU, e,
                    head + "the driver could not map the range for the GPU; " + PEER_PATH);
            default -> new IoMemoryRefusedException(Reason.OTHER, e, head + "CUDA did not register the range as I/O memory; "
                    + PEER_PATH);
        };
    }
}
