"""Text that reads the same and is not: ASCII letters and digits swapped for look-alikes.

The answer written with Cyrillic letters, the Kelvin sign and fullwidth digits must not pay
where the verifier compares text it did not normalise (`attack:look_alike_unicode`).
"""

from __future__ import annotations

# Cyrillic look-alikes, U+212A KELVIN SIGN for k, fullwidth digits (the rest: fullwidth).
_LOOK_ALIKE = {
    **dict(
        zip(
            "aceopxyiABCEHIJKMOPSTXYk",
            "\u0430\u0441\u0435\u043e\u0440\u0445\u0443\u0456\u0410\u0412\u0421\u0415"
            "\u041d\u0406\u0408\u041a\u041c\u041e\u0420\u0405\u0422\u0425\u04ae\u212a",
            strict=True,
        )
    ),
    **{chr(c): chr(c - ord("0") + 0xFF10) for c in range(ord("0"), ord("9") + 1)},
}


def look_alike(text: str) -> str:
    """`text` with ASCII letters and digits swapped for characters that look the same."""
    out = []
    for ch in text:
        if ch in _LOOK_ALIKE:
            out.append(_LOOK_ALIKE[ch])
        elif ch.isascii() and ch.isalpha():  # fullwidth forms for the rest
            out.append(_fullwidth(ch))
        else:
            out.append(ch)
    return "".join(out)


def _fullwidth(ch: str) -> str:
    return chr(ord(ch) - 0x21 + 0xFF01) if "!" <= ch <= "~" else ch
