// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt importer, apertures: a process maps a byte range of the FPGA's memory BAR (the flat,
 * prefetchable BAR that exposes FPGA memory) as one VM_IO|VM_PFNMAP mapping, the form CUDA's
 * cuMemHostRegister(..., CU_MEMHOSTREGISTER_IOMEMORY) takes, on a kernel that forbids mapping
 * sysfs resourceN files. The BSP's driver owns the function; an aperture claims nothing, and is
 * granted only where the function's CSR range reads as a direkt bridge of the expected layout
 * version, so the module cannot be pointed at another device's memory.
 *
 * An aperture is a file of its own (an anon inode file, close-on-exec), not a handle of the
 * device's file: a mapping keeps it alive after its fd is closed, and it ends when both are gone.
 * Its mappings are linked to an address space of the aperture's own (an inode of a private pseudo
 * filesystem, set as the file's f_mapping), so unmap_mapping_range() on removal zaps exactly this
 * aperture's mappings: the anon inode is shared by every anon inode file of the kernel.
 *
 * One mutex serialises opens, mmaps, releases and the bus notifier: when the function is removed,
 * every mapping of its apertures is zapped before the kernel releases the BAR for reuse, later
 * accesses fault (SIGBUS) and later mmaps fail with ENODEV.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "internal.h"

#define APERTURE_FS_MAGIC 0x44524b41 /* "DRKA" */

/* A process that mapped an aperture: removal waits for an mmap it may still be in (see zap). */
struct aperture_mm {
	struct list_head link;        /* on aperture.mms */
	struct mm_struct *mm;         /* grabbed (the struct, not the address space) */
};

struct aperture {
	struct kref ref;              /* the file's, and the notifier's while it zaps */
	struct list_head link;        /* on aperture_all while the file lives */
	struct list_head zapping;     /* on the notifier's list while it zaps */
	struct pci_dev *pdev;         /* referenced while the aperture lives */
	struct inode *inode;          /* its i_mapping links every mapping of this aperture, and no other */
	struct list_head mms;         /* struct aperture_mm; frozen once removed is set */
	unsigned long pfn;            /* the range's first page frame */
	unsigned long pages;          /* its length in pages */
	bool wc;                      /* mapped write-combining (a prefetchable BAR), else uncached */
	bool removed;                 /* the function is gone: nothing is mapped any more */
};

static DEFINE_MUTEX(aperture_lock); /* aperture_all, aperture_total, each aperture's mms and removed */
static LIST_HEAD(aperture_all);
static u32 aperture_total;
static struct vfsmount *aperture_mnt;

static void aperture_free(struct kref *ref)
{
	struct aperture *ap = container_of(ref, struct aperture, ref);
	struct aperture_mm *m, *next;

	list_for_each_entry_safe(m, next, &ap->mms, link) {
		mmdrop(m->mm);
		kfree(m);
	}
	iput(ap->inode);
	pci_dev_put(ap->pdev);
	kfree(ap);
}

/* Every page is mapped by mmap itself; a fault means removal zapped them. */
static vm_fault_t aperture_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct aperture_vm_ops = {
	.fault = aperture_fault,
};

/* Called with aperture_lock held. */
static int note_mm(struct aperture *ap, struct mm_struct *mm)
{
	struct aperture_mm *m;

	list_for_each_entry(m, &ap->mms, link)
		if (m->mm == mm)
			return 0;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mmgrab(mm);
	m->mm = mm;
	list_add_tail(&m->link, &ap->mms);
	return 0;
}

static int aperture_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct aperture *ap = file->private_data;
	unsigned long pages = vma_pages(vma);
	int ret;

	/* a private mapping would copy a page on its first write and leave the BAR behind */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* FPGA memory holds data; nothing runs from it (and mprotect cannot make it executable later) */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (vma->vm_pgoff >= ap->pages || pages > ap->pages - vma->vm_pgoff)
		return -ERANGE;
	mutex_lock(&aperture_lock);
	if (ap->removed) {
		ret = -ENODEV;
		goto unlock;
	}
	ret = note_mm(ap, vma->vm_mm);
	if (ret)
		goto unlock;
	/*
	 * I/O memory without struct pages: never expanded by mremap, left out of core dumps, never
	 * executable. A prefetchable BAR promises that reads have no side effects and that writes may
	 * be merged, so the CPU's stores combine into bursts (write-combining); any other BAR is
	 * mapped uncached, one access per load or store, in program order. A GPU that reaches the
	 * range after cuMemHostRegister uses its bus address, never these page attributes.
	 */
	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_page_prot = ap->wc ? pgprot_writecombine(vma->vm_page_prot) : pgprot_noncached(vma->vm_page_prot);
	vma->vm_ops = &aperture_vm_ops;
	/*
	 * Every page now, not on fault: CUDA's registration looks the pages up in the page tables and
	 * does not fault them in. A failure here is undone by mmap's own error path (the range is
	 * unmapped there).
	 */
	ret = io_remap_pfn_range(vma, vma->vm_start, ap->pfn + vma->vm_pgoff, vma->vm_end - vma->vm_start,
				 vma->vm_page_prot);
unlock:
	mutex_unlock(&aperture_lock);
	return ret;
}

static int aperture_release(struct inode *inode, struct file *file)
{
	struct aperture *ap = file->private_data;

	mutex_lock(&aperture_lock);
	list_del(&ap->link);
	aperture_total--;
	mutex_unlock(&aperture_lock);
	kref_put(&ap->ref, aperture_free);
	return 0;
}

static const struct file_operations aperture_fops = {
	.owner = THIS_MODULE,
	.mmap = aperture_mmap,
	.release = aperture_release,
};

/* Whether [a, a + a_len) and [b, b + b_len) share a byte; neither wraps (both were checked). */
static bool overlap(u64 a, u64 a_len, u64 b, u64 b_len)
{
	return a < b + b_len && b < a + a_len;
}

/* The function, its identity and the aperture's range, with aperture_lock held: 0 or the errno. */
static int aperture_check(struct aperture *ap, struct direkt_aperture_open *req)
{
	void __iomem *regs;
	resource_size_t start;
	int ret;

	ret = bar_range_get(&req->csr, &ap->pdev);
	if (ret)
		return ret;
	if (!bar_decodes_memory(ap->pdev))
		return -EIO;
	/* the identity words only: the rest of the CSR stays unmapped */
	regs = pci_iomap_range(ap->pdev, req->csr.bar, req->csr.offset, DIREKT_CSR_MIN_BYTES);
	if (!regs)
		return -ENOMEM;
	ret = csr_identify(regs, req->version, &req->found_magic, &req->found_version);
	pci_iounmap(ap->pdev, regs);
	if (ret)
		return ret;
	ret = bar_range_check(ap->pdev, req->bar, req->offset, req->length);
	if (ret)
		return ret;
	if (req->bar == req->csr.bar && overlap(req->offset, req->length, req->csr.offset, req->csr.length))
		return -EADDRINUSE;
	start = pci_resource_start(ap->pdev, req->bar) + req->offset;
	/* a BAR of at least a page is aligned to its size (PCI), so this holds on any real function */
	if (!PAGE_ALIGNED(start))
		return -ENXIO;
	ap->pfn = start >> PAGE_SHIFT;
	ap->pages = req->length >> PAGE_SHIFT;
	ap->wc = pci_resource_flags(ap->pdev, req->bar) & IORESOURCE_PREFETCH;
	req->caching = ap->wc ? DIREKT_APERTURE_WC : DIREKT_APERTURE_UC;
	return 0;
}

long aperture_open(struct direkt_aperture_open __user *uarg)
{
	struct direkt_aperture_open req;
	struct aperture *ap;
	struct file *file;
	int fd, ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved || req.csr.offset % 4 || req.csr.length % 4 ||
	    req.csr.length < DIREKT_CSR_MIN_BYTES || req.bar >= PCI_STD_NUM_BARS || !req.length ||
	    !PAGE_ALIGNED(req.offset) || !PAGE_ALIGNED(req.length))
		return -EINVAL;
	req.fd = -1;
	req.found_magic = req.found_version = req.caching = 0;
	ap = kzalloc(sizeof(*ap), GFP_KERNEL);
	if (!ap)
		return -ENOMEM;
	kref_init(&ap->ref);
	INIT_LIST_HEAD(&ap->mms);
	ap->inode = alloc_anon_inode(aperture_mnt->mnt_sb);
	if (IS_ERR(ap->inode)) {
		ret = PTR_ERR(ap->inode);
		ap->inode = NULL;
		goto free;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto free;
	}
	/* Held from the lookup to the publication: a function removed meanwhile leaves no aperture. */
	mutex_lock(&aperture_lock);
	ret = aperture_check(ap, &req);
	if (ret)
		goto unlock;
	file = anon_inode_getfile("[direkt_aperture]", &aperture_fops, ap, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto unlock;
	}
	/* before the fd is installed, so no mmap links to the shared anon inode's mapping */
	file->f_mapping = ap->inode->i_mapping;
	list_add_tail(&ap->link, &aperture_all);
	aperture_total++;
	mutex_unlock(&aperture_lock);
	req.fd = fd;
	if (copy_to_user(uarg, &req, sizeof(req))) {
		/* never installed: the file's release takes the aperture back */
		fput(file);
		put_unused_fd(fd);
		return -EFAULT;
	}
	fd_install(fd, file);
	return 0;

unlock:
	mutex_unlock(&aperture_lock);
	put_unused_fd(fd);
free:
	kref_put(&ap->ref, aperture_free); /* the pci_dev (if found) and the inode go with it */
	/* what the identity registers read goes back with the refusal, for the caller's message */
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : ret;
}

u32 aperture_count(void)
{
	u32 n;

	mutex_lock(&aperture_lock);
	n = aperture_total;
	mutex_unlock(&aperture_lock);
	return n;
}

/*
 * Zaps every mapping of a removed aperture. mmap fills the page tables before the kernel links
 * the new mapping to the address space, so an mmap that passed its removed check just before the
 * removal may link its mapping only after the first zap: taking each mapping process's mmap lock
 * waits for such an mmap to finish (mmap holds that lock throughout), and the second zap then
 * finds its mapping. No new mmap starts (removed is set), and a fork or mremap links the new
 * mapping before it copies or moves page table entries, so the zap reaches those too.
 */
static void zap(struct aperture *ap)
{
	struct aperture_mm *m;

	unmap_mapping_range(ap->inode->i_mapping, 0, 0, 1);
	list_for_each_entry(m, &ap->mms, link) {
		mmap_read_lock(m->mm);
		mmap_read_unlock(m->mm);
	}
	unmap_mapping_range(ap->inode->i_mapping, 0, 0, 1);
}

/*
 * A removed function's apertures are zapped now: REMOVED_DEVICE comes after the function left the
 * bus (no open finds it any more) and before its BARs are released for another device. The lock is
 * dropped while zapping, since an mmap waits for it under its mmap lock; each aperture is held by
 * a reference meanwhile, and an aperture whose file is released meanwhile is freed by the last put.
 */
static int aperture_bus_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);
	struct aperture *ap, *next;
	LIST_HEAD(removed);

	if (action != BUS_NOTIFY_REMOVED_DEVICE)
		return NOTIFY_DONE;
	mutex_lock(&aperture_lock);
	list_for_each_entry(ap, &aperture_all, link) {
		if (ap->pdev == pdev && !ap->removed) {
			ap->removed = true;
			kref_get(&ap->ref);
			list_add_tail(&ap->zapping, &removed);
		}
	}
	mutex_unlock(&aperture_lock);
	list_for_each_entry_safe(ap, next, &removed, zapping) {
		zap(ap);
		list_del(&ap->zapping);
		kref_put(&ap->ref, aperture_free);
	}
	return NOTIFY_OK;
}

static struct notifier_block aperture_bus_nb = {
	.notifier_call = aperture_bus_notify,
};

static int aperture_fs_init_context(struct fs_context *fc)
{
	return init_pseudo(fc, APERTURE_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * Holds only the apertures' inodes, never mounted where a path reaches it. No owner: the mount
 * would hold the module, which unmounts it at exit, after every aperture is gone (each file holds
 * the module).
 */
static struct file_system_type aperture_fs = {
	.name = "direkt_aperture",
	.init_fs_context = aperture_fs_init_context,
	.kill_sb = kill_anon_super,
};

int aperture_init(void)
{
	int ret;

	aperture_mnt = kern_mount(&aperture_fs);
	if (IS_ERR(aperture_mnt))
		return PTR_ERR(aperture_mnt);
	ret = bus_register_notifier(&pci_bus_type, &aperture_bus_nb);
	if (ret)
		kern_unmount(aperture_mnt);
	return ret;
}

/* After the notifier is gone (it waits for a call in progress) no aperture is left to free. */
void aperture_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &aperture_bus_nb);
	kern_unmount(aperture_mnt);
}
