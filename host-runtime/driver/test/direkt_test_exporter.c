// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt_test_exporter: a test-only module for the importer's VM test (never for a real system).
 *
 * It exports dma-bufs as a GPU driver does: system memory in physically contiguous pieces placed
 * in shuffled order (so the importer sees a fragmented table), or memory of ivshmem's BAR 2 (no
 * struct pages, like a GPU's BAR1), mapped per piece with dma_map_resource; static or dynamic
 * (pin/unpin), with switches that make it refuse or fail the way exporters do. It also drives
 * QEMU's edu device, which plays the FPGA: the importer maps buffers for edu, and edu's DMA engine
 * reads the returned bus addresses back, through the IOMMU when there is one; and edu reads
 * ivshmem's BAR 2 peer to peer, where the aperture cases wrote through a process's mapping.
 */
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/io.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "direkt_test_exporter.h"

#define EDU_VENDOR 0x1234
#define EDU_DEVICE 0x11e8
#define EDU_DMA_SRC 0x80
#define EDU_DMA_DST 0x88
#define EDU_DMA_COUNT 0x90
#define EDU_DMA_CMD 0x98
#define EDU_DMA_RUN 0x1
#define EDU_DMA_TO_RAM 0x2
#define EDU_BUFFER 0x40000 /* edu's 4 KB DMA buffer, in edu's own address space */
#define EDU_BUFFER_SIZE 4096
/* edu rejects a DMA that ends exactly at its buffer's end (QEMU 7.2 compares with <): stay below */
#define EDU_DMA_MAX 2048

#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110
#define IVSHMEM_BAR 2

static atomic_t stat_buffers = ATOMIC_INIT(0);
static atomic_t stat_attachments = ATOMIC_INIT(0);
static atomic_t stat_mappings = ATOMIC_INIT(0);
static atomic_t stat_pins = ATOMIC_INIT(0);
static atomic_t last_max_seg_size = ATOMIC_INIT(0);
static struct workqueue_struct *fence_wq; /* signals the fences; drained at exit */

static struct {
	struct pci_dev *pdev;
	void __iomem *mmio;
	void *poison, *result;           /* coherent buffers of EDU_BUFFER_SIZE */
	dma_addr_t poison_dma, result_dma;
	struct mutex lock;               /* one DMA read at a time */
} edu;

static struct pci_dev *ivshmem;      /* enabled on first use; never bound */

struct dtx_buf {
	u32 kind, flags, seed;
	u64 size, piece;
	unsigned int n, order;
	struct page **pages;             /* DTX_SYSMEM: piece i of the buffer */
	phys_addr_t bar_phys;            /* DTX_BAR: the buffer's first byte */
};

static const struct dma_buf_ops dtx_static_ops;
static const struct dma_buf_ops dtx_dynamic_ops;

static int dtx_attach(struct dma_buf *dmabuf, struct dma_buf_attachment *a)
{
	struct dtx_buf *b = dmabuf->priv;

	/* BAR memory reaches another device only peer-to-peer, as with a GPU's BAR1. */
	if ((b->flags & DTX_REFUSE) || (b->kind == DTX_BAR && !a->peer2peer))
		return -EOPNOTSUPP;
	atomic_inc(&stat_attachments);
	return 0;
}

static void dtx_detach(struct dma_buf *dmabuf, struct dma_buf_attachment *a)
{
	atomic_dec(&stat_attachments);
}

static int dtx_pin(struct dma_buf_attachment *a)
{
	atomic_inc(&stat_pins);
	return 0;
}

static void dtx_unpin(struct dma_buf_attachment *a)
{
	atomic_dec(&stat_pins);
}

static void bar_unmap(struct dtx_buf *b, struct dma_buf_attachment *a, struct sg_table *sgt, unsigned int mapped,
		      enum dma_data_direction dir)
{
	struct scatterlist *sg;
	unsigned int i;

	if (b->flags & DTX_RAW)
		return;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i == mapped)
			break;
		dma_unmap_resource(a->dev, sg_dma_address(sg), sg_dma_len(sg), dir, 0);
	}
}

static struct sg_table *dtx_map(struct dma_buf_attachment *a, enum dma_data_direction dir)
{
	struct dtx_buf *b = a->dmabuf->priv;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	int ret;

	atomic_set(&last_max_seg_size, dma_get_max_seg_size(a->dev));
	if (b->flags & DTX_MAP_EIO)
		return ERR_PTR(-EIO);
	if (b->flags & DTX_MAP_ENOSPC)
		return ERR_PTR(-ENOSPC);
	if (b->flags & DTX_MAP_ENOMEM)
		return ERR_PTR(-ENOMEM);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, b->n, GFP_KERNEL);
	if (ret)
		goto free;
	if (b->kind == DTX_SYSMEM) {
		for_each_sgtable_sg(sgt, sg, i)
			sg_set_page(sg, b->pages[i], b->piece, 0);
		ret = dma_map_sgtable(a->dev, sgt, dir, 0);
		if (ret)
			goto table;
	} else {
		/* No struct pages: only the DMA side of the table is filled, as GPU exporters do. */
		for_each_sgtable_dma_sg(sgt, sg, i) {
			phys_addr_t phys = b->bar_phys + (u64)i * b->piece;
			dma_addr_t addr = phys;

			if (!(b->flags & DTX_RAW)) {
				addr = dma_map_resource(a->dev, phys, b->piece, dir, 0);
				if (dma_mapping_error(a->dev, addr)) {
					bar_unmap(b, a, sgt, i, dir);
					ret = -EIO;
					goto table;
				}
			}
			sg_dma_address(sg) = addr;
			sg_dma_len(sg) = b->piece;
		}
	}
	atomic_inc(&stat_mappings);
	return sgt;
table:
	sg_free_table(sgt);
free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void dtx_unmap(struct dma_buf_attachment *a, struct sg_table *sgt, enum dma_data_direction dir)
{
	struct dtx_buf *b = a->dmabuf->priv;

	if (b->kind == DTX_SYSMEM)
		dma_unmap_sgtable(a->dev, sgt, dir, 0);
	else
		bar_unmap(b, a, sgt, b->n, dir);
	sg_free_table(sgt);
	kfree(sgt);
	atomic_dec(&stat_mappings);
}

static void dtx_free(struct dtx_buf *b)
{
	unsigned int i;

	if (b->pages) {
		for (i = 0; i < b->n; i++)
			if (b->pages[i])
				__free_pages(b->pages[i], b->order);
		kvfree(b->pages);
	}
	kfree(b);
}

static void dtx_release(struct dma_buf *dmabuf)
{
	dtx_free(dmabuf->priv);
	atomic_dec(&stat_buffers);
}

static const struct dma_buf_ops dtx_static_ops = {
	.attach = dtx_attach,
	.detach = dtx_detach,
	.map_dma_buf = dtx_map,
	.unmap_dma_buf = dtx_unmap,
	.release = dtx_release,
};

static const struct dma_buf_ops dtx_dynamic_ops = {
	.attach = dtx_attach,
	.detach = dtx_detach,
	.pin = dtx_pin,
	.unpin = dtx_unpin,
	.map_dma_buf = dtx_map,
	.unmap_dma_buf = dtx_unmap,
	.release = dtx_release,
};

static int ivshmem_bar(phys_addr_t *phys, u64 *size)
{
	int ret;

	if (!ivshmem) {
		ivshmem = pci_get_device(IVSHMEM_VENDOR, IVSHMEM_DEVICE, NULL);
		if (!ivshmem)
			return -ENODEV;
		ret = pci_enable_device_mem(ivshmem);
		if (ret) {
			pci_dev_put(ivshmem);
			ivshmem = NULL;
			return ret;
		}
	}
	*phys = pci_resource_start(ivshmem, IVSHMEM_BAR);
	*size = pci_resource_len(ivshmem, IVSHMEM_BAR);
	return 0;
}

/* Fills the buffer with DTX_PATTERN(seed, word index); pieces are shuffled first (DTX_SYSMEM). */
static int dtx_fill(struct dtx_buf *b, u64 __user *phys_out)
{
	u64 words = b->piece / 4, w;
	u32 rng = b->seed | 1;
	unsigned int i;

	if (b->kind == DTX_SYSMEM) {
		for (i = 0; i < b->n; i++) {
			b->pages[i] = alloc_pages(GFP_KERNEL, b->order);
			if (!b->pages[i])
				return -ENOMEM;
		}
		for (i = b->n - 1; i > 0; i--) {
			unsigned int j;

			rng = rng * 1664525u + 1013904223u;
			j = rng % (i + 1);
			swap(b->pages[i], b->pages[j]);
		}
		for (i = 0; i < b->n; i++) {
			u32 *va = page_address(b->pages[i]);

			for (w = 0; w < words; w++)
				va[w] = DTX_PATTERN(b->seed, i * words + w);
			if (phys_out && put_user((u64)page_to_phys(b->pages[i]), phys_out + i))
				return -EFAULT;
		}
	} else {
		void __iomem *va = ioremap(b->bar_phys, b->size);

		if (!va)
			return -ENOMEM;
		for (w = 0; w < b->size / 4; w++)
			iowrite32(DTX_PATTERN(b->seed, w), va + 4 * w);
		iounmap(va);
		for (i = 0; phys_out && i < b->n; i++)
			if (put_user((u64)(b->bar_phys + (u64)i * b->piece), phys_out + i))
				return -EFAULT;
	}
	return 0;
}

static long dtx_create(struct dtx_create __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct dtx_create req;
	struct dma_buf *dmabuf;
	struct dtx_buf *b;
	phys_addr_t bar;
	u64 bar_size;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.kind > DTX_BAR || req.piece < PAGE_SIZE || !is_power_of_2(req.piece) ||
	    req.piece > (PAGE_SIZE << (MAX_ORDER - 1)) || !req.size || req.size % req.piece ||
	    req.size / req.piece > DTX_MAX_PIECES)
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->kind = req.kind;
	b->flags = req.flags;
	b->seed = req.seed;
	b->size = req.size;
	b->piece = req.piece;
	b->n = req.size / req.piece;
	b->order = ilog2(req.piece / PAGE_SIZE);
	if (b->kind == DTX_SYSMEM) {
		b->pages = kvcalloc(b->n, sizeof(*b->pages), GFP_KERNEL);
		ret = b->pages ? 0 : -ENOMEM;
	} else {
		ret = ivshmem_bar(&bar, &bar_size);
		if (!ret && (req.bar_offset % req.piece || req.bar_offset + req.size > bar_size))
			ret = -ERANGE;
		b->bar_phys = bar + req.bar_offset;
	}
	if (!ret)
		ret = dtx_fill(b, req.phys ? u64_to_user_ptr(req.phys) : NULL);
	if (ret) {
		dtx_free(b);
		return ret;
	}
	info.ops = (b->flags & DTX_DYNAMIC) ? &dtx_dynamic_ops : &dtx_static_ops;
	info.size = b->size;
	info.flags = O_RDWR;
	info.priv = b;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		dtx_free(b);
		return PTR_ERR(dmabuf);
	}
	atomic_inc(&stat_buffers);
	req.fd = dma_buf_fd(dmabuf, 0);
	if (req.fd < 0) {
		ret = req.fd;
		dma_buf_put(dmabuf);
		return ret;
	}
	if (copy_to_user(uarg, &req, sizeof(req)))
		return -EFAULT; /* the fd stays open: the caller's process owns it */
	return 0;
}

static struct dma_buf *dtx_get(s32 fd)
{
	struct dma_buf *dmabuf = dma_buf_get(fd);

	if (IS_ERR(dmabuf))
		return dmabuf;
	if (dmabuf->ops != &dtx_static_ops && dmabuf->ops != &dtx_dynamic_ops) {
		dma_buf_put(dmabuf);
		return ERR_PTR(-EINVAL);
	}
	return dmabuf;
}

static long dtx_move(struct dtx_fd __user *uarg)
{
	struct dma_buf *dmabuf;
	struct dtx_fd req;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	dmabuf = dtx_get(req.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	dma_resv_lock(dmabuf->resv, NULL);
	dma_buf_move_notify(dmabuf);
	dma_resv_unlock(dmabuf->resv);
	dma_buf_put(dmabuf);
	return 0;
}

struct dtx_fence {
	struct dma_fence base;
	spinlock_t lock;
	struct delayed_work signal;
};

static const char *dtx_fence_name(struct dma_fence *f)
{
	return "direkt_test_exporter";
}

static const struct dma_fence_ops dtx_fence_ops = {
	.get_driver_name = dtx_fence_name,
	.get_timeline_name = dtx_fence_name,
};

static void dtx_fence_signal(struct work_struct *work)
{
	struct dtx_fence *f = container_of(to_delayed_work(work), struct dtx_fence, signal);

	dma_fence_signal(&f->base);
	dma_fence_put(&f->base);
}

static long dtx_add_fence(struct dtx_fd __user *uarg)
{
	struct dma_buf *dmabuf;
	struct dtx_fence *f;
	struct dtx_fd req;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.ms > 10000)
		return -EINVAL;
	dmabuf = dtx_get(req.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &dtx_fence_ops, &f->lock, dma_fence_context_alloc(1), 1);
	INIT_DELAYED_WORK(&f->signal, dtx_fence_signal);
	dma_resv_lock(dmabuf->resv, NULL);
	ret = dma_resv_reserve_fences(dmabuf->resv, 1);
	if (!ret)
		dma_resv_add_fence(dmabuf->resv, &f->base, DMA_RESV_USAGE_WRITE);
	dma_resv_unlock(dmabuf->resv);
	dma_buf_put(dmabuf);
	if (ret) {
		dma_fence_put(&f->base);
		return ret;
	}
	/* the reference from dma_fence_init is the work's: dropped once signalled */
	queue_delayed_work(fence_wq, &f->signal, msecs_to_jiffies(req.ms));
	return 0;
}

static int edu_dma(u64 src, u64 dst, u32 len, bool to_ram)
{
	unsigned long timeout = jiffies + 10 * HZ;

	writeq(src, edu.mmio + EDU_DMA_SRC);
	writeq(dst, edu.mmio + EDU_DMA_DST);
	writeq(len, edu.mmio + EDU_DMA_COUNT);
	writeq(EDU_DMA_RUN | (to_ram ? EDU_DMA_TO_RAM : 0), edu.mmio + EDU_DMA_CMD);
	/* edu finishes a DMA 100 ms (virtual time) after the command: sleep that long first */
	msleep(100);
	while (readq(edu.mmio + EDU_DMA_CMD) & EDU_DMA_RUN) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		usleep_range(1000, 2000);
	}
	return 0;
}

/* edu reads [bus, bus + len) into data: its buffer is poisoned first, so a read that faults cannot pass. */
static int edu_read(u64 bus, void __user *data, u32 len)
{
	int ret;

	mutex_lock(&edu.lock);
	memset(edu.poison, 0xa5, EDU_BUFFER_SIZE);
	ret = edu_dma(edu.poison_dma, EDU_BUFFER, len, false);
	if (!ret)
		ret = edu_dma(bus, EDU_BUFFER, len, false);
	if (!ret)
		ret = edu_dma(EDU_BUFFER, edu.result_dma, len, true);
	if (!ret && copy_to_user(data, edu.result, len))
		ret = -EFAULT;
	mutex_unlock(&edu.lock);
	return ret;
}

static long dtx_dma_read(struct dtx_dma_read __user *uarg)
{
	struct dtx_dma_read req;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (!req.len || req.len > EDU_DMA_MAX || req.reserved)
		return -EINVAL;
	if (!edu.pdev)
		return -ENODEV;
	return edu_read(req.bus, u64_to_user_ptr(req.data), req.len);
}

/* edu reads ivshmem's BAR memory peer to peer, mapped for it as an FPGA's own driver would map it. */
static long dtx_bar_dma_read(struct dtx_bar_read __user *uarg)
{
	struct dtx_bar_read req;
	phys_addr_t bar;
	dma_addr_t bus;
	u64 size;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (!req.len || req.len > EDU_DMA_MAX || req.reserved)
		return -EINVAL;
	if (!edu.pdev)
		return -ENODEV;
	ret = ivshmem_bar(&bar, &size);
	if (ret)
		return ret;
	if (req.bar_offset >= size || req.len > size - req.bar_offset)
		return -ERANGE;
	bus = dma_map_resource(&edu.pdev->dev, bar + req.bar_offset, req.len, DMA_TO_DEVICE, 0);
	if (dma_mapping_error(&edu.pdev->dev, bus))
		return -EIO;
	ret = edu_read(bus, u64_to_user_ptr(req.data), req.len);
	dma_unmap_resource(&edu.pdev->dev, bus, req.len, DMA_TO_DEVICE, 0);
	req.bus = bus;
	if (!ret && copy_to_user(uarg, &req, sizeof(req)))
		ret = -EFAULT;
	return ret;
}

static long dtx_info(struct dtx_info __user *uarg)
{
	struct dtx_info info = {
		.buffers = atomic_read(&stat_buffers),
		.attachments = atomic_read(&stat_attachments),
		.mappings = atomic_read(&stat_mappings),
		.pins = atomic_read(&stat_pins),
		.max_seg_size = atomic_read(&last_max_seg_size),
	};
	phys_addr_t bar;
	u64 size;

	if (!edu.pdev)
		return -ENODEV;
	info.edu_domain = pci_domain_nr(edu.pdev->bus);
	info.edu_bus = edu.pdev->bus->number;
	info.edu_device = PCI_SLOT(edu.pdev->devfn);
	info.edu_function = PCI_FUNC(edu.pdev->devfn);
	if (!ivshmem_bar(&bar, &size)) {
		info.bar_phys = bar;
		info.bar_size = size;
	}
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long dtx_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DTX_IOC_CREATE:
		return dtx_create(uarg);
	case DTX_IOC_MOVE:
		return dtx_move(uarg);
	case DTX_IOC_FENCE:
		return dtx_add_fence(uarg);
	case DTX_IOC_DMA_READ:
		return dtx_dma_read(uarg);
	case DTX_IOC_BAR_DMA_READ:
		return dtx_bar_dma_read(uarg);
	case DTX_IOC_INFO:
		return dtx_info(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations dtx_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = dtx_ioctl,
};

static struct miscdevice dtx_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "direkt_test_exporter",
	.fops = &dtx_fops,
	.mode = 0600,
};

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	if (edu.pdev)
		return -EBUSY;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	edu.mmio = pcim_iomap(pdev, 0, 0);
	if (!edu.mmio)
		return -ENOMEM;
	edu.poison = dmam_alloc_coherent(&pdev->dev, EDU_BUFFER_SIZE, &edu.poison_dma, GFP_KERNEL);
	edu.result = dmam_alloc_coherent(&pdev->dev, EDU_BUFFER_SIZE, &edu.result_dma, GFP_KERNEL);
	if (!edu.poison || !edu.result)
		return -ENOMEM;
	pci_set_master(pdev);
	edu.pdev = pdev;
	return 0;
}

static void edu_remove(struct pci_dev *pdev)
{
	edu.pdev = NULL;
}

static const struct pci_device_id edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_ids);

static struct pci_driver edu_driver = {
	.name = "direkt_test_edu",
	.id_table = edu_ids,
	.probe = edu_probe,
	.remove = edu_remove,
};

static int __init dtx_init(void)
{
	int ret;

	mutex_init(&edu.lock);
	fence_wq = alloc_workqueue("direkt_test_fences", 0, 0);
	if (!fence_wq)
		return -ENOMEM;
	ret = pci_register_driver(&edu_driver);
	if (ret)
		goto wq;
	ret = misc_register(&dtx_misc);
	if (!ret)
		return 0;
	pci_unregister_driver(&edu_driver);
wq:
	destroy_workqueue(fence_wq);
	return ret;
}

static void __exit dtx_exit(void)
{
	destroy_workqueue(fence_wq); /* every fence signalled before the code goes */
	misc_deregister(&dtx_misc);
	pci_unregister_driver(&edu_driver);
	if (ivshmem) {
		pci_disable_device(ivshmem);
		pci_dev_put(ivshmem);
	}
}

module_init(dtx_init);
module_exit(dtx_exit);

MODULE_DESCRIPTION("direkt: test-only dma-buf exporter and edu DMA reader for the importer's VM test");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
