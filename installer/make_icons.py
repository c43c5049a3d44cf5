"""Draws tray-reader's icons into icons/ (run from anywhere: python installer/make_icons.py).

The output is reproducible for a given Pillow version: shapes are drawn at 4x and reduced
with a Lanczos filter, and PNGs carry no time stamps. Files:

- ``tray-<state>.png`` (64x64) for the tray, one per app state: idle, warming, speaking,
  paused, error. The tray loads them by state name.
- ``tray-reader-<size>.png`` for menus and launchers, sizes 16 to 256 (hicolor theme sizes).
- ``tray-reader.ico`` (Windows shortcuts) and ``tray-reader.icns`` (macOS).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw

ICONS_DIR = Path(__file__).resolve().parent.parent / "icons"
APP_SIZES = (16, 22, 24, 32, 48, 64, 128, 256)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
TRAY_SIZE = 64
SCALE = 4

# One colour per state, so the state reads at a glance even at 16 px.
STATE_COLOURS = {
    "idle": (84, 110, 122),  # blue grey: ready, nothing to do
    "warming": (245, 166, 35),  # amber: loading and warming the model
    "speaking": (46, 160, 90),  # green: audio is playing
    "paused": (52, 120, 200),  # blue: paused mid-text
    "error": (211, 47, 47),  # red: something needs the user's attention
}
APP_COLOUR = (38, 98, 170)
WHITE = (255, 255, 255, 255)


def _speaker(draw: ImageDraw.ImageDraw, s: float, colour: tuple[int, ...]) -> None:
    """A loudspeaker on the left half of an s x s canvas."""
    body = [(0.16 * s, 0.38 * s), (0.30 * s, 0.38 * s), (0.50 * s, 0.20 * s)]
    body += [(0.50 * s, 0.80 * s), (0.30 * s, 0.62 * s), (0.16 * s, 0.62 * s)]
    draw.polygon(body, fill=colour)


def _waves(draw: ImageDraw.ImageDraw, s: float, colour: tuple[int, ...], count: int) -> None:
    width = max(1, round(0.07 * s))
    for i in range(count):
        r = (0.14 + 0.13 * i) * s
        box = [0.50 * s - r, 0.50 * s - r, 0.50 * s + r, 0.50 * s + r]
        draw.arc(box, start=-50, end=50, fill=colour, width=width)


def _badge(size: int, colour: tuple[int, int, int]) -> tuple[Image.Image, ImageDraw.ImageDraw, float]:
    s = size * SCALE
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    pad = 0.03 * s
    draw.rounded_rectangle([pad, pad, s - pad, s - pad], radius=0.22 * s, fill=(*colour, 255))
    return img, draw, float(s)


def _finish(img: Image.Image, size: int) -> Image.Image:
    return img.resize((size, size), Image.Resampling.LANCZOS)


def tray_icon(state: str, size: int = TRAY_SIZE) -> Image.Image:
    """The tray icon for one state: a speaker on a coloured tile, with a state mark."""
    img, draw, s = _badge(size, STATE_COLOURS[state])
    _speaker(draw, s, WHITE)
    if state == "speaking":
        _waves(draw, s, WHITE, 3)
    elif state == "idle":
        _waves(draw, s, WHITE, 1)
    elif state == "paused":
        bar = 0.08 * s
        for x in (0.62, 0.76):
            draw.rectangle([x * s, 0.32 * s, x * s + bar, 0.68 * s], fill=WHITE)
    elif state == "warming":
        for i, x in enumerate((0.60, 0.72, 0.84)):
            r = (0.035 + 0.012 * i) * s
            draw.ellipse([x * s - r, 0.5 * s - r, x * s + r, 0.5 * s + r], fill=WHITE)
    elif state == "error":
        w = max(1, round(0.08 * s))
        draw.line([(0.60 * s, 0.36 * s), (0.86 * s, 0.64 * s)], fill=WHITE, width=w)
        draw.line([(0.60 * s, 0.64 * s), (0.86 * s, 0.36 * s)], fill=WHITE, width=w)
    return _finish(img, size)


def app_icon(size: int) -> Image.Image:
    """The application icon: a page of text with a speaker reading it."""
    img, draw, s = _badge(size, APP_COLOUR)
    line = max(1, round(0.045 * s))
    for i, y in enumerate((0.24, 0.36, 0.48)):
        right = 0.80 if i < 2 else 0.62
        draw.line([(0.20 * s, y * s), (right * s, y * s)], fill=(255, 255, 255, 170), width=line)
    sub = Image.new("RGBA", (int(s), int(s)), (0, 0, 0, 0))
    sub_draw = ImageDraw.Draw(sub)
    _speaker(sub_draw, s, WHITE)
    _waves(sub_draw, s, WHITE, 2)
    sub = sub.resize((int(s * 0.62), int(s * 0.62)), Image.Resampling.LANCZOS)
    img.alpha_composite(sub, (int(s * 0.20), int(s * 0.38)))
    return _finish(img, size)


def write_all(out: Path = ICONS_DIR) -> list[Path]:
    """Writes every icon into ``out`` and returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for state in STATE_COLOURS:
        path = out / f"tray-{state}.png"
        tray_icon(state).save(path, optimize=True)
        written.append(path)
    app = {size: app_icon(size) for size in (*APP_SIZES, 512, 1024)}
    for size in APP_SIZES:
        path = out / f"tray-reader-{size}.png"
        app[size].save(path, optimize=True)
        written.append(path)
    ico = out / "tray-reader.ico"
    app[256].save(ico, sizes=[(n, n) for n in ICO_SIZES])
    icns = out / "tray-reader.icns"
    app[1024].save(icns)
    written += [ico, icns]
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ICONS_DIR
    for p in write_all(target):
        print(p)
