"""Tasks that ask for no action and no content: any reply is the expected action.

A row whose expected action is a completion message ("Summarize the completed change." with
no tool to call) pays any reply; there a bare claim is one more reply like the reference's
own, not success claimed in place of work. `any_reply_passes` asks the environment, by
playing other tasks' replies on the task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proofgym.wire.protocol import Task
from proofgym_stack.validation.answers import actions, final_text

if TYPE_CHECKING:
    from proofgym_stack.validation.context import Context

#: a reply no grader that reads content pays: the stand-in for another task's reply
UNREAD_REPLY = "Zebra quartz mellow; lantern vapour ochre."


async def any_reply_passes(v: Context, task: Task) -> bool:
    """Whether the task asks for no action and no content: its reference makes no tool call,
    and other tasks' whole replies (up to two; where none ends in one, words nobody would
    write) pass on it as well as its own. There a bare claim is one more reply like the
    reference's own (a row whose expected action is a completion message), not success
    claimed in place of work; what such a task pays for content is the garbage negative's."""
    control = v.reference(task.task_id)
    if control is None or actions(control.script):
        return False
    own = final_text(control.script)
    others = []
    for other in v.tasks:
        ref = v.reference(other.task_id) if other.task_id != task.task_id else None
        said = final_text(ref.script) if ref is not None else None
        if said and said.strip() and said != own:
            others.append(said)
    # no other task ends in a reply: words nobody would write stand in for one (where they
    # pass, the content is not read at all, a finding the garbage negative makes once)
    for text in others[:2] or [UNREAD_REPLY]:
        result = await v.run(task, [[{"type": "message", "content": text}]], "probe: a reply")
        if result.mask_sample or not v.passes(result):
            return False
    return True
