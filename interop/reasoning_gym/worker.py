"""The grading worker: a process that runs reasoning-gym's own answer extraction and graders.

`python -m interop.reasoning_gym.worker [--preload FILE.py ...]` reads one JSON request a line
on stdin, `{"dataset", "config", "entry", "text"}`, and answers one JSON line on the stdout it
was started with: `{"ok": true, "answer": A, "reward": R}` (A: what `extract_answer` read from
the text, or null; R: the grader's number, or null with `raw` when it returned no number) or
`{"ok": false, "error": "..."}` when the grader raised. It runs in its own process so that a
grader that hangs or eats memory on a hostile answer is killed (`grader.GraderPool`), never a
thread left spinning in the resources server. Anything a grader prints goes to stderr.
`--preload` runs a file first (tests register faulty datasets that way).
"""

from __future__ import annotations

import contextlib
import json
import numbers
import os
import runpy
import sys
import traceback
from collections import OrderedDict
from typing import Any

#: graders kept per worker, by dataset and config: building one may read word lists
CACHED_GRADERS = 32


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the server that started it dies (a hung grader would
    otherwise outlive it)."""
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _answer(request: dict[str, Any], graders: OrderedDict[str, Any]) -> dict[str, Any]:
    import reasoning_gym
    from reasoning_gym.utils import extract_answer

    key = json.dumps([request["dataset"], request["config"]], sort_keys=True)
    grader = graders.get(key)
    if grader is None:
        grader = reasoning_gym.create_dataset(request["dataset"], **request["config"], size=1)
        graders[key] = grader
        while len(graders) > CACHED_GRADERS:
            graders.popitem(last=False)
    answer = extract_answer(request["text"])
    reward = grader.score_answer(answer, request["entry"])
    if isinstance(reward, numbers.Real) and not isinstance(reward, bool):
        return {"ok": True, "answer": answer, "reward": float(reward)}
    return {"ok": True, "answer": answer, "reward": None, "raw": repr(reward)[:200]}


def main(argv: list[str]) -> None:
    """Serve requests until stdin closes."""
    _die_with_parent()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # a grader's prints (and C code's writes) go to stderr, not the protocol
    sys.stdout = sys.stderr
    for i, arg in enumerate(argv):
        if arg == "--preload" and i + 1 < len(argv):
            runpy.run_path(argv[i + 1])
    try:
        import reasoning_gym  # noqa: F401  (once, before the first request)
    except Exception:
        out.write(json.dumps({"ready": False, "error": traceback.format_exc()[-2000:]}) + "\n")
        out.flush()
        return
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    graders: OrderedDict[str, Any] = OrderedDict()
    for line in sys.stdin:
        try:
            reply = _answer(json.loads(line), graders)
        except Exception as exc:  # the grader's fault: reported, never this worker's end
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000]}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
