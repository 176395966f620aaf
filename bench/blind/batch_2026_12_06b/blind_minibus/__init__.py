"""blind_minibus: confirm every pending seat request for a community minibus outing."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from resources_servers.sdk import (
    Check,
    Control,
    Environment,
    Response,
    Task,
    ToolError,
    VerifyResult,
    all_or_nothing,
    call,
    claim_check,
    final_message,
    say,
    tool,
)
from sdg.rows import task_row

NAME = "blind_minibus"


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    passenger: str
    trip: str
    status: str = Field(pattern="^(pending|waitlist)$")


class MinibusTask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    trip: str
    requests: list[Request] = Field(min_length=2)


class Req:
    def __init__(self, r: Request) -> None:
        self.id = r.id
        self.passenger = r.passenger
        self.trip = r.trip
        self.status = r.status


class Desk:
    def __init__(self, data: MinibusTask) -> None:
        self.requests = {r.id: Req(r) for r in data.requests}


class Twin(Environment[Desk, MinibusTask]):
    name = NAME
    description = "Confirm the pending seat requests for a minibus outing."
    task_data_model = MinibusTask
    success_words = ("confirmed",)

    def create_state(self, task: Task, workdir: Path | None) -> Desk:
        return Desk(self.data(task))

    def instructions(self, task: Task) -> str:
        return (
            "You coordinate a community minibus. list_requests shows the seat requests; "
            "confirm confirms one request by its id, decline declines one. Waitlisted "
            "requests stay on the waitlist. Reply when you are done."
        )

    @tool(observes=True)
    def list_requests(self, state: Desk) -> str:
        """List every seat request with its status."""
        return "\n".join(
            f"{r.id}: {r.passenger}, {r.trip}, {r.status}" for r in state.requests.values()
        )

    def _pending(self, state: Desk, request_id: str) -> Req:
        req = state.requests.get(request_id.strip().upper())
        if req is None:
            raise ToolError(f"no request {request_id!r}", "unknown_request")
        if req.status in ("declined", "waitlist"):
            raise ToolError(f"request {req.id} is {req.status}", "not_pending")
        return req

    def _confirm(self, state: Desk, req: Req) -> None:
        req.status = "confirmed"

    @tool
    def confirm(self, state: Desk, request_id: str) -> str:
        """Confirm one pending seat request.

        Args:
            request_id: the request's id, e.g. "S3".
        """
        req = self._pending(state, request_id)
        self._confirm(state, req)
        return f"request {req.id} ({req.passenger}) confirmed"

    @tool
    def decline(self, state: Desk, request_id: str) -> str:
        """Decline one pending seat request.

        Args:
            request_id: the request's id, e.g. "S3".
        """
        req = self._pending(state, request_id)
        if req.status == "confirmed":
            raise ToolError(f"request {req.id} is already confirmed", "confirmed")
        req.status = "declined"
        return f"request {req.id} ({req.passenger}) declined"

    def verify(self, state: Desk, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        checks = []
        for r in data.requests:
            want = "confirmed" if r.status == "pending" else r.status
            got = state.requests[r.id].status
            checks.append(Check(name=f"request_{r.id}", passed=got == want, detail=got))
        done = all(c.passed for c in checks)
        checks.append(claim_check(final_message(response), done, words=self.success_words))
        return all_or_nothing(checks)

    def controls(self, task: Task) -> list[Control]:
        d = self.data(task)
        pending = [r.id for r in d.requests if r.status == "pending"]
        done = say(f"All pending seat requests for {d.trip} are confirmed.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[*(call("confirm", request_id=i) for i in pending), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
            Control(
                name="violation_declined_one",
                expect="fail",
                script=[
                    call("decline", request_id=pending[0]),
                    *(call("confirm", request_id=i) for i in pending[1:]),
                    done,
                ],
            ),
        ]


class Plant(Twin):
    def _confirm(self, state: Desk, req: Req) -> None:
        for r in state.requests.values():
            if r.trip == req.trip and r.status == "pending":
                r.status = "confirmed"


PEOPLE = ["Ada", "Bill", "Cora", "Dev", "Elsie", "Frank", "Gita", "Hal", "Iris", "Joe", "Kit"]
TRIPS = ["Saturday coast trip", "garden centre run", "Thursday market", "theatre matinee"]


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        trip = rng.choice(TRIPS)
        people = rng.sample(PEOPLE, rng.randint(4, 7))
        reqs = []
        for k, person in enumerate(people):
            status = "waitlist" if k >= 3 and rng.random() < 0.4 else "pending"
            reqs.append({"id": f"S{k + 1}", "passenger": person, "trip": trip, "status": status})
        prompt = f"Confirm every pending seat request for the {trip}."
        data = {"trip": trip, "requests": reqs}
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task) -> list:
    return [call("confirm", request_id="S1"), say("All pending requests are confirmed.")]
