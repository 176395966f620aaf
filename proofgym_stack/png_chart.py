"""A line chart as a PNG with the standard library only (the core install has no plotting
library): a title, labelled axes with ticks and grid lines, one or more series of values in
0..1 against their step, and a legend. Text is drawn with a 5x7 bitmap font (lower case,
digits and a little punctuation; any other character is drawn as a space)."""

from __future__ import annotations

import itertools
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

Colour = tuple[int, int, int]

INK: Colour = (40, 40, 40)
GRID: Colour = (222, 222, 222)
WHITE: Colour = (255, 255, 255)

# 5x7 glyphs: seven rows, two hex digits each, the five low bits of a row left to right
_FONT = {
    "0": "0e11131519110e", "1": "040c040404040e", "2": "0e11010204081f", "3": "1f02040201110e",
    "4": "02060a121f0202", "5": "1f101e0101110e", "6": "0608101e11110e", "7": "1f010204080808",
    "8": "0e11110e11110e", "9": "0e11110f01020c", "a": "00000e010f110f", "b": "1010161911111e",
    "c": "00000e1010110e", "d": "01010d1311110f", "e": "00000e111f100e", "f": "0609081c080808",
    "g": "000f11110f010e", "h": "10101619111111", "i": "04000c0404040e", "j": "0200060202120c",
    "k": "10101214181412", "l": "0c04040404040e", "m": "00001a15151111", "n": "00001619111111",
    "o": "00000e1111110e", "p": "00001e111e1010", "q": "00000d130f0101", "r": "00001619101010",
    "s": "00000e100e011e", "t": "08081c08080906", "u": "0000111111130d", "v": "00001111110a04",
    "w": "0000111115150a", "x": "0000110a040a11", "y": "000011110f010e", "z": "00001f0204081f",
    ".": "00000000000c0c", "-": "0000001f000000", "+": "0004041f040400", "(": "02040808080402",
    ")": "08040202020408", ":": "000c0c000c0c00", ",": "000000000c0408", "=": "00001f001f0000",
    "%": "18190204081303", "/": "00010204081000", "_": "0000000000001f", " ": "00000000000000",
}  # fmt: skip
GLYPHS = {c: [int(h[i : i + 2], 16) for i in range(0, 14, 2)] for c, h in _FONT.items()}


@dataclass(frozen=True)
class Series:
    """One line of the chart: its values (one a step), its name in the legend, its colour."""

    values: list[float]
    label: str
    colour: Colour


class Canvas:
    """An RGB image to draw on; drawing outside it is ignored."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = [[WHITE] * width for _ in range(height)]

    def dot(self, x: int, y: int, colour: Colour) -> None:
        """Colour one pixel (ignored outside the canvas)."""
        if 0 <= x < self.width and 0 <= y < self.height:
            self.pixels[y][x] = colour

    def line(self, a: tuple[int, int], b: tuple[int, int], colour: Colour, thick: int = 1) -> None:
        """A straight line from `a` to `b`, `thick` pixels wide (1 or 2)."""
        n = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1)
        for k in range(n + 1):
            x, y = a[0] + (b[0] - a[0]) * k // n, a[1] + (b[1] - a[1]) * k // n
            for dx, dy in ((0, 0), (0, 1), (1, 0))[: 1 if thick == 1 else 3]:
                self.dot(x + dx, y + dy, colour)

    def text(self, x: int, y: int, words: str, colour: Colour = INK, scale: int = 1) -> None:
        """`words` (lower-cased) with its top left corner at (x, y)."""
        for i, char in enumerate(words.lower()):
            rows = GLYPHS.get(char, GLYPHS[" "])
            for r, bits in enumerate(rows):
                for c in range(5):
                    if bits & (1 << (4 - c)):
                        for sx, sy in itertools.product(range(scale), repeat=2):
                            self.dot(x + (i * 6 + c) * scale + sx, y + r * scale + sy, colour)

    def png(self) -> bytes:
        """The image as PNG bytes."""
        raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in self.pixels)

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b"")
        )


def text_width(words: str, scale: int = 1) -> int:
    """How many pixels `words` takes across."""
    return len(words) * 6 * scale


def chart(
    series: list[Series],
    width: int,
    height: int,
    title: str = "",
    x_label: str = "step",
    y_label: str = "reward",
) -> Canvas:
    """The line chart of `series` (values clipped to 0..1) on a `width` x `height` canvas. A
    canvas too small for text (under 200 x 120) gets the axes and the lines only."""
    canvas = Canvas(width, height)
    texts = width >= 200 and height >= 120
    left, right, top, bottom = (40, 16, 34, 30) if texts else (2, 2, 2, 2)
    x0, x1, y0, y1 = left, width - right, top, height - bottom
    steps = max((len(s.values) for s in series), default=0)

    def at(i: int, v: float) -> tuple[int, int]:
        x = x0 + round(i * (x1 - x0) / max(1, steps - 1))
        return x, y1 - round(max(0.0, min(1.0, v)) * (y1 - y0))

    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = at(0, tick)[1]
        if tick > 0:
            canvas.line((x0 + 1, y), (x1, y), GRID)
        if texts:
            label = f"{tick:g}"
            canvas.text(x0 - 4 - text_width(label), y - 3, label)
    canvas.line((x0, y1), (x1, y1), INK)
    canvas.line((x0, y0), (x0, y1), INK)
    if texts:
        for step in sorted({1, (steps + 1) // 2, steps} - {0}):
            x = at(step - 1, 0)[0]
            canvas.line((x, y1), (x, y1 + 3), INK)
            canvas.text(x - text_width(str(step)) // 2, y1 + 6, str(step))
        canvas.text((x0 + x1 - text_width(x_label)) // 2, height - 10, x_label)
        canvas.text(4, top - 14, y_label)
        canvas.text((width - text_width(title, 2)) // 2, 4, title, scale=2)
        for n, s in enumerate(series):  # the legend, top right inside the plot
            y = y0 + 6 + 11 * n
            x = x1 - 8 - text_width(s.label) - 18
            canvas.line((x, y + 3), (x + 12, y + 3), s.colour, thick=2)
            canvas.text(x + 18, y, s.label)
    for s in reversed(series):  # the first series on top: where they overlap, it shows
        points = [at(i, v) for i, v in enumerate(s.values)]
        for a, b in itertools.pairwise(points):
            canvas.line(a, b, s.colour, thick=2)
        if len(points) == 1:
            canvas.line(points[0], points[0], s.colour, thick=2)
    return canvas


def write_chart(path: Path, canvas: Canvas) -> None:
    """Write `canvas` as a PNG at `path` (folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canvas.png())
