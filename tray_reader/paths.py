"""Where tray-reader keeps its files on each platform (one place for all of them).

Linux honours the XDG variables, so tests point them at temporary folders."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "tray-reader"


def _base(windows_var: str, windows_default: str, mac: str, xdg_var: str, xdg_default: str) -> Path:
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get(windows_var) or home / "AppData" / windows_default)
    if sys.platform == "darwin":
        return home / "Library" / mac
    return Path(os.environ.get(xdg_var) or home / xdg_default)


def config_dir() -> Path:
    """Settings and the lexicon (``$XDG_CONFIG_HOME/tray-reader`` on Linux)."""
    return _base("APPDATA", "Roaming", "Application Support", "XDG_CONFIG_HOME", ".config") / APP


def data_dir() -> Path:
    """The user's voices (``$XDG_DATA_HOME/tray-reader`` on Linux)."""
    return _base("APPDATA", "Roaming", "Application Support", "XDG_DATA_HOME", ".local/share") / APP


def cache_dir() -> Path:
    """Derived model parts, rebuilt when missing (``$XDG_CACHE_HOME/tray-reader`` on Linux)."""
    return _base("LOCALAPPDATA", "Local", "Caches", "XDG_CACHE_HOME", ".cache") / APP
