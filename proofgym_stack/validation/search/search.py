"""The search: mutate every pass control, judge each full-reward mutant by general oracles.

For each sampled task (at most `MAX_TASKS`), honest play is measured first (`baseline`); then
the grammar (`mutants`) writes every mutant of every pass control, a seeded draw keeps
`ctx.budget` of them, and each is played through the real services with `verify` traced
(`tracing`). A mutant that passes is judged by the oracles:
- *another truth*: it passes, unchanged, on a task on which its control fails (another
  truth): what it does does not depend on the task's truth;
- *another world*: the world verify was handed lost or changed something the honest world
  holds (noise, bookkeeping and honest freedom set aside), at a site the verifier grades,
  outside a tolerance found by probing; honest operators (batching, order) never count, and
  another printed option only where the task's words state a rule it breaks (`options`);
  failed mutants are replayed where that shows a hole (`unclaimed`, `unlooked`);
- *another path*: at a graded site, its verify ran lines of the environment or the verifier
  library that no pass control ran (advisory alone: a new branch may be an honest one);
and every mutant by *a fault*: a masked rollout or a reward outside `reward_range` (the
policy turned its failure into a mask). Each `pays` finding is shrunk to a minimal trajectory
(`shrink`) and reported with it (`findings`).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from proofgym.wire.protocol import RunResult, Task
from proofgym_stack.validation.negatives import prompt_text, task_words
from proofgym_stack.validation.scripts import Script, refused_calls
from proofgym_stack.validation.search import every_option as every
from proofgym_stack.validation.search import guesses, probes
from proofgym_stack.validation.search.acted_on import (
    MAX_COPIED,
    acting_on_what_showed,
    copied_again,
)
from proofgym_stack.validation.search.aged import under_age_rule
from proofgym_stack.validation.search.banned import MAX_BANNED, banned_mutants
from proofgym_stack.validation.search.baseline import Honest, TaskBaseline, measure
from proofgym_stack.validation.search.budget import within_budget
from proofgym_stack.validation.search.caps import cap_crossed
from proofgym_stack.validation.search.edges import OP as EDGES
from proofgym_stack.validation.search.evidence import (
    collateral,
    counted,
    fraction_of_a_count,
    free_text,
    gained_at,
    graded,
    left_behind,
    listed_option,
    made_by_honest_play,
    needed_steps,
    no_effect,
    overwrote_another,
    printed_option,
    refused,
    repeated,
    said_no,
    same_at,
    short_list,
    stale_lists,
    task_values,
    ticked_only,
    trimmed_prose,
)
from proofgym_stack.validation.search.findings import (
    ADVISORY,
    FAILING,
    PAYS,
    Finding,
    fault_of,
    grouped,
    severity_of_fault,
)
from proofgym_stack.validation.search.gather import past_a_stated_number
from proofgym_stack.validation.search.kinds import (
    ACTS_AT_A_LOOK,
    COMPOUND,
    JUNK,
    MORE_OF_AN_ACTION,
    NO_TRUTH,
    PRINTED,
    WORDED,
)
from proofgym_stack.validation.search.left_row import WHY as LEFT_ROW
from proofgym_stack.validation.search.left_row import gained_row
from proofgym_stack.validation.search.mirrored import mirrored_violation
from proofgym_stack.validation.search.mutants import Mutant
from proofgym_stack.validation.search.named import named_instead
from proofgym_stack.validation.search.other_calls import mutants_of
from proofgym_stack.validation.search.passed import ANOTHER_ACTION, passed_over_paths
from proofgym_stack.validation.search.rechecks import rechecks
from proofgym_stack.validation.search.required import emptied_required
from proofgym_stack.validation.search.retry import (
    bypassed,
    cleared,
    retried,
)
from proofgym_stack.validation.search.round_trip import stated_total
from proofgym_stack.validation.search.shrink import shrink
from proofgym_stack.validation.search.sides import free_side
from proofgym_stack.validation.search.stated import (
    broken_rule,
    forbidden_content,
    other_rules,
    past_a_limit,
    reused,
    stated,
)
from proofgym_stack.validation.search.stated_order import broken_order, order_still_broken
from proofgym_stack.validation.search.stride import waypoint_moved
from proofgym_stack.validation.search.targets import Targets
from proofgym_stack.validation.search.tolerance import Played, Tolerances
from proofgym_stack.validation.search.tracing import VerifyRecord, VerifyTrace
from proofgym_stack.validation.search.values import described
from proofgym_stack.validation.search.world import World, changed, lost, undone
from proofgym_stack.validation.shares import Shares

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

NAME = "search"
DEFAULT_BUDGET = 200
MAX_TASKS = 2
MAX_SHRUNK = 4
#: another truth's tries per (operator, site)
REPLAYS_PER_SITE = 3
COUNTED = ", though without the call it fails: the step is counted, not its outcome"


class Search:
    """One search over one environment's sampled tasks (see the module's docstring)."""

    def __init__(self, ctx: Context, trace: VerifyTrace) -> None:
        self.ctx = ctx
        self.trace = trace
        self.findings: list[Finding] = []
        #: the numbers' windows, probed through the services (`tolerance`)
        self.tolerance = Tolerances(ctx, self.play)
        self._follow: dict[int, tuple[Honest, TaskBaseline]] = {}
        #: a follow-up's id -> the operator of the mutant it follows
        self._parent_op: dict[int, str] = {}
        self.follow_ups_played = 0
        #: finding -> (the honest world, the paths set aside): by the finding's id once grouped
        self._worlds: dict[int, tuple[World, set[str]]] = {}
        #: a passed-over finding's id -> (the honest world, where it gained)
        self._passed: dict[int, tuple[World, set[str]]] = {}
        #: a stated-rule finding's id -> what the shrinker keeps true of its script (the value
        #: told, the reply past the cap, the value withheld)
        self._still: dict[int, Callable[[Script], bool]] = {}
        #: a bound seen broken by a look: what its rollout must still show (`monitored`)
        self._seen: dict[int, Callable[[RunResult], bool]] = {}
        #: whether the verifier grades a tool's like calls as a share (`shares`)
        self.shares = Shares(ctx)
        #: each target task's honest and untouched worlds (`targets.steered`)
        self.targets = Targets(ctx, self.play)

    async def play(
        self, task: Task, script: Script, label: str
    ) -> tuple[RunResult, VerifyRecord | None]:
        """Play `script` on `task`: the rollout and verify's record."""
        before = len(self.trace.records)
        result = await self.ctx.run(task, script, label)
        return result, (self.trace.last() if len(self.trace.records) > before else None)

    async def run(self) -> tuple[int, list[Finding]]:
        """Measure, mutate, play, judge; (mutants played, findings grouped by root cause)."""
        ctx = self.ctx
        rng = random.Random(f"{ctx.seed}:search")
        drawn: list[tuple[Mutant, Honest, TaskBaseline]] = []
        aside: list[tuple[Mutant, Honest, TaskBaseline]] = []  # played beside the draw
        forbidden: list[tuple[Mutant, Honest, TaskBaseline]] = []  # what the words ban, too
        for task in ctx.tasks[:MAX_TASKS]:
            base = await measure(ctx, self.trace, task)
            for honest in base.honest:
                for m in mutants_of(
                    honest.control.script, base.pools, prompt_text(task), base.words
                ):
                    drawn.append((m, honest, base))
                for m in every.every_option(honest.control.script, base.pools):
                    aside.append((m, honest, base))
                for m in banned_mutants(honest.control.script, base.words)[:MAX_BANNED]:
                    forbidden.append((m, honest, base))
        keyed = {id(m): (m, h, b) for m, h, b in drawn}
        chosen = within_budget([m for m, _, _ in drawn], ctx.budget, rng)
        played: list[Played] = []
        for m in chosen:
            _, honest, base = keyed[id(m)]
            result, record = await self.play(base.task, m.script, f"search: {m.what}")
            played.append(Played(m, honest, base, result, record))
            why = fault_of(result, ctx.env.reward_range)
            if why is not None:
                error = f" ({record.error})" if record is not None and record.error else ""
                self.found("fault", severity_of_fault(result), played[-1], why + error)
        plain = [p for p in played if p.mutant.op != EDGES]
        extra = within_budget(
            self.follow_ups(acting_on_what_showed(plain)), max(ctx.budget // 4, 1), rng
        )
        again = copied_again(plain, ctx.env.observing_tools, ctx.passes)
        extra += self.follow_ups(again)[:MAX_COPIED]  # beside the draw
        extra += self.follow_ups(retried(plain) + cleared(plain))  # a refused call again
        for m, honest, base in aside[: every.MAX_EVERY] + forbidden:
            self._follow[id(m)] = (honest, base)
            extra.append(m)
        for m in extra:
            honest, base = self._follow[id(m)]
            result, record = await self.play(base.task, m.script, f"search: {m.what}")
            played.append(Played(m, honest, base, result, record))
            why = fault_of(result, ctx.env.reward_range)
            if why is not None:
                self.found("fault", severity_of_fault(result), played[-1], why)
        await rechecks(self, played)
        await self.judge([p for p in played if p.mutant.op not in ("inject", "guess", EDGES)])
        self.follow_ups_played = len(extra)
        return len(played), await self.shrunk(grouped(self.findings))

    def follow_ups(self, pairs: list[tuple[Mutant, Played]]) -> list[Mutant]:
        """Mutants that act on what a changed call showed (`acted_on`), each kept with the
        played mutant it follows."""
        for m, p in pairs:
            self._follow[id(m)] = (p.honest, p.base)
            self._parent_op[id(m)] = p.mutant.op
        return [m for m, _ in pairs]

    def found(self, oracle: str, severity: str, p: Played, why: str) -> None:
        """Record a finding (grouped by root cause later), with the honest world it is
        judged against (the shrinker asks the oracle again)."""
        m = p.mutant
        self.findings.append(
            Finding(
                oracle,
                severity,
                p.base.task.task_id,
                p.honest.control.name,
                m.op,
                m.site,
                m.what,
                why,
                m.script,
                m.script,
            )
        )
        self._worlds[id(self.findings[-1])] = (p.honest.world, p.base.ignored)

    async def judge(self, played: list[Played]) -> None:
        """The oracles over every mutant that passed."""
        ctx = self.ctx
        fixed = task_values(ctx.tasks)
        # a site whose tool takes junk (a wildcard, a shortened or blank string) is free text
        free = {
            p.mutant.site
            for p in played
            if p.mutant.op == "argument"
            and p.mutant.source in JUNK
            and isinstance(p.mutant.new, str)
            and not refused(p)
        }
        failed_sites = {
            p.mutant.site
            for p in played
            if not ctx.passes(p.result)
            and not p.result.mask_sample
            and not (refused(p) and p.mutant.site in free and free_text(p.mutant.old, fixed))
            # a shortcut also cut the trajectory, a follow-up changed an earlier call: their
            # failure says nothing of the value at this site
            and p.mutant.op not in COMPOUND
        }
        needed = needed_steps(played, ctx.passes)
        replays: dict[tuple[str, str], int] = defaultdict(int)
        #: sites where another option of a listing failed: the choice among options is graded
        #: there, so an option that passes on two tasks is one both allow (any free judge)
        options_graded = {
            p.mutant.site
            for p in played
            if (p.mutant.source == "option" or listed_option(p))
            and not ctx.passes(p.result)
            and not p.result.mask_sample
        }
        #: the worlds of mutants judged the policy's freedom (advisory): a compound mutant (a
        #: follow-up after a spray) that leaves one of them adds no evidence
        free_worlds: list[World] = []
        # compound mutants last: one that leaves a world a plain mutant was judged free to
        # leave adds no evidence (`free_worlds`)
        for p in sorted(played, key=lambda p: p.mutant.op in COMPOUND):
            m = p.mutant
            if not ctx.passes(p.result) or p.record is None:
                continue
            # one more made on another entry of the listing is a choice among its options too
            listed = listed_option(p)
            graded_option = (
                m.source in ("option", "one_more") or listed
            ) and m.site in options_graded
            # another option where every option paid here is a free choice (any free hour):
            # another task that lists it too allows it as freely; the words tell (`broken_rule`)
            free_option = (m.source == "option" or listed) and m.site not in options_graded
            # a number inside the window this task's verifier accepts around honest play's
            # is a choice in a region (a marquee pitched a metre along), not a truth ignored
            # where another task's region holds it too
            in_region = await self.tolerance.honest_number(p)
            if m.op == "retry":  # judged only as a refusal bypassed
                if why := bypassed(p, described(p.base.pools.tools, m.site)):
                    self.found("another_world", PAYS, p, why)
                continue
            if m.source == every.SOURCE and await every.overrides(p, self.play):
                continue  # the last option kept: another option chosen, judged as one
            if (
                (graded_option or free_option)
                and (why := named_instead(p))
                and lost(p.record.world, p.honest.world, p.base.ignored)
            ):
                self.found("another_world", PAYS, p, f"full reward with another option: {why}")
                continue
            unjudged = graded_option or free_option or in_region or no_effect(p) or m.op in NO_TRUTH
            if not unjudged and await self.another_truth(p, replays):
                continue
            words_of = p.base.words
            looks = set(ctx.env.observing_tools(p.base.task))
            if (no := said_no(p, looks)) and lost(p.record.world, p.honest.world, p.base.ignored):
                self.found("another_world", PAYS, p, f"full reward after the tool said {no!r}")
                continue
            if row := await gained_row(p, self.play, ctx.passes):
                self.found("another_world", PAYS, p, f"{LEFT_ROW} ({short_list(row)})")
                self._passed[id(self.findings[-1])] = (p.honest.world, row)
                continue
            if no and counted(p, needed, looks):  # a needed step, not what the tool answered
                self.found(
                    "another_world", PAYS, p, f"full reward after the tool said {no!r}{COUNTED}"
                )
                self._still[id(self.findings[-1])] = guesses.keeps_the_tries(m.script)
                continue
            refused_here = frozenset(refused_calls(m.script, p.result))
            if m.op in ("call_reorder", "list_reorder") and (
                order := broken_order(p.honest.control.script, m.script, words_of, refused_here)
            ):
                self.found("stated_rule", PAYS, p, f"full reward: {order}")
                self._still[id(self.findings[-1])] = order_still_broken(
                    p.honest.control.script, words_of
                )
                continue
            if total := stated_total(p, words_of, refused_here):  # overshot and moved back
                self.found("stated_rule", PAYS, p, f"full reward: {total[0]}")
                self._still[id(self.findings[-1])] = total[1]
                continue
            where = passed_over_paths(p, words_of, looks)
            if (
                where
                and m.op == "one_more"
                and not await probes.extra_stands(p, self.play, self.ctx.passes, words_of)
            ):
                where = set()  # paid only after the honest calls: a first-answer rule
            if where:
                self.found(
                    "another_world",
                    PAYS,
                    p,
                    f"full reward with {short_list(where)} written for a thing honest play "
                    "left alone (it looked at it, or the task named it), beside the ones it "
                    "acted on: the choice honest play made there is not graded",
                )
                self._passed[id(self.findings[-1])] = (p.honest.world, where)
                continue
            if m.op in WORDED:  # the reply or the action against the task's words
                rule, still = stated(p, words_of, looks)
                if rule and still is not None:
                    # a value left out of the report of an action honest play took (the
                    # booking made, the quote accepted) gains no reward the action did not
                    # earn: worth telling the author, not an accusation; left out of the
                    # answer to a question, it is the answer withheld
                    acted = bool(lost(p.base.initial, p.honest.world, p.base.ignored))
                    severity = ADVISORY if m.op == "withhold" and acted else PAYS
                    self.found("stated_rule", severity, p, f"full reward: {rule}")
                    self._still[id(self.findings[-1])] = still
                    continue
                if m.op not in ("tool_swap", "undo", "one_more"):
                    continue  # a value said beside the answer, or left out, is no other finding
            if m.source == "alternated" and (reuse := reused(p, words_of, looks)):
                self.found("stated_rule", PAYS, p, f"full reward: {reuse[0]}")
                self._still[id(self.findings[-1])] = reuse[1]
                continue
            aliased = m.op == "alias" and graded(m.site, failed_sites)
            if aliased and await probes.alias_pays(p, self.play, self.ctx.passes):
                gone = lost(p.record.world, p.honest.world, p.base.ignored)
                self.found(
                    "another_world",
                    PAYS,
                    p,
                    f"full reward with another world at {short_list(gone)}, from a call on one "
                    "thing in two roles, where the call left out fails",
                )
                continue
            if why := fraction_of_a_count(p):
                self.found("another_world", PAYS, p, why)
                continue
            if emptied := emptied_required(p, words_of, looks):
                self.found("stated_rule", PAYS, p, f"full reward: {emptied[0]}")
                self._still[id(self.findings[-1])] = emptied[1]
                continue
            # an age rule the words state is a rule whether or not the verifier grades the
            # site (a discount flag no mutant was refused on)
            if (
                m.op == "argument"
                and (aged := under_age_rule(p, words_of))
                and lost(p.record.world, p.honest.world, p.base.ignored)
            ):
                self.found("stated_rule", PAYS, p, f"full reward: {aged}")
                continue
            if not m.honest_kind and graded(m.site, failed_sites):
                if m.op == "spray":  # the slot's own record changed: the wrong answers in it
                    diff = changed(p.record.world, p.honest.world) - p.base.ignored
                elif m.op == "undo" and p.base.initial and made_by_honest_play(p):
                    # a tool honest play itself used, made once more after the work: more of
                    # an action, evidence only where it takes back what honest play did
                    diff = undone(p.record.world, p.honest.world, p.base.initial, p.base.ignored)
                else:
                    diff = lost(p.record.world, p.honest.world, p.base.ignored)
                # a record left as it was, another added beside it, hides from a reading field
                # by field: the lists' members read whole
                stale = stale_lists(p) if m.op in ANOTHER_ACTION else set()
                diff |= stale
                if diff and repeated(p):
                    diff = set()
                if diff and (rule := past_a_limit(p, words_of)):
                    self.found("another_world", PAYS, p, f"full reward: {rule}")
                    continue
                bound = await self.tolerance.honest_number(p) and self.tolerance.one_sided(p)
                if diff and (
                    bound or await self.tolerance.each_within(p) or self.tolerance.more_in_total(p)
                ):
                    free_worlds.append(p.record.world)
                    self.found(
                        "another_world",
                        ADVISORY,
                        p,
                        "full reward beyond the control's value, on the side the verifier "
                        "never closes: a bound with slack (at least what is needed)",
                    )
                    continue
                if (
                    diff
                    and await self.tolerance.honest_number(p) is False
                    and await probes.both_ends(p, self.play, self.ctx.passes)
                ):
                    shown = ", ".join(sorted(diff)[:3])
                    # more of an action (made twice, answers sprayed) may be allowed where the
                    # task names no count: reported, not accused; so is another option the
                    # environment itself printed, chosen instead, unless the task's words
                    # state a rule it breaks and honest play keeps
                    printed = m.source in PRINTED or printed_option(p)
                    rule = (
                        broken_rule(p, words_of)
                        if printed
                        else forbidden_content(p, words_of, frozenset(looks))
                    )
                    # another's record taken; the work and more, the words keeping off the rest
                    tools = [str(s.get("name")) for s in p.base.pools.tools]
                    rule = rule or overwrote_another(p) or collateral(p, diff, words_of, tools)
                    rule = rule or mirrored_violation(p, ctx.controls.get(p.base.task.task_id, []))
                    rule = rule or other_rules(p, words_of, frozenset(looks))
                    rule = rule or await probes.verdict_ungraded(p, self.play, ctx.passes, words_of)
                    rule = None if m.source == "alternated" else rule  # judged by `reused`
                    if m.op == "gather":  # everything in one place: past what it holds?
                        refs = [ctx.reference(t.task_id) for t in ctx.tasks]
                        texts = [words_of, *p.base.pools.shown]
                        scripts = [r.script for r in refs if r is not None]
                        rule = past_a_stated_number(m, scripts, texts)
                    if rule is None and (m.op in MORE_OF_AN_ACTION or printed):
                        # more of an action (or another option that adds to one thing's or
                        # one day's count) where the words cap the count, honest play at it
                        rule = cap_crossed(
                            p.honest.control.script,
                            m.script,
                            m.site.split(".")[0],
                            task_words(ctx.env, p.base.task),
                            refused_here,
                            named_only=m.op not in MORE_OF_AN_ACTION,
                        ) or (every.past_the_cap(p, words_of) if m.source == every.SOURCE else None)
                    more = rule is None and (
                        m.op in MORE_OF_AN_ACTION
                        or m.op == "gather"
                        or (m.site.split(".")[0] in looks and m.op not in ACTS_AT_A_LOOK)
                        # a printed line or a quoted passage posted whole: a rule?
                        or m.source in ("copied_whole", "quoted", "alternated", "named_whole")
                        or (m.op in ANOTHER_ACTION and not left_behind(p, diff) and not stale)
                        or ticked_only(p, diff)  # a counter the extra calls advanced
                        or printed
                        or trimmed_prose(m)
                        or await self.shares.within(p.honest.control, p.mutant.script, p.base.task)
                        or await probes.spare_member(p, self.play, self.ctx.passes)
                        or await probes.slack(p, self.play, self.ctx.passes)
                        or await probes.free_pick(p, self.play, self.ctx.passes)
                        or await probes.coined(p, self.play, self.ctx.passes)
                        or await free_side(p, self.play, self.ctx.passes)
                        or waypoint_moved(p, words_of)
                    )
                    if not more and m.op in COMPOUND:
                        # a follow-up of more of an action (what a spray's extra calls did,
                        # changed) is more of it; one that leaves a world an advisory mutant
                        # left adds no evidence
                        more = self._parent_op.get(id(m)) in MORE_OF_AN_ACTION or any(
                            same_at(p.record.world, w, diff) for w in free_worlds
                        )
                    if more:
                        free_worlds.append(p.record.world)
                    severity = ADVISORY if more else PAYS
                    why = f"full reward with another world at {shown}"
                    self.found("another_world", severity, p, why + (f": {rule}" if rule else ""))
                    continue
            new = p.record.lines - p.base.lines
            if new and not m.honest_kind and graded(m.site, failed_sites):
                lines = ", ".join(f"{f.rsplit('/', 1)[-1]}:{n}" for f, n in sorted(new)[:4])
                self.found(
                    "another_path",
                    ADVISORY,
                    p,
                    f"full reward through lines no pass control runs ({lines})",
                )

    async def another_truth(self, p: Played, replays: dict[tuple[str, str], int]) -> bool:
        """The mutant also passes on a task on which its control fails."""
        for target in p.honest.targets:
            # counted per site and operator: a number in the prose that pays whatever it is
            # must not use up the tries of the answer written as a pattern
            key = (p.mutant.op, p.mutant.site)
            if replays[key] >= REPLAYS_PER_SITE:
                return False
            replays[key] += 1
            result, record = await self.play(target, p.mutant.script, "search: another truth")
            if (
                self.ctx.passes(result)
                and not await self.targets.steered(p, target, record)
                and not await self.targets.chosen(p, target, result)
            ):
                self.found(
                    "another_truth", PAYS, p, f"passes on {target.task_id} too, whose truth differs"
                )
                self.findings[-1].why += f" [target {target.task_id}]"
                return True
        return False

    async def shrunk(self, found: list[Finding]) -> list[Finding]:
        """Each of the first `pays` findings with its minimal trajectory."""
        tasks = {t.task_id: t for t in self.ctx.tasks}
        for f in [f for f in found if f.severity in FAILING][:MAX_SHRUNK]:
            task = tasks[f.task_id]
            target = (
                tasks.get(f.why.rsplit("[target ", 1)[-1].rstrip("]"))
                if "[target " in f.why
                else None
            )
            f.minimal = await shrink(f.whole, self.holds(f, task, target))
        return found

    def holds(self, f: Finding, task: Task, target: Task | None) -> Any:
        async def check(script: Script) -> bool:
            result, record = await self.play(task, script, "search: shrinking")
            if f.oracle == "fault":
                return fault_of(result, self.ctx.env.reward_range) is not None
            if not self.ctx.passes(result):
                return False
            if f.oracle == "another_truth" and target is not None:
                again, _ = await self.play(target, script, "search: shrinking, another truth")
                return self.ctx.passes(again)
            if id(f) in self._seen:  # the looks still show the bound broken
                return self._seen[id(f)](result)
            if id(f) in self._still:  # still what it was
                return self._still[id(f)](script)
            if f.oracle != "another_world" or record is None or id(f) not in self._worlds:
                return False
            if id(f) in self._passed:  # still the record of the thing honest play left alone
                honest_world, where = self._passed[id(f)]
                return bool(gained_at(record.world, honest_world, where))
            honest, ignored = self._worlds[id(f)]
            if f.op == "spray":
                return bool(changed(record.world, honest) - ignored)
            return bool(lost(record.world, honest, ignored))  # still another world

        return check
