/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * direkt_test_exporter: the ioctl interface of /dev/direkt_test_exporter, a test-only module for
 * the importer's VM test. It exports dma-bufs the way a GPU driver does (system memory in pieces,
 * or BAR memory without struct pages), and drives QEMU's edu device, which plays the FPGA: the
 * importer maps buffers for edu, and edu's DMA engine reads what the returned bus addresses hold
 * (or, for the aperture cases, what ivshmem's BAR 2 holds).
 */
#ifndef DIREKT_TEST_EXPORTER_H
#define DIREKT_TEST_EXPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define DTX_DEVICE "/dev/direkt_test_exporter"

/* struct dtx_create.kind */
#define DTX_SYSMEM 0          /* system memory, `piece` bytes per physically contiguous piece, shuffled */
#define DTX_BAR    1          /* ivshmem's BAR 2 from bar_offset, mapped per piece with dma_map_resource */

/* struct dtx_create.flags */
#define DTX_DYNAMIC     (1u << 0) /* a dynamic exporter (pin/unpin; mapped under the reservation lock) */
#define DTX_REFUSE      (1u << 1) /* attach fails with -EOPNOTSUPP (no peer-to-peer path) */
#define DTX_MAP_EIO     (1u << 2) /* map fails with -EIO */
#define DTX_MAP_ENOSPC  (1u << 3) /* map fails with -ENOSPC (aperture full) */
#define DTX_MAP_ENOMEM  (1u << 4) /* map fails with -ENOMEM */
#define DTX_RAW         (1u << 5) /* BAR: CPU physical addresses, not mapped for the device (a broken exporter) */

#define DTX_MAX_PIECES 4096

/* The word at byte offset 4*i of a buffer made with seed s. */
#define DTX_PATTERN(s, i) ((__u32)((__u32)(i) * 0x9E3779B1u) ^ (__u32)(s))

struct dtx_create {
	__u32 kind;
	__u32 flags;
	__u64 size;        /* bytes, a multiple of piece */
	__u64 piece;       /* bytes, PAGE_SIZE << k */
	__u64 bar_offset;  /* DTX_BAR: where in BAR 2 the buffer starts (piece aligned) */
	__u32 seed;        /* contents: DTX_PATTERN(seed, word) */
	__s32 fd;          /* out: the dma-buf (without O_CLOEXEC) */
	__u64 phys;        /* in: user pointer to size / piece __u64: out, each piece's CPU physical address in buffer order */
};

/*
 * DTX_IOC_MOVE: moves the buffer (dma_buf_move_notify under its reservation lock: every importer is
 * told). DTX_IOC_FENCE: adds a write fence to the buffer that signals after ms milliseconds, as
 * pending exporter work would.
 */
struct dtx_fd {
	__s32 fd;
	__u32 ms;
};

/* edu reads len bytes (1..2048) at bus address bus into data (a user pointer). */
struct dtx_dma_read {
	__u64 bus;
	__u64 data;
	__u32 len;
	__u32 reserved;
};

/*
 * DTX_IOC_BAR_DMA_READ: edu reads len bytes (1..2048) of ivshmem's BAR 2 from bar_offset into data
 * (a user pointer), at the bus address dma_map_resource gives edu for them (an IOVA when the IOMMU
 * translates); bus says which address edu used.
 */
struct dtx_bar_read {
	__u64 bar_offset;
	__u64 data;
	__u32 len;
	__u32 reserved;
	__u64 bus;         /* out */
};

struct dtx_info {
	__u32 edu_domain;  /* the FPGA stand-in, as the importer's request names it */
	__u8 edu_bus, edu_device, edu_function, reserved;
	__u64 bar_phys;    /* ivshmem BAR 2 */
	__u64 bar_size;
	__u32 buffers;     /* live dma-bufs of this module */
	__u32 attachments; /* attachments to them now */
	__u32 mappings;    /* mapped attachments now */
	__u32 pins;        /* pinned attachments now (dynamic buffers) */
	__u32 max_seg_size; /* the attached device's max segment size at the last mapping */
	__u32 reserved2;
};

#define DTX_IOC_MAGIC 0xD8
#define DTX_IOC_CREATE   _IOWR(DTX_IOC_MAGIC, 1, struct dtx_create)
#define DTX_IOC_MOVE     _IOW(DTX_IOC_MAGIC, 2, struct dtx_fd)
#define DTX_IOC_DMA_READ _IOW(DTX_IOC_MAGIC, 3, struct dtx_dma_read)
#define DTX_IOC_INFO     _IOR(DTX_IOC_MAGIC, 4, struct dtx_info)
#define DTX_IOC_FENCE    _IOW(DTX_IOC_MAGIC, 5, struct dtx_fd)
#define DTX_IOC_BAR_DMA_READ _IOWR(DTX_IOC_MAGIC, 6, struct dtx_bar_read)

#endif
