"""The differential check that labels a mutant grader against the sound one.

Both graders score the same answers (`answers.candidates` on every task). Then, in order:
- **pays**: some wrong answer (wrong by construction, and not given full marks by the sound
  grader) gets more from the mutant than from the sound grader; `pays_full` when the mutant
  gives it full marks. A policy can earn that reward without solving the task.
- **wrong_0**: it pays nothing wrong, but some right answer gets less than from the sound
  grader (a right answer taught as wrong).
- **lowers_wrong**: it only lowers the partial credit of wrong answers.
- **equivalent**: it agrees with the sound grader on every answer; removed from the set.
A grader that raises, hangs or answers out of range scores 0 on that answer, as an `rg_*`
environment's `verify` scores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: rewards closer than this are equal (a float summed in another order)
TOLERANCE = 1e-9
#: how much of a witness's final message is kept
WITNESS_CHARS = 600


@dataclass(frozen=True)
class Scored:
    """One answer on one task, scored by both graders."""

    task: int
    kind: str
    right: bool
    sound: float
    mutant: float
    text: str = ""  #: the final message (kept in witnesses, for the liveness check)


@dataclass
class Label:
    """What the differential check found."""

    label: str
    pays_full: bool = False
    max_gain: float = 0.0  #: the most the mutant paid a wrong answer above the sound grader
    refuses_right: bool = False  #: it also pays a right answer less than the sound grader
    tasks: list[int] = field(default_factory=list)  #: the tasks where the deciding kind showed
    witnesses: list[dict[str, Any]] = field(default_factory=list)  #: answers that differed
    scored: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "pays_full": self.pays_full,
            "max_gain": round(self.max_gain, 6),
            "refuses_right": self.refuses_right,
            "tasks": self.tasks,
            "witnesses": self.witnesses,
            "answers_scored": self.scored,
        }


def classify(scored: Sequence[Scored], keep: int = 5) -> Label:
    """The label of a mutant from its scores and the sound grader's on the same answers;
    `keep` witnesses of the deciding kind are kept, the largest differences first."""
    paid = [
        s
        for s in scored
        if not s.right and s.sound < 1.0 - TOLERANCE and s.mutant > s.sound + TOLERANCE
    ]
    refused = [s for s in scored if s.right and s.mutant < s.sound - TOLERANCE]
    lowered = [s for s in scored if not s.right and s.mutant < s.sound - TOLERANCE]
    if paid:
        deciding, name = paid, "pays"
    elif refused:
        deciding, name = refused, "wrong_0"
    elif lowered:
        deciding, name = lowered, "lowers_wrong"
    else:
        return Label("equivalent", scored=len(scored))
    return Label(
        name,
        pays_full=any(s.mutant >= 1.0 - TOLERANCE for s in paid),
        max_gain=max((s.mutant - s.sound for s in paid), default=0.0),
        refuses_right=bool(refused),
        tasks=sorted({s.task for s in deciding}),
        witnesses=[
            {
                "task": s.task,
                "kind": s.kind,
                "sound": s.sound,
                "mutant": s.mutant,
                "text": s.text[:WITNESS_CHARS],
            }
            for s in sorted(deciding, key=lambda s: -abs(s.mutant - s.sound))[:keep]
        ],
        scored=len(scored),
    )
