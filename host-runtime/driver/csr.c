// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * direkt importer, CSR windows: a process reads and writes the 32-bit registers of direkt's bridge
 * on an FPGA whose PCI function the BSP's driver owns. A window maps only the range the overlay's
 * manifest names (board.csr) and is kept only when its MAGIC and VERSION registers read as a
 * direkt bridge of the layout version the caller expects, so it cannot be pointed at another
 * device's registers. Accesses are single aligned 32-bit reads and writes inside the window.
 *
 * One mutex serialises every window's open, access and close and the bus notifier: a window is
 * unmapped when its PCI function is removed, before the kernel releases the BAR for reuse.
 */
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "internal.h"

struct csr_window {
	struct list_head link;        /* on csr_all */
	struct pci_dev *pdev;         /* referenced while the window lives */
	void __iomem *regs;           /* the range only; NULL once the function is removed */
	u64 length;
};

static DEFINE_MUTEX(csr_lock);    /* every window of every file: maps, handles, csr_all, csr_count */
static LIST_HEAD(csr_all);
static u32 csr_count;

/* Called with csr_lock held, the window already out of its file's handles. */
static void window_free(struct csr_window *w)
{
	list_del(&w->link);
	if (w->regs)
		pci_iounmap(w->pdev, w->regs);
	pci_dev_put(w->pdev);
	kfree(w);
	csr_count--;
}

/*
 * The identity registers at regs (the start of a CSR range), read once each: 0, or why the range
 * is not a direkt bridge of that version. What they read goes to *found_magic and *found_version.
 */
int csr_identify(void __iomem *regs, u32 version, u32 *found_magic, u32 *found_version)
{
	*found_magic = ioread32(regs + DIREKT_CSR_MAGIC_OFFSET);
	*found_version = ioread32(regs + DIREKT_CSR_VERSION_OFFSET);
	if (*found_magic == ~0u)
		return -EIO; /* no answer: a function in reset, powered down or gone reads all ones */
	if (*found_magic != DIREKT_CSR_MAGIC)
		return -EMEDIUMTYPE;
	if (*found_version != version)
		return -EPROTO;
	return 0;
}

long csr_open(struct importer_file *f, struct direkt_csr_open __user *uarg)
{
	struct direkt_csr_open req;
	struct csr_window *w;
	int ret;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved || req.csr.offset % 4 || req.csr.length % 4 ||
	    req.csr.length < DIREKT_CSR_MIN_BYTES)
		return -EINVAL;
	req.handle = req.found_magic = req.found_version = 0;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->length = req.csr.length;
	/* Held from the lookup to the publication: a function removed meanwhile leaves no window. */
	mutex_lock(&csr_lock);
	ret = bar_range_get(&req.csr, &w->pdev);
	if (ret)
		goto unlock;
	if (!bar_decodes_memory(w->pdev)) {
		ret = -EIO;
		goto put;
	}
	w->regs = pci_iomap_range(w->pdev, req.csr.bar, req.csr.offset, req.csr.length);
	if (!w->regs) {
		ret = -ENOMEM;
		goto put;
	}
	ret = csr_identify(w->regs, req.version, &req.found_magic, &req.found_version);
	if (ret)
		goto unmap;
	ret = xa_alloc(&f->csr_windows, &req.handle, w, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto unmap;
	}
	list_add_tail(&w->link, &csr_all);
	csr_count++;
	mutex_unlock(&csr_lock);
	if (copy_to_user(uarg, &req, sizeof(req))) {
		mutex_lock(&csr_lock);
		if (xa_erase(&f->csr_windows, req.handle) == w)
			window_free(w);
		mutex_unlock(&csr_lock);
		return -EFAULT;
	}
	return 0;

unmap:
	pci_iounmap(w->pdev, w->regs);
put:
	pci_dev_put(w->pdev);
unlock:
	mutex_unlock(&csr_lock);
	kfree(w);
	/* what the identity registers read goes back with the refusal, for the caller's message */
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : ret;
}

long csr_access(struct importer_file *f, struct direkt_csr_io __user *uarg, bool write)
{
	struct direkt_csr_io req;
	struct csr_window *w;
	long ret = 0;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.offset % 4)
		return -EINVAL;
	mutex_lock(&csr_lock);
	w = xa_load(&f->csr_windows, req.handle);
	if (!w)
		ret = -ENOENT;
	else if (req.offset >= w->length) /* both multiples of 4: the word ends inside */
		ret = -ERANGE;
	else if (!w->regs)
		ret = -ENODEV;
	else if (write)
		iowrite32(req.value, w->regs + req.offset);
	else
		req.value = ioread32(w->regs + req.offset);
	mutex_unlock(&csr_lock);
	if (!ret && !write && copy_to_user(uarg, &req, sizeof(req)))
		ret = -EFAULT;
	return ret;
}

long csr_close(struct importer_file *f, struct direkt_csr_close __user *uarg)
{
	struct direkt_csr_close req;
	struct csr_window *w;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	mutex_lock(&csr_lock);
	w = xa_erase(&f->csr_windows, req.handle);
	if (w)
		window_free(w);
	mutex_unlock(&csr_lock);
	return w ? 0 : -ENOENT;
}

void csr_file_init(struct importer_file *f)
{
	xa_init_flags(&f->csr_windows, XA_FLAGS_ALLOC1);
}

void csr_close_all(struct importer_file *f)
{
	struct csr_window *w;
	unsigned long handle;

	mutex_lock(&csr_lock);
	xa_for_each(&f->csr_windows, handle, w) {
		xa_erase(&f->csr_windows, handle);
		window_free(w);
	}
	mutex_unlock(&csr_lock);
	xa_destroy(&f->csr_windows);
}

u32 csr_window_count(void)
{
	u32 n;

	mutex_lock(&csr_lock);
	n = csr_count;
	mutex_unlock(&csr_lock);
	return n;
}

/*
 * A removed function's windows are unmapped now (REMOVED_DEVICE comes after the function left the
 * bus, so no open can find it any more, and before its BARs are released for another device); the
 * handles stay until closed and their accesses fail with ENODEV.
 */
static int csr_bus_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);
	struct csr_window *w;

	if (action != BUS_NOTIFY_REMOVED_DEVICE)
		return NOTIFY_DONE;
	mutex_lock(&csr_lock);
	list_for_each_entry(w, &csr_all, link) {
		if (w->pdev == pdev && w->regs) {
			pci_iounmap(pdev, w->regs);
			w->regs = NULL;
		}
	}
	mutex_unlock(&csr_lock);
	return NOTIFY_OK;
}

static struct notifier_block csr_bus_nb = {
	.notifier_call = csr_bus_notify,
};

int csr_init(void)
{
	return bus_register_notifier(&pci_bus_type, &csr_bus_nb);
}

void csr_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &csr_bus_nb);
}
