#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds the documentation site (mkdocs.yml, docs/) into build/docs and checks its links.

    scripts/docs_check.py              build the site, then check README.md's links and the pages' anchors
    scripts/docs_check.py --self-test  first show that each check fails on a broken link and a broken anchor

MkDocs builds in strict mode with its link validation raised to warnings (mkdocs.yml): a page that
links to a page or file not in docs/, or to an anchor the linked page does not have, fails the build.
README.md lies outside docs/, so its links are checked here: every relative link names a file of the
repository, and an anchor on a link to a docs page must be an id of that page as MkDocs built it.
The pages are read as Markdown too (README.md links to them, a forge shows them), so every anchor, in
README.md and in the pages, must also be the one a forge gives the heading it names.

Run with the venv's Python (`make docs`), where docs/requirements.txt installs MkDocs.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "build" / "docs"

LINK = re.compile(r"\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ID = re.compile(r"""\bid=["']([^"']+)["']""")
HEADING_ID = re.compile(r"""<h[1-6][^>]*\bid=["']([^"']+)["']""")


def build(root: Path, site: Path) -> list[str]:
    """Builds root's mkdocs.yml into site; returns MkDocs' warnings and errors (none when it built)."""
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
                          "-f", str(root / "mkdocs.yml"), "-d", str(site)],
                         cwd=root, capture_output=True, text=True)
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip() and not line.startswith("INFO")]
    problems = [line for line in lines if not line.startswith("Aborted")] + [line for line in lines if line.startswith("Aborted")]
    if run.returncode != 0 and not problems:
        problems = [f"mkdocs build exited {run.returncode}"]
    return problems if run.returncode != 0 else []


def prose(text: str) -> list[tuple[int, str]]:
    """The lines of Markdown text outside fenced code blocks, code spans blanked, with 1-based numbers."""
    out, fenced = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)))
    return out


def forge_slugs(text: str) -> set[str]:
    """The anchors a forge gives a Markdown file's headings: lower case, punctuation dropped, spaces
    to hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    slugs = set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if not m:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2)).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        slugs.add(slug if n == 0 else f"{slug}-{n}")
    return slugs


def site_ids(site: Path, page: Path) -> tuple[set[str], list[str]] | None:
    """The ids of docs page `page` as built into `site` and those of its headings (None when it was not built)."""
    html = site / page.with_suffix(".html")
    if not html.is_file():
        return None
    text = html.read_text()
    return set(ID.findall(text)), HEADING_ID.findall(text)


def check_markdown(path: Path, text: str, root: Path, site: Path) -> list[str]:
    """Every relative link of a Markdown file: its file exists, its anchor exists on the site and as a forge
    renders the file."""
    problems = []
    for n, line in prose(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # https:, mailto:, ...: not ours to check
            file_part, _, anchor = target.partition("#")
            where = f"{path.relative_to(root)}:{n}: link {target}"
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                problems.append(f"{where}: {file_part} does not exist")
                continue
            if not anchor:
                continue
            if dest.suffix != ".md":
                problems.append(f"{where}: an anchor into {file_part}, which is not Markdown")
                continue
            docs = (root / "docs").resolve()
            if docs in dest.parents:
                built = site_ids(site, dest.relative_to(docs))
                if built is None:
                    problems.append(f"{where}: {file_part} is not a page of the site (not built)")
                elif anchor not in built[0]:
                    problems.append(f"{where}: {file_part} has no anchor #{anchor} (its headings': "
                                    f"{', '.join(built[1])})")
                elif anchor not in forge_slugs(dest.read_text()):
                    problems.append(f"{where}: the site has #{anchor}, but read as Markdown {file_part} gives "
                                    "its heading another anchor")
            elif anchor not in forge_slugs(dest.read_text()):
                problems.append(f"{where}: {dest.relative_to(root)} has no heading with the anchor #{anchor}")
    return problems


def check(root: Path, site: Path) -> list[str]:
    problems = build(root, site)
    if problems:
        return ["mkdocs build --strict failed:"] + [f"  {p}" for p in problems]
    problems = []
    # the pages' anchors again, as a forge renders their headings: the pages are read as Markdown too
    for page in [root / "README.md"] + sorted((root / "docs").glob("*.md")):
        problems += check_markdown(page, page.read_text(), root, site)
    return problems


def self_test() -> list[str]:
    """Each way a link can break, made on a copy, must fail the check; returns what was not caught."""
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
        shutil.copytree(ROOT / "docs", copy / "docs")
        shutil.copy(ROOT / "README.md", copy / "README.md")
        index = copy / "docs" / "index.md"
        clean = index.read_text()
        site = copy / "site"
        for what, link in (("a page that does not exist", "[x](no-such-page.md)"),
                           ("an anchor the page does not have", "[x](bridge.md#no-such-anchor)"),
                           ("an anchor of its own page that does not exist", "[x](#no-such-anchor)"),
                           ("a file outside docs/", "[x](../README.md)")):
            index.write_text(clean + f"\n{link}\n")
            if not build(copy, site):
                missed.append(f"mkdocs accepted a docs page linking to {what}: {link}")
        index.write_text(clean)
        if build(copy, site):
            missed.append("mkdocs refused the unbroken copy of the site")
        readme = copy / "README.md"
        for what, link in (("a file that does not exist", "[x](docs/no-such-page.md)"),
                           ("an anchor a docs page does not have", "[x](docs/bridge.md#no-such-anchor)"),
                           ("a heading README.md does not have", "[x](#no-such-heading)")):
            if not check_markdown(readme, readme.read_text() + f"\n{link}\n", copy, site):
                missed.append(f"README.md's check accepted a link to {what}: {link}")
    return missed


def main(argv: list[str]) -> int:
    if argv not in ([], ["--self-test"]):
        print(__doc__, file=sys.stderr)
        return 2
    if argv:
        missed = self_test()
        for m in missed:
            print(f"docs_check: self-test: {m}", file=sys.stderr)
        if missed:
            return 1
        print("docs_check: self-test: a broken link or anchor fails the site's build and README.md's check")
    problems = check(ROOT, SITE)
    for p in problems:
        print(f"docs_check: {p}", file=sys.stderr)
    if problems:
        return 1
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    print(f"docs_check: {len(pages)} pages built into {SITE.relative_to(ROOT)} (strict: links and anchors checked); "
          "README.md's links and every anchor as Markdown renders it checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
