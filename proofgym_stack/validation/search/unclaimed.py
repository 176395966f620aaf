"""A rule the verifier holds only through the claim check.

A claim check fails a final message that claims success where the verifier's own reading of
the state says the goal was not reached. Where a mutant fails *only* there (every failing
check is a claim check that read a claim), the verifier itself judged the work undone; the
same trajectory with a final message that claims nothing ("Here is what I did.") must then
fail too. Where it passes, the rule is enforced only on policies that say they succeeded: a
policy that skips the step and reports plainly is paid (instruments placed on the tray
without sterilising them, the message naming no success word).
"""

from __future__ import annotations

from proofgym.wire.protocol import Check
from proofgym_stack.validation.search.mutants import Mutant, final_message
from proofgym_stack.validation.search.probes import Passes
from proofgym_stack.validation.search.tolerance import Play, Played

#: final messages that claim nothing: a plain report, then silence
PLAIN = ("Here is what I did.", "")
#: mutants retried with a plain message, per search
MAX_RETRIED = 4

WHY = (
    "full reward with a final message that claims nothing, for a trajectory the verifier's "
    "own claim check judged not achieved: the rule is held only through the claim"
)


def only_the_claim(checks: list[Check]) -> bool:
    """Whether a rollout with these checks failed only through claim checks that read a
    claim."""
    failing = [c for c in checks if not c.passed]
    return bool(failing) and all(c.kind == "claim" and c.claimed for c in failing)


async def unclaimed(played: list[Played], play: Play, passes: Passes) -> list[Played]:
    """Each failed mutant whose only failing checks are claim checks, played again with a
    plain final message, where that passes (at most `MAX_RETRIED` retried)."""
    out: list[Played] = []
    retried = 0
    for p in played:
        if retried >= MAX_RETRIED:
            break
        m = p.mutant
        if m.op == "message" or passes(p.result) or p.result.mask_sample:
            continue
        if not only_the_claim(p.result.checks) or (where := final_message(m.script)) is None:
            continue
        retried += 1
        t, i = where
        for text in PLAIN:
            script = [list(turn) for turn in m.script]
            script[t][i] = {"type": "message", "content": text}
            result, record = await play(p.base.task, script, "search: the claim left out")
            if passes(result):
                what = f"{m.what}, the final message claiming nothing ({text!r})"
                plain = Mutant(script, m.op, m.site, m.source, what, m.call_at, m.leaf, m.old)
                out.append(Played(plain, p.honest, p.base, result, record))
                break
    return out
