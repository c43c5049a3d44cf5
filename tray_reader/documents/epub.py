"""EPUB chapters in spine order: the standard library's zipfile and XML parser, and the
HTML reader for each chapter (no EPUB library: the common one is AGPL). The table of
contents is not read: the chapters follow."""

from __future__ import annotations

import posixpath
import re
import zipfile
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from tray_reader.documents import decode_by_bom
from tray_reader.documents.html import html_blocks
from tray_reader.documents.types import Chapter
from tray_reader.errors import DocumentError

MAX_MEMBER_BYTES = 32 * 1024 * 1024
"""Largest chapter read (uncompressed): a bigger one is damage or a ZIP bomb."""

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_HTML_TYPES = ("application/xhtml+xml", "text/html")
_DECLARED_ENCODING = re.compile(rb"\s*<\?xml[^>]*?\sencoding\s*=\s*[\"']([A-Za-z0-9._-]{1,40})[\"']")


def _member(book: zipfile.ZipFile, name: str, path: Path) -> bytes:
    try:
        info = book.getinfo(name)
    except KeyError:
        raise DocumentError(f"{path} is a broken EPUB: it names {name!r}, which is not in it.") from None
    if info.file_size > MAX_MEMBER_BYTES:
        raise DocumentError(f"{path}: {name} is {info.file_size // 2**20} MB unpacked; too large to read.")
    return book.read(info)


def _xml(data: bytes, name: str, path: Path) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as e:
        raise DocumentError(f"{path} is a broken EPUB: {name} is not valid XML ({e}).") from None


def _decode(data: bytes) -> str:
    """A chapter's text: UTF-8 (or UTF-16 with a byte order mark), else in the encoding its
    XML declaration names (older books' ``encoding="iso-8859-1"``)."""
    text = decode_by_bom(data)
    if text is not None:
        return text
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declared = _DECLARED_ENCODING.match(data)
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return data.decode("utf-8", errors="replace")


def _href(base: str, href: str) -> str:
    """The member a package file's link names: relative to the package, without a fragment."""
    return posixpath.normpath(posixpath.join(base, href.split("#", 1)[0]))


def read_epub(path: Path) -> tuple[str, list[Chapter]]:
    """(the book's title, its chapters in spine order, empty ones left out)."""
    try:
        with zipfile.ZipFile(path) as book:
            container = _xml(_member(book, "META-INF/container.xml", path), "container.xml", path)
            rootfile = container.find(f".//{_CONTAINER}rootfile")
            opf_name = rootfile.get("full-path") if rootfile is not None else None
            if not opf_name:
                raise DocumentError(f"{path} is a broken EPUB: its container names no package file.")
            opf = _xml(_member(book, opf_name, path), opf_name, path)
            base = posixpath.dirname(opf_name)
            title = (opf.findtext(f".//{_DC}title") or "").strip()
            manifest = {
                item.get("id"): item for item in opf.iterfind(f"{_OPF}manifest/{_OPF}item") if item.get("id")
            }
            contents = {  # the table of contents: EPUB 3's navigation document, EPUB 2's guide
                unquote(_href(base, item.get("href", "")))
                for item in manifest.values()
                if "nav" in (item.get("properties") or "").split()
            } | {
                unquote(_href(base, ref.get("href", "")))
                for ref in opf.iterfind(f"{_OPF}guide/{_OPF}reference")
                if (ref.get("type") or "").lower() == "toc"
            }
            names = set(book.namelist())
            chapters = []
            for n, ref in enumerate(opf.iterfind(f"{_OPF}spine/{_OPF}itemref"), start=1):
                item = manifest.get(ref.get("idref"))
                if item is None or item.get("media-type") not in _HTML_TYPES:
                    continue
                href = _href(base, item.get("href", ""))
                if href not in names and unquote(href) in names:  # "Chapter%201.xhtml"
                    href = unquote(href)
                if unquote(href) in contents:  # a list of the chapters' titles, not read as prose
                    continue
                data = _member(book, href, path)
                page_title, blocks = html_blocks(_decode(data))
                if not blocks:
                    continue
                heading = next((text for level, text in blocks if level), None)
                chapters.append(Chapter(heading or page_title or f"Chapter {n}", tuple(t for _, t in blocks)))
    except zipfile.BadZipFile as e:
        raise DocumentError(
            f"{path} is not a valid EPUB: the ZIP archive is broken ({e}). "
            "Check that it was saved or downloaded completely."
        ) from None
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError) as e:
        raise DocumentError(f"{path}: cannot unpack this EPUB ({e}).") from None
    return title, chapters
