/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * direkt importer: the ioctl interface of /dev/direkt_importer (docs/importer-contract.md).
 *
 * A process imports a range of a dma-buf (for example GPU memory an exporter such as NVIDIA's
 * driver hands out) for the FPGA named by its PCI address, and gets the bus addresses the FPGA's
 * DMA engine must use for that range, as (bus address, length) segments in buffer order.
 */
#ifndef DIREKT_IMPORTER_H
#define DIREKT_IMPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define DIREKT_IMPORTER_DEVICE "/dev/direkt_importer"
#define DIREKT_IMPORTER_ABI 1

/* One contiguous piece of the imported range, as the FPGA sees it. */
struct direkt_segment {
	__u64 bus_addr;
	__u64 len;
};

/* DIREKT_IOC_IMPORT: in every field but the three marked out. */
struct direkt_import {
	__s32 dmabuf_fd;     /* the dma-buf */
	__u32 flags;         /* 0: none defined yet */
	__u64 offset;        /* first byte of the range, from the buffer's start */
	__u64 length;        /* bytes, > 0; offset + length <= the buffer's size */
	__u32 pci_domain;    /* the FPGA: domain:bus:device.function */
	__u8 pci_bus;
	__u8 pci_device;     /* 0..31 */
	__u8 pci_function;   /* 0..7 */
	__u8 reserved0;      /* 0 */
	__u64 segments;      /* user pointer to max_segments struct direkt_segment */
	__u32 max_segments;
	__u32 nr_segments;   /* out: segments written; with E2BIG, segments needed */
	__u32 handle;        /* out: names the import for RELEASE and in REVOCATIONS */
	__u32 reserved1;     /* 0 */
};

/* DIREKT_IOC_RELEASE */
struct direkt_release {
	__u32 handle;
	__u32 reserved;      /* 0 */
};

/*
 * DIREKT_IOC_REVOCATIONS: handles whose exporter moved or revoked the memory since the last call
 * (their addresses must not be used any more; release them). Up to max handles are written to the
 * user array at handles; count says how many; more says whether some are still queued.
 */
struct direkt_revocations {
	__u64 handles;       /* user pointer to max __u32 */
	__u32 max;
	__u32 count;         /* out */
	__u32 more;          /* out: 1 when more revocations are queued */
	__u32 reserved;      /* 0 */
};

/* DIREKT_IOC_STATS: module-wide counts, for tests and diagnostics. */
struct direkt_stats {
	__u32 abi;           /* out: DIREKT_IMPORTER_ABI */
	__u32 attachments;   /* out: dma-buf attachments held now */
	__u32 mappings;      /* out: mapped attachments now */
	__u32 revoked;       /* out: imports revoked since the module was loaded */
};

#define DIREKT_IOC_MAGIC 0xD7
#define DIREKT_IOC_IMPORT      _IOWR(DIREKT_IOC_MAGIC, 1, struct direkt_import)
#define DIREKT_IOC_RELEASE     _IOW(DIREKT_IOC_MAGIC, 2, struct direkt_release)
#define DIREKT_IOC_REVOCATIONS _IOWR(DIREKT_IOC_MAGIC, 3, struct direkt_revocations)
#define DIREKT_IOC_STATS       _IOR(DIREKT_IOC_MAGIC, 4, struct direkt_stats)

#endif
