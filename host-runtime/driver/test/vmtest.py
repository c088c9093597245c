#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The importer's VM test: builds direkt_importer.ko, the test-only exporter and the test program,
boots Debian's kernel under QEMU (TCG) with a busybox initramfs, and runs the test inside.

Boots: ``noiommu`` (bus address = physical address), ``iommu`` (an emulated Intel IOMMU, strict
invalidation: every address is an IOVA), and ``java`` (the Java importer, a jlinked runtime,
against the same device; needs ``--java-bundle``). QEMU's ``edu`` device plays the FPGA (its DMA
engine reads the returned bus addresses) and ``ivshmem-plain`` gives BAR memory without struct
pages. That BAR also stands in for the FPGA's BAR in the CSR-window and aperture cases: its
backing file is filled as vmtest_bar.h says before each boot, and checked after it against the words
the test reports writing (through CSR windows, and through an aperture's mapping). Each boot's serial console is kept under the work directory; the counts are
printed as ``importer VM test: N passed, N failed``.
"""
import argparse
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DRIVER = HERE.parent

BOOT_TIMEOUT_S = 600
MARKS = ("BUG", "WARNING", "Oops", "Call Trace", "general protection")
BAR_BYTES = 8 << 20
CSR_MAGIC = 0x44524B54

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mode=$(sed -n 's/.*direkt\.mode=\([a-z]*\).*/\1/p' /proc/cmdline)
echo "vm: booted, mode $mode, kernel $(uname -r)"
if insmod /lib/direkt_importer.ko && insmod /lib/direkt_test_exporter.ko; then
  echo "PASS modules load"
  case "$mode" in
    java) /java/run.sh ;;
    *) /bin/vmtest "$mode" ;;
  esac
  if rmmod direkt_test_exporter && rmmod direkt_importer; then echo "PASS modules unload"; else echo "FAIL modules unload"; fi
else
  echo "FAIL modules load: insmod failed"
fi
if dmesg | grep -E '__MARKS__' > /tmp/marks; then
  echo "FAIL kernel log: $(wc -l < /tmp/marks) lines name a kernel problem:"
  dmesg | tail -n 60
else
  echo "PASS kernel log holds no __WORDS__"
fi
echo "vm: done"
poweroff -f
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def build(work: Path) -> dict:
    """The modules and the test program, built with -Werror against the VM kernel's headers."""
    kdir = sh([str(ROOT / "scripts/kernel.sh"), "headers"], stdout=subprocess.PIPE).stdout.strip()
    vmlinuz, busybox = sh([str(ROOT / "scripts/kernel.sh"), "vm"], stdout=subprocess.PIPE).stdout.split()
    log = work / "build.log"
    with open(log, "w") as out:
        for m in (DRIVER, HERE):
            try:
                sh(["make", "-C", kdir, f"M={m}", "modules"], stdout=out, stderr=subprocess.STDOUT)
            except subprocess.CalledProcessError:
                sys.exit(f"vmtest: building the module in {m} failed (log: {log})")
        try:
            sh(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{DRIVER}", f"-I{HERE}",
                str(HERE / "vmtest.c"), "-o", str(work / "vmtest")], stdout=out, stderr=subprocess.STDOUT)
        except subprocess.CalledProcessError:
            sys.exit(f"vmtest: building vmtest.c failed (log: {log})")
    return {"kernel": Path(vmlinuz), "busybox": Path(busybox), "kdir": kdir,
            "importer": DRIVER / "direkt_importer.ko", "exporter": HERE / "direkt_test_exporter.ko",
            "vmtest": work / "vmtest"}


class Cpio:
    """A newc archive (what the kernel unpacks as its initramfs), written without the cpio tool."""

    def __init__(self, out):
        self.out = out
        self.ino = 1

    def _entry(self, name: str, mode: int, data: bytes = b""):
        name_b = name.encode() + b"\0"
        head = "070701" + "".join(f"{v:08x}" for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
        self.ino += 1
        self.out.write(head.encode() + name_b)
        self.out.write(b"\0" * (-(110 + len(name_b)) % 4))
        self.out.write(data)
        self.out.write(b"\0" * (-len(data) % 4))

    def dir(self, name):
        self._entry(name, 0o040755)

    def file(self, name, data: bytes, mode=0o644):
        self._entry(name, 0o100000 | mode, data)

    def symlink(self, name, target):
        self._entry(name, 0o120777, target.encode())

    def tree(self, src: Path, dest: str):
        """src's files under dest, symlinks kept, modes kept."""
        self.dir(dest)
        for d, dirs, files in os.walk(src):
            rel = os.path.relpath(d, src)
            base = dest if rel == "." else f"{dest}/{rel}"
            for n in sorted(dirs):
                p = Path(d) / n
                if p.is_symlink():
                    self.symlink(f"{base}/{n}", os.readlink(p))
                else:
                    self.dir(f"{base}/{n}")
            for n in sorted(files):
                p = Path(d) / n
                if p.is_symlink():
                    self.symlink(f"{base}/{n}", os.readlink(p))
                else:
                    self.file(f"{base}/{n}", p.read_bytes(), p.stat().st_mode & 0o777)

    def close(self):
        self._entry("TRAILER!!!", 0)


def shared_libraries(binaries) -> set:
    """The host's shared libraries the binaries load (ldd), for a root without a distribution."""
    libs = set()
    for b in binaries:
        r = subprocess.run(["ldd", str(b)], text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for line in r.stdout.splitlines():
            m = re.search(r"(/\S+) \(0x", line)
            if m:
                libs.add(Path(m.group(1)))
    return libs


def initramfs(work: Path, parts: dict, java_bundle: Path | None) -> Path:
    path = work / ("initramfs-java.cpio.gz" if java_bundle else "initramfs.cpio.gz")
    init = INIT.replace("__MARKS__", "|".join(MARKS)).replace("__WORDS__", ", ".join(MARKS))
    with gzip.open(path, "wb", compresslevel=1) as gz:
        c = Cpio(gz)
        for d in ("bin", "dev", "proc", "sys", "tmp", "lib", "etc"):
            c.dir(d)
        c.file("init", init.encode(), 0o755)
        c.file("bin/busybox", parts["busybox"].read_bytes(), 0o755)
        c.file("bin/vmtest", parts["vmtest"].read_bytes(), 0o755)
        c.file("lib/direkt_importer.ko", parts["importer"].read_bytes())
        c.file("lib/direkt_test_exporter.ko", parts["exporter"].read_bytes())
        if java_bundle:
            c.tree(java_bundle, "java")
            c.file("java/run.sh", (HERE / "vmtest-java.sh").read_bytes(), 0o755)
            bins = [java_bundle / "jre/bin/java"] + sorted(java_bundle.rglob("*.so"))
            for lib in sorted(shared_libraries(bins)):
                parents = []
                for p in reversed(lib.parent.parents[:-1]):
                    parents.append(str(p).lstrip("/"))
                for p in parents + [str(lib.parent).lstrip("/")]:
                    if p not in ("bin", "lib", "etc", "tmp"):
                        c.dir(p)
                c.file(str(lib).lstrip("/"), lib.resolve().read_bytes(), 0o755)
        c.close()
    return path


def bar_fixture() -> dict:
    """The numeric defines of vmtest_bar.h (BAR_CSR_AT, ...): the one place the fixture is laid out."""
    text = (HERE / "vmtest_bar.h").read_text()
    return {m.group(1): int(m.group(2), 0) for m in re.finditer(r"^#define (BAR_\w+)\s+(0x[0-9A-Fa-f]+|\d+)\b", text, re.M)}


def bar_fill(o: int) -> int:
    """BAR_FILL(o) of vmtest_bar.h."""
    return 0xC5000000 | (o // 4 & 0xFFFFFF)


def aperture_word(o: int) -> int:
    """BAR_APERTURE_WORD(o) of vmtest_bar.h."""
    return 0x5A000000 | (o // 4 & 0xFFFFFF)


def fill_ranges(fx: dict):
    """The filled ranges of the fixture: around the CSR, and around the aperture."""
    return (range(fx["BAR_FILL_FROM"], fx["BAR_FILL_TO"], 4),
            range(fx["BAR_APERTURE_FILL_FROM"], fx["BAR_APERTURE_FILL_TO"], 4))


def write_bar(path: Path, fx: dict):
    """ivshmem's backing file: zeros, the fill around a direkt bridge's CSR and around the aperture,
    and the wrong identities."""
    bar = bytearray(BAR_BYTES)
    for r in fill_ranges(fx):
        for o in r:
            struct.pack_into("<I", bar, o, bar_fill(o))
    struct.pack_into("<II", bar, fx["BAR_CSR_AT"], CSR_MAGIC, fx["BAR_CSR_VERSION"])
    struct.pack_into("<II", bar, fx["BAR_SWAPPED_AT"], int.from_bytes(CSR_MAGIC.to_bytes(4, "little"), "big"),
                     fx["BAR_CSR_VERSION"])
    struct.pack_into("<II", bar, fx["BAR_OLD_AT"], CSR_MAGIC, fx["BAR_CSR_VERSION"] - 1)
    struct.pack_into("<II", bar, fx["BAR_SILENT_AT"], 0xFFFFFFFF, 0xFFFFFFFF)
    path.write_bytes(bar)


def check_bar(path: Path, fx: dict, console: str, apertures: bool) -> tuple[str, str]:
    """After the boot: the words the test reported writing ("csr: wrote 0x.. at BAR 2 + 0x..", and
    "aperture: wrote BAR_APERTURE_WORD over BAR 2 + [0x.., +0x..)" when the boot has the aperture
    cases) are in the file at their offsets, and every other word of the fixture is as filled."""
    bar = path.read_bytes()
    wrote = {int(m.group(2), 16): int(m.group(1), 16)
             for m in re.finditer(r"^csr: wrote 0x([0-9a-f]+) at BAR 2 \+ 0x([0-9a-f]+)\s*$", console, re.M)}
    if not wrote:
        return "FAIL", "BAR file: the test reported no CSR write"
    spans = [(int(m.group(1), 16), int(m.group(2), 16)) for m in re.finditer(
        r"^aperture: wrote BAR_APERTURE_WORD over BAR 2 \+ \[0x([0-9a-f]+), \+0x([0-9a-f]+)\)\s*$", console, re.M)]
    if apertures and not spans:
        return "FAIL", "BAR file: the test reported no write through an aperture"
    want = {o: bar_fill(o) for r in fill_ranges(fx) for o in r}
    want[fx["BAR_CSR_AT"]] = CSR_MAGIC
    want[fx["BAR_CSR_AT"] + 4] = fx["BAR_CSR_VERSION"]
    want.update(wrote)
    through = {o: aperture_word(o) for at, n in spans for o in range(at, at + n, 4)}
    want.update(through)
    for o, w in sorted(want.items()):
        got = struct.unpack_from("<I", bar, o)[0]
        if got != w:
            return "FAIL", f"BAR file: the word at BAR 2 + {o:#x} is {got:#010x}, want {w:#010x}"
    return "PASS", (f"BAR file: {len(wrote)} CSR writes and {len(through)} words written through an aperture "
                    f"at their offsets, the other {len(want) - len(wrote) - len(through)} words of the fixture as filled")


def boot(work: Path, name: str, parts: dict, image: Path, iommu: bool, memory_mb: int) -> tuple[int, int, float]:
    """One boot; returns (passed, failed, seconds). Its console goes to <work>/<name>.log, ivshmem's
    BAR to <work>/<name>-bar.bin."""
    append = ["console=ttyS0", "quiet", "panic=-1", "oops=panic", f"direkt.mode={name}"]
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-cpu", "max", "-smp", "1", "-m", str(memory_mb),
           "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
           "-icount", "shift=0,sleep=off",  # idle time is skipped: edu's 100 ms DMA timer costs nothing
           "-kernel", str(parts["kernel"]), "-initrd", str(image)]
    if iommu:
        # the IOMMU device must come before the devices behind it
        cmd += ["-device", "intel-iommu"]
        append += ["intel_iommu=on", "iommu.strict=1", "iommu.passthrough=0"]
    fx = bar_fixture()
    bar_file = work / f"{name}-bar.bin"
    write_bar(bar_file, fx)
    cmd += ["-device", "edu,dma_mask=0xffffffffffffffff",
            "-object", f"memory-backend-file,id=bar,size={BAR_BYTES},mem-path={bar_file},share=on",
            "-device", "ivshmem-plain,memdev=bar",
            "-append", " ".join(append)]
    log = work / f"{name}.log"
    t0 = time.monotonic()
    with open(log, "w") as out:
        try:
            subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           timeout=BOOT_TIMEOUT_S)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
    secs = time.monotonic() - t0
    text = log.read_text(errors="replace")
    verdict, what = check_bar(bar_file, fx, text, apertures=name != "java")
    text += f"{verdict} {what}\n"
    with open(log, "a") as out:
        out.write(f"vmtest.py: {verdict} {what}\n")
    passed = failed = 0
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("PASS "):
            passed += 1
        elif line.startswith("FAIL "):
            failed += 1
            print(f"  {name}: {line}")
    if timed_out or "vm: done" not in text:
        failed += 1
        why = f"no end after {BOOT_TIMEOUT_S} s" if timed_out else "the VM stopped before the test ended"
        print(f"  {name}: FAIL boot: {why}; the console's last lines ({log}):")
        for line in text.splitlines()[-25:]:
            print(f"    {line}")
    shown = log.relative_to(ROOT) if log.is_relative_to(ROOT) else log
    print(f"{name}: {passed} passed, {failed} failed ({secs:.0f} s, console {shown})", flush=True)
    return passed, failed, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=ROOT / "build/importer-vmtest")
    ap.add_argument("--boots", default="noiommu,iommu,java", help="comma-separated: noiommu, iommu, java")
    ap.add_argument("--java-bundle", type=Path, help="the jlinked runtime with the application (scripts/gpu-bundle.sh)")
    args = ap.parse_args()
    boots = [b for b in args.boots.split(",") if b]
    unknown = [b for b in boots if b not in ("noiommu", "iommu", "java")]
    if unknown:
        sys.exit(f"vmtest: unknown boot {unknown} (noiommu, iommu, java)")
    if "java" in boots and not (args.java_bundle and (args.java_bundle / "jre/bin/java").is_file()):
        sys.exit(f"vmtest: the java boot needs --java-bundle DIR with jre/bin/java (scripts/gpu-bundle.sh; got {args.java_bundle})")
    if not shutil.which("qemu-system-x86_64"):
        sys.exit("vmtest: qemu-system-x86_64 is missing (make setup installs qemu-system-x86)")
    args.work.mkdir(parents=True, exist_ok=True)
    parts = build(args.work)
    plain = initramfs(args.work, parts, None)
    total_p = total_f = 0
    for b in boots:
        image = initramfs(args.work, parts, args.java_bundle) if b == "java" else plain
        p, f, _ = boot(args.work, b, parts, image, iommu=(b == "iommu"), memory_mb=1024 if b == "java" else 512)
        total_p += p
        total_f += f
    print(f"importer VM test: {total_p} passed, {total_f} failed")
    sys.exit(1 if total_f or not total_p else 0)


if __name__ == "__main__":
    main()
