"""The profile as one self-contained HTML page: inline CSS and SVG, no script, no network."""

from __future__ import annotations

import html
from typing import Any

WIDTH, HEIGHT, PAD = 360, 160, 34

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccd}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #eee;
text-align:left}th{background:#f4f5f8}.alarm{color:#b00020;font-weight:600}.ok{color:#1b7f3b}
.plots{display:flex;gap:18px;flex-wrap:wrap}figure{margin:0}figcaption{font-size:12px;color:#555}
svg{background:#fafbfc;border:1px solid #e3e5ea}code{background:#f4f5f8;padding:0 3px}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _num(value: Any, digits: int = 3) -> str:
    return (
        "n/a" if value is None else f"{value:.{digits}g}" if isinstance(value, float) else _e(value)
    )


def _span(lo: float, hi: float) -> tuple[float, float]:
    """A range to draw on: a degenerate one (every value the same) is widened around its
    value, so one reward of 1 sits mid-plot at a labelled 1, not on an axis that reads 0."""
    if hi > lo:
        return lo, hi
    half = max(abs(lo) * 0.5, 0.5)
    return lo - half, hi + half


def _ticks(x_range: tuple[float, float], y_range: tuple[float, float]) -> str:
    """Values at the ends and the middle of each axis."""
    (x0, x1), (y0, y1) = x_range, y_range
    bottom, left = HEIGHT - PAD, PAD
    labels = [
        (left, bottom + 11, "middle", x0),
        ((left + WIDTH - 10) / 2, bottom + 11, "middle", (x0 + x1) / 2),
        (WIDTH - 10, bottom + 11, "end", x1),
        (left - 3, bottom, "end", y0),
        (left - 3, (bottom + 10) / 2 + 4, "end", (y0 + y1) / 2),
        (left - 3, 14, "end", y1),
    ]
    return "".join(
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="9" fill="#555" text-anchor="{anchor}">'
        f"{value:.3g}</text>"
        for x, y, anchor, value in labels
    )


def _frame(
    inner: str,
    caption: str,
    x_label: str,
    y_label: str,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
) -> str:
    ticks = _ticks(x_range, y_range) if x_range and y_range else ""
    axes = ticks + (
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - 6}" y2="{HEIGHT - PAD}" stroke="#889"/>'
        f'<line x1="{PAD}" y1="6" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#889"/>'
        f'<text x="{WIDTH // 2}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle">'
        f"{_e(x_label)}</text>"
        f'<text x="10" y="{HEIGHT // 2}" font-size="11" transform="rotate(-90 10 {HEIGHT // 2})"'
        f' text-anchor="middle">{_e(y_label)}</text>'
    )
    return (
        f'<figure><svg width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{_e(caption)}">{axes}{inner}</svg>'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _scale(value: float, lo: float, hi: float, out_lo: float, out_hi: float) -> float:
    return out_lo if hi == lo else out_lo + (value - lo) / (hi - lo) * (out_hi - out_lo)


def histogram_svg(hist: dict[str, list[float]] | None) -> str:
    """Bars of a reward histogram."""
    if not hist:
        return ""
    counts, edges = hist["counts"], hist["edges"]
    top = max(counts) or 1.0
    width = (WIDTH - PAD - 10) / len(counts)
    bars = "".join(
        f'<rect x="{PAD + i * width + 1:.1f}" y="{_scale(c, 0, top, HEIGHT - PAD, 10):.1f}" '
        f'width="{width - 2:.1f}" height="{HEIGHT - PAD - _scale(c, 0, top, HEIGHT - PAD, 10):.1f}"'
        f' fill="#4a6fd0"><title>{edges[i]:.3g}..{edges[i + 1]:.3g}: {int(c)}</title></rect>'
        for i, c in enumerate(counts)
    )
    caption = f"reward histogram ({edges[0]:.3g} to {edges[-1]:.3g})"
    x_range = (edges[0], edges[-1]) if edges[-1] > edges[0] else _span(edges[0], edges[-1])
    return _frame(bars, caption, "reward", "count", x_range, (0.0, float(top)))


def curve_svg(pass_at_k: dict[str, float]) -> str:
    """pass@k against k."""
    if not pass_at_k:
        return ""
    ks = [int(k) for k in pass_at_k]
    k_range = _span(1.0, float(max(ks)))
    points = [
        (_scale(k, *k_range, PAD + 8, WIDTH - 14), _scale(v, 0, 1, HEIGHT - PAD, 10))
        for k, v in zip(ks, pass_at_k.values(), strict=True)
    ]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#1b7f3b"/>' for x, y in points)
    line = f'<polyline points="{path}" fill="none" stroke="#1b7f3b" stroke-width="2"/>'
    caption = f"pass@k, k = 1..{max(ks)}"
    return _frame(line + dots, caption, "k", "pass@k", k_range, (0.0, 1.0))


def scatter_svg(points: list[list[float]], index: int, label: str) -> str:
    """Reward against one column of `points` ([length, tool calls, reward])."""
    if not points:
        return ""
    xs, ys = [p[index] for p in points], [p[2] for p in points]
    x_range, y_range = _span(min(xs), max(xs)), _span(min(ys), max(ys))
    dots = "".join(
        f'<circle cx="{_scale(x, *x_range, PAD + 6, WIDTH - 12):.1f}" '
        f'cy="{_scale(y, *y_range, HEIGHT - PAD - 4, 10):.1f}" r="2.5" '
        f'fill="#c0392b" fill-opacity="0.5"/>'
        for x, y in zip(xs, ys, strict=True)
    )
    return _frame(dots, f"reward against {label}", label, "reward", x_range, y_range)


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _env_section(env: str, p: dict[str, Any]) -> str:
    reward = p["reward"]
    zero = p["zero_variance_share"]
    summary = [
        ["rollouts (usable)", f"{p['rollouts']} ({p['usable']})"],
        ["mean reward (95% CI)", f"{_num(reward['mean'])} [{_num(reward['ci95'][0])}, "
         f"{_num(reward['ci95'][1])}]"],
        ["pass rate", _num(p["pass_rate"])],
        ["zero-variance task groups", _num(zero) + (' <span class="alarm">no learning signal'
                                                    "</span>" if zero and zero >= 0.5 else "")],
        ["reward vs output length (Spearman)", _num(p["reward_vs_length"])
         + (' <span class="alarm">reward rises with length</span>' if p["length_alarm"] else "")],
        ["reward vs tool calls (Spearman)", _num(p["reward_vs_tool_calls"])],
        ["masked", _e(", ".join(f"{k}: {v}" for k, v in p["masked"].items()) or "none")],
    ]  # fmt: skip
    checks = sorted(p["checks"].items(), key=lambda kv: kv[1])
    tasks = [
        [_e(t["task_id"]), str(t["usable"]), _num(t["mean"]), _num(t["pass_rate"]),
         "yes" if t["zero_variance"] else ""]
        for t in p["per_task"]
    ]  # fmt: skip
    plots = (
        histogram_svg(reward["histogram"])
        + curve_svg(p["pass_at_k"])
        + scatter_svg(p["points"], 0, "output length")
        + scatter_svg(p["points"], 1, "tool calls")
    )
    return (
        f'<h2 id="env-{_e(env)}">{_e(env)}</h2>'
        + _table(["figure", "value"], summary)
        + f'<div class="plots">{plots}</div>'
        + "<h3>checks, most failed first</h3>"
        + _table(["check", "pass rate"], [[_e(n), _num(v)] for n, v in checks])
        + f"<h3>too easy ({len(p['too_easy'])}) and too hard ({len(p['too_hard'])})</h3>"
        + f"<p>every rollout passed: {_e(', '.join(p['too_easy']) or 'none')}<br>"
        + f"no rollout passed: {_e(', '.join(p['too_hard']) or 'none')}</p>"
        + "<h3>tasks</h3>"
        + _table(["task", "usable", "mean", "pass rate", "zero variance"], tasks)
    )


def _compare_section(comparison: dict[str, Any], names: tuple[str, str]) -> str:
    rows = []
    for env, c in comparison.items():
        verdict = (
            '<span class="ok">separated</span>'
            if c["separated"]
            else '<span class="alarm">NOT separated: suspect the task difficulty or the '
            "verifier</span>"
        )
        rows.append(
            [_e(env), _num(c["mean_first"]), _num(c["mean_second"]), _num(c["difference"]),
             f"[{_num(c['ci95'][0])}, {_num(c['ci95'][1])}]", verdict]
        )  # fmt: skip
    return "<h2>comparison</h2>" + _table(
        ["env", _e(names[0]), _e(names[1]), "difference", "95% CI", "verdict"], rows
    )


def render(
    profile: dict[str, Any],
    *,
    title: str,
    comparison: dict[str, Any] | None = None,
    names: tuple[str, str] = ("first", "second"),
    viewer_hint: str | None = None,
) -> str:
    """The whole report page."""
    envs = profile["envs"]
    nav = " · ".join(f'<a href="#env-{_e(e)}">{_e(e)}</a>' for e in envs)
    body = f"<h1>{_e(title)}</h1><p>{nav}</p>"
    if viewer_hint:
        body += f"<p>Look at single rollouts: <code>{_e(viewer_hint)}</code></p>"
    if comparison is not None:
        body += _compare_section(comparison, names)
    body += "".join(_env_section(env, p) for env, p in envs.items())
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>{body}</body></html>"
    )
