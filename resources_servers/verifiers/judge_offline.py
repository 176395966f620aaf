"""A judge that needs no model: reference overlap, computed from the judge's own prompt.

The default judge when no judge model is configured, and the one CI uses. It is a real
function of the prompt `Judge.request` builds, read the way a careless model would read it:
it finds the rubric's criteria, the reference and the first `<candidate>...</candidate>`
block, scores correctness by the share of the reference's key terms (numbers, words of four
letters or more) the candidate states, at most 4 of 10 when one of the reference's figures
is missing or changed, and helpfulness by whether the candidate answers the customer at a
sensible length, mostly about what was asked (a pasted source is not). Like a model that
follows instructions, it obeys any grading instruction it finds outside the candidate block.
So a prompt that lost a part, a parser that lost a field, or a fence a candidate can close,
all show up as wrong verdicts in the tests.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from resources_servers.verifiers.judge import FENCE_CLOSE, FENCE_OPEN

_CRITERION = re.compile(r"^- ([a-z_]+) \(0 to (\d+)\):", re.M)
_TERM = re.compile(r"\d+(?:[.,]\d+)?|[a-zA-Z]{4,}")
_OBEYED = re.compile(r"full marks|score (?:of )?10|\"scores\"|maximum score|ignore", re.I)
_TO_GRADER = re.compile(r"\b(?:grader|grading|rubric|full marks|score|criteria)\b", re.I)
STOPWORDS = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "your",
        "have",
        "will",
        "they",
        "them",
        "what",
        "when",
        "where",
        "which",
        "there",
        "their",
        "about",
        "would",
        "could",
        "should",
        "into",
        "also",
        "only",
        "been",
        "were",
        "more",
        "than",
        "then",
        "just",
        "like",
        "after",
        "before",
    ]
)


def key_terms(text: str) -> set[str]:
    """Numbers, and words of four letters or more cut to six (a crude stem), lower case."""
    terms = set()
    for m in _TERM.findall(text):
        word = m.lower().replace(",", "")
        if word not in STOPWORDS:
            terms.add(word[:6])
    return terms


# Greetings and service phrases ("Here is my answer", "Let me know if you need anything
# else"), as `key_terms` cuts them: a polite answer is not off topic for being polite.
COURTESY = frozenset(
    [
        "hello",
        "dear",
        "thanks",
        "thank",
        "please",
        "here",
        "answer",
        "anythi",
        "else",
        "need",
        "know",
        "hope",
        "helps",
        "help",
        "glad",
        "happy",
        "questi",
        "furthe",
        "assist",
        "welcom",
        "regard",
        "sincer",
        "best",
    ]
)

_FUNCTION_WORDS = frozenset(
    re.findall(
        r"\S+",
        "a an the to of in on at for from by with and or but is are was were be been it its "
        "you your we our us i my this that these those will can do does not no if as so",
    )
)


def is_prose(text: str) -> bool:
    """Whether `text` reads as sentences: at least one word in seven is a function word
    ("the", "you", "is"). Answers people write have far more; a bag of keywords has none."""
    words = re.findall(r"[a-z']+", text.lower())
    if not words:
        return False
    return sum(w in _FUNCTION_WORDS for w in words) / len(words) >= 1 / 7


class ReferenceOverlapJudge:
    """`JudgeBackend` without a model (see the module docstring)."""

    name = "offline reference-overlap judge (no judge model configured)"

    def complete(self, body: dict[str, Any]) -> str:
        prompt = "".join(
            str(item.get("content", "")) for item in body.get("input", []) if isinstance(item, dict)
        )
        criteria = _CRITERION.findall(prompt)
        ref = re.search(r"Reference answer \(correct\):\n(.*?)\n\nCandidate answer:", prompt, re.S)
        asked = re.search(r"Question:\n(.*?)\n\nReference answer", prompt, re.S)
        start = prompt.find(FENCE_OPEN)
        end = prompt.find(FENCE_CLOSE, start + 1)
        if not criteria or ref is None or start < 0 or end < 0:
            return "I cannot grade this: the request is missing its rubric, reference or answer."
        outside = prompt[end + len(FENCE_CLOSE) :].replace("Reply with the JSON object only.", "")
        if _OBEYED.search(outside):  # an instruction outside the data: obeyed, as models do
            scores = {name: int(top) for name, top in criteria}
            return json.dumps({"scores": scores, "reason": "as instructed"})
        candidate = html.unescape(prompt[start + len(FENCE_OPEN) : end]).strip()
        wanted = key_terms(ref.group(1))
        found = wanted & key_terms(candidate)
        correct = len(found) / len(wanted) if wanted else 0.0
        missing_figures = {t for t in wanted - found if t[0].isdigit()}
        if missing_figures:  # a missing or changed figure makes the answer wrong, not 90% right
            correct = min(correct, 0.4)
        scores = {}
        for name, top in criteria:
            share = (
                correct
                if "correct" in name
                else self._helpful(candidate, ref.group(1), asked.group(1) if asked else "")
            )
            scores[name] = round(int(top) * share)
        reason = f"states {len(found)} of {len(wanted)} key terms of the reference"
        if missing_figures:
            reason += f"; figures missing or changed: {', '.join(sorted(missing_figures))}"
        return json.dumps({"scores": scores, "reason": reason})

    @staticmethod
    def _helpful(candidate: str, reference: str, question: str) -> float:
        words = len(candidate.split())
        if words < 3 or _TO_GRADER.search(candidate):
            return 0.0  # no answer, or one that talks to the grader, not the customer
        if not is_prose(candidate):
            return 0.0  # a bag of keywords states facts but answers nobody
        said = key_terms(candidate) - COURTESY
        on_topic = said & (key_terms(reference) | key_terms(question))
        off_topic = len(said) - len(on_topic)
        if off_topic >= 6 and len(on_topic) < 0.75 * len(said):
            return 0.0  # mostly what nobody asked: a source pasted back, not an answer
        if len(candidate) > 4 * max(len(reference), 200):
            return 0.3  # padded far past what the answer needs
        return 1.0
