// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt importer, imports: a range of a dma-buf imported for an FPGA (a PCI device another driver
 * owns), and the bus addresses the FPGA's DMA engine must use for it. The contract, every ioctl
 * and errno, the locking and the lifetime are in docs/importer-contract.md.
 *
 * Each import is a dynamic attachment (peer-to-peer allowed, a real move_notify) of the dma-buf to
 * the FPGA's struct device, mapped under the buffer's reservation lock. Only the DMA side of the
 * table is read. When the exporter moves or revokes the memory, move_notify unmaps the attachment
 * at once and lists the import for DIREKT_IOC_REVOCATIONS; the addresses are dead from then on.
 * Closing the file releases every import it holds.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/iommu.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "internal.h"

/* Most handles one DIREKT_IOC_REVOCATIONS call reports (the rest stay listed, `more` says so). */
#define REVOCATIONS_PER_CALL 4096

static atomic_t stat_attachments = ATOMIC_INIT(0);
static atomic_t stat_mappings = ATOMIC_INIT(0);
static atomic_t stat_revoked = ATOMIC_INIT(0);

struct import {
	struct importer_file *file;
	u32 handle;
	struct pci_dev *pdev;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;         /* NULL once unmapped (revoked or released); under the resv lock */
	struct list_head revoked_link; /* on file->revoked while revoked and not yet reported */
};

/* Called with the reservation lock held. */
static void unmap_locked(struct import *imp)
{
	dma_resv_assert_held(imp->dmabuf->resv);
	if (imp->sgt) {
		dma_buf_unmap_attachment(imp->attach, imp->sgt, DMA_BIDIRECTIONAL);
		imp->sgt = NULL;
		atomic_dec(&stat_mappings);
	}
}

/* The exporter is moving the memory (the reservation lock is held): the addresses are dead. */
static void importer_move_notify(struct dma_buf_attachment *attach)
{
	struct import *imp = attach->importer_priv;

	if (!imp->sgt)
		return;
	unsigned long flags;

	unmap_locked(imp);
	atomic_inc(&stat_revoked);
	spin_lock_irqsave(&imp->file->revoked_lock, flags);
	list_add_tail(&imp->revoked_link, &imp->file->revoked);
	spin_unlock_irqrestore(&imp->file->revoked_lock, flags);
}

static const struct dma_buf_attach_ops importer_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = importer_move_notify,
};

static void import_free(struct import *imp)
{
	unsigned long flags;

	dma_resv_lock(imp->dmabuf->resv, NULL);
	unmap_locked(imp);
	dma_resv_unlock(imp->dmabuf->resv);
	spin_lock_irqsave(&imp->file->revoked_lock, flags);
	list_del(&imp->revoked_link); /* reported or not: a released handle is never reported */
	spin_unlock_irqrestore(&imp->file->revoked_lock, flags);
	dma_buf_detach(imp->dmabuf, imp->attach);
	atomic_dec(&stat_attachments);
	dma_buf_put(imp->dmabuf);
	pci_dev_put(imp->pdev);
	kfree(imp);
}

/* Kernel-internal codes from the exporter, to the documented ones. */
static int exporter_errno(long err)
{
	if (err == -ENOMEM)
		return -ENOMEM;
	if (err == -ENOSPC)
		return -ENOSPC; /* the exporter's aperture (GPU BAR1, IOMMU space) is full: release imports */
	if (err == -EINTR || err == -ERESTARTSYS)
		return -EINTR;
	/* -EOPNOTSUPP, -EBUSY, -EINVAL, -EIO, ...: the exporter refuses this device or P2P. */
	return -EOPNOTSUPP;
}

/*
 * The segments of [offset, offset + length) in buffer order, from the DMA side of the table
 * (reservation lock held), bus-contiguous pieces merged: written to out (up to max of them; out
 * may be NULL to count). Returns how many the range has, or a negative errno.
 */
static long range_segments(struct import *imp, const struct direkt_import *req, struct iommu_domain *translating,
			   struct direkt_segment *out, u32 max)
{
	u64 at = 0, start = req->offset, end = req->offset + req->length, prev_end = 0;
	struct scatterlist *sg;
	long n = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(imp->sgt, sg, i) {
		u64 addr = sg_dma_address(sg), len = sg_dma_len(sg);
		u64 lo = max(at, start), hi = min(at + len, end);

		if (lo < hi) {
			u64 bus = addr + (lo - at), probe;

			/* With the FPGA's IOMMU translating, every address must be mapped in its domain:
			 * an untranslated address (a raw BAR address, say) would reach the wrong memory. */
			for (probe = bus & PAGE_MASK; translating && probe < bus + (hi - lo); probe += PAGE_SIZE)
				if (!iommu_iova_to_phys(translating, probe))
					return -ENXIO;
			if (n && prev_end == bus) {
				/* bus-contiguous with the previous piece: one segment for the FPGA */
				if (out && n <= max)
					out[n - 1].len += hi - lo;
			} else {
				if (out && n < max) {
					out[n].bus_addr = bus;
					out[n].len = hi - lo;
				}
				n++;
			}
			prev_end = bus + (hi - lo);
		}
		at += len;
		if (at >= end)
			break;
	}
	if (at < end)
		return -ERANGE; /* the table is shorter than the buffer says it is */
	return n;
}

long import_range(struct importer_file *f, struct direkt_import __user *uarg)
{
	struct direkt_segment *segs = NULL;
	struct direkt_import req;
	struct iommu_domain *dom;
	struct sg_table *sgt;
	struct import *imp;
	long n, wait;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved0 || req.reserved1 || req.pci_device > 31 || req.pci_function > 7 || !req.length)
		return -EINVAL;
	if (req.offset + req.length < req.offset)
		return -ERANGE;

	imp = kzalloc(sizeof(*imp), GFP_KERNEL);
	if (!imp)
		return -ENOMEM;
	imp->file = f;
	INIT_LIST_HEAD(&imp->revoked_link);
	/* The handle is reserved before anything is mapped: a move during the import is reported under it. */
	ret = xa_alloc(&f->imports, &imp->handle, NULL, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto free;
	}
	imp->pdev = pci_get_domain_bus_and_slot(req.pci_domain, req.pci_bus,
						PCI_DEVFN(req.pci_device, req.pci_function));
	if (!imp->pdev) {
		ret = -ENODEV;
		goto unreserve;
	}
	imp->dmabuf = dma_buf_get(req.dmabuf_fd);
	if (IS_ERR(imp->dmabuf)) {
		/* -EBADF: no such fd; -EINVAL: an fd that is not a dma-buf */
		ret = PTR_ERR(imp->dmabuf);
		ret = ret == -EBADF ? -EBADF : -EINVAL;
		goto put_pdev;
	}
	if (req.offset + req.length > imp->dmabuf->size) {
		ret = -ERANGE;
		goto put_buf;
	}
	/* Let the exporter coalesce contiguous pages into one segment (the FPGA has no segment limit). */
	if (dma_get_max_seg_size(&imp->pdev->dev) < UINT_MAX)
		dma_set_max_seg_size(&imp->pdev->dev, UINT_MAX);

	imp->attach = dma_buf_dynamic_attach(imp->dmabuf, &imp->pdev->dev, &importer_attach_ops, imp);
	if (IS_ERR(imp->attach)) {
		ret = exporter_errno(PTR_ERR(imp->attach));
		goto put_buf;
	}
	atomic_inc(&stat_attachments);

	/* Work the exporter has pending on the buffer (its fences) ends before the FPGA may touch it. */
	wait = dma_resv_wait_timeout(imp->dmabuf->resv, DMA_RESV_USAGE_READ, true, MAX_SCHEDULE_TIMEOUT);
	if (wait < 0) {
		ret = wait == -ERESTARTSYS ? -EINTR : exporter_errno(wait);
		goto detach;
	}
	ret = dma_resv_lock_interruptible(imp->dmabuf->resv, NULL);
	if (ret) {
		ret = -EINTR;
		goto detach;
	}
	sgt = dma_buf_map_attachment(imp->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		dma_resv_unlock(imp->dmabuf->resv);
		ret = exporter_errno(PTR_ERR(sgt));
		goto detach;
	}
	imp->sgt = sgt;
	atomic_inc(&stat_mappings);

	dom = iommu_get_domain_for_dev(&imp->pdev->dev);
	if (dom && !(dom->type & __IOMMU_DOMAIN_PAGING))
		dom = NULL;
	/* Collected under the lock, copied out after it: a user page fault never waits on it. */
	n = range_segments(imp, &req, dom, NULL, 0);
	if (n >= 0) {
		segs = kvcalloc(max_t(long, min_t(long, n, req.max_segments), 1), sizeof(*segs), GFP_KERNEL);
		/* same table, same lock hold: the first pass checked the translation already */
		n = segs ? range_segments(imp, &req, NULL, segs, req.max_segments) : -ENOMEM;
	}
	dma_resv_unlock(imp->dmabuf->resv);
	if (n < 0) {
		ret = n;
		goto detach;
	}
	req.nr_segments = n;
	if (n > req.max_segments) {
		ret = copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : -E2BIG;
		goto detach;
	}
	if (copy_to_user(u64_to_user_ptr(req.segments), segs, n * sizeof(*segs))) {
		ret = -EFAULT;
		goto detach;
	}
	req.handle = imp->handle;
	if (copy_to_user(uarg, &req, sizeof(req))) {
		ret = -EFAULT;
		goto detach;
	}
	kvfree(segs);
	/* Published last: RELEASE cannot free an import that is still being made. */
	xa_store(&f->imports, imp->handle, imp, GFP_KERNEL);
	return 0;

detach:
	kvfree(segs);
	xa_release(&f->imports, imp->handle);
	import_free(imp);
	return ret;
put_buf:
	dma_buf_put(imp->dmabuf);
put_pdev:
	pci_dev_put(imp->pdev);
unreserve:
	xa_release(&f->imports, imp->handle);
free:
	kfree(imp);
	return ret;
}

long import_release(struct importer_file *f, struct direkt_release __user *uarg)
{
	struct direkt_release req;
	struct import *imp;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	/* An import still being made holds only a reservation (xa_load sees NULL): not released here. */
	xa_lock(&f->imports);
	imp = xa_load(&f->imports, req.handle);
	if (imp)
		__xa_erase(&f->imports, req.handle);
	xa_unlock(&f->imports);
	if (!imp)
		return -ENOENT;
	import_free(imp);
	return 0;
}

long import_revocations(struct importer_file *f, struct direkt_revocations __user *uarg)
{
	struct direkt_revocations req;
	struct import *imp, *next;
	unsigned long flags;
	u32 *taken;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	req.max = min_t(u32, req.max, REVOCATIONS_PER_CALL);
	taken = kcalloc(max_t(u32, req.max, 1), sizeof(*taken), GFP_KERNEL);
	if (!taken)
		return -ENOMEM;
	req.count = 0;
	spin_lock_irqsave(&f->revoked_lock, flags);
	list_for_each_entry_safe(imp, next, &f->revoked, revoked_link) {
		if (req.count == req.max)
			break;
		taken[req.count++] = imp->handle;
		list_del_init(&imp->revoked_link);
	}
	req.more = !list_empty(&f->revoked);
	spin_unlock_irqrestore(&f->revoked_lock, flags);
	/* Handles taken from the list are not reported again even if the copy fails: the imports
	 * themselves stay revoked (RELEASE still frees them). */
	if (copy_to_user(u64_to_user_ptr(req.handles), taken, req.count * sizeof(*taken)) ||
	    copy_to_user(uarg, &req, sizeof(req))) {
		kfree(taken);
		return -EFAULT;
	}
	kfree(taken);
	return 0;
}

void import_file_init(struct importer_file *f)
{
	xa_init_flags(&f->imports, XA_FLAGS_ALLOC1);
	spin_lock_init(&f->revoked_lock);
	INIT_LIST_HEAD(&f->revoked);
}

void import_release_all(struct importer_file *f)
{
	struct import *imp;
	unsigned long handle;

	xa_for_each(&f->imports, handle, imp) {
		xa_erase(&f->imports, handle);
		import_free(imp);
	}
	xa_destroy(&f->imports);
}

void import_counts(struct direkt_stats3 *s)
{
	s->attachments = atomic_read(&stat_attachments);
	s->mappings = atomic_read(&stat_mappings);
	s->revoked = atomic_read(&stat_revoked);
}
