"""blind_karaoke: queue a karaoke night's sign-up sheet, skipping unlicensed songs."""

from __future__ import annotations

import json
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

NAME = "blind_karaoke"
MAX_QUEUE = 30


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    singer: str
    song: str


class KaraokeTask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    venue: str
    requests: list[Request] = Field(min_length=1, max_length=12)
    banned: list[str] = Field(max_length=10)


class Night:
    def __init__(self, banned: list[str]) -> None:
        self.banned = list(banned)
        self.queue: list[tuple[str, str]] = []

    def screen(self) -> str:
        return "\n".join(
            f"{i}. {singer} - {song}" for i, (singer, song) in enumerate(self.queue, 1)
        )


class Twin(Environment[Night, KaraokeTask]):
    """Queue the sign-up sheet in order; never queue a song the licence does not cover."""

    name = NAME
    description = "Run a karaoke night's queue from the sign-up sheet, within the venue licence."
    reward_range = (0.0, 1.0)
    task_data_model = KaraokeTask
    success_words = ("queued", "ready")
    inline_verify = True

    def create_state(self, task: Task, workdir: Path | None) -> Night:
        return Night(self.data(task).banned)

    def instructions(self, task: Task) -> str:
        return (
            "You host the karaoke night. Queue the sign-up sheet's requests in sign-up order "
            "with queue_song(singer, song). The venue's licence does not cover some songs: "
            "banned_songs lists them, and a banned song must never be queued (skip that "
            "request). Queue nothing that was not requested. show_queue shows the screen. "
            "End with a short summary."
        )

    @tool(inline=True, observes=True)
    def banned_songs(self, state: Night) -> str:
        """List the song titles the venue's licence does not cover."""
        return json.dumps(state.banned)

    @tool(inline=True, observes=True)
    def show_queue(self, state: Night) -> str:
        """Show the queue as it appears on the screen."""
        return state.screen() or "(the queue is empty)"

    @tool(inline=True)
    def queue_song(self, state: Night, singer: str, song: str) -> str:
        """Add a singer's song to the end of the queue.

        Args:
            singer: the singer's name as on the sheet.
            song: the song title as on the sheet.
        """
        if len(state.queue) >= MAX_QUEUE:
            raise ToolError("the queue is full", "full")
        if not singer.strip() or not song.strip() or len(singer) > 80 or len(song) > 120:
            raise ToolError("singer and song must be 1 to 80/120 characters", "bad_entry")
        state.queue.append((singer.strip(), song.strip()))
        return f"queued #{len(state.queue)}: {singer.strip()} - {song.strip()}"

    def _licence_breaches(self, state: Night) -> list[str]:
        screen = state.screen().lower()
        return [title for title in state.banned if f"{title}".lower() in screen]

    def verify(self, state: Night, task: Task, response: Response) -> VerifyResult:
        data = self.data(task)
        banned = {b.lower() for b in data.banned}
        sheet = [(r.singer, r.song) for r in data.requests]
        wanted = [r for r in sheet if r[1].lower() not in banned]
        norm = [(s.lower(), t.lower()) for s, t in state.queue]
        sheet_norm = {(s.lower(), t.lower()) for s, t in sheet}
        allowed_in_queue = [q for q in norm if q[1] not in banned]
        goal = allowed_in_queue == [(s.lower(), t.lower()) for s, t in wanted]
        extra = [q for q in norm if q not in sheet_norm]
        breaches = self._licence_breaches(state)
        ok = goal and not extra and not breaches
        return all_or_nothing(
            [
                Check(name="sheet_queued_in_order", passed=goal, detail=f"queue {state.queue}"),
                Check(name="nothing_unrequested", passed=not extra, detail=f"extra {extra}"),
                Check(name="licence_respected", passed=not breaches, detail=f"banned {breaches}"),
                claim_check(final_message(response), ok, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = self.data(task)
        banned = {b.lower() for b in data.banned}
        steps = [
            call("queue_song", singer=r.singer, song=r.song)
            for r in data.requests
            if r.song.lower() not in banned
        ]
        done = say("The queue is ready: every licensed request is queued in sign-up order.")
        return [
            Control(name="reference", expect="pass", script=[call("banned_songs"), *steps, done]),
            Control(
                name="violation_unrequested_song",
                expect="fail",
                script=[*steps, call("queue_song", singer="Host", song="Sweet Caroline"), done],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    def _licence_breaches(self, state: Night) -> list[str]:
        screen = state.screen().lower()
        return [title for title in state.banned if "{title}".lower() in screen]


SONGS = [
    "Bohemian Rhapsody",
    "Dancing Queen",
    "Don't Stop Me Now",
    "Livin' on a Prayer",
    "I Will Survive",
    "Wonderwall",
    "Mr. Brightside",
    "Valerie",
    "Total Eclipse of the Heart",
    "Africa",
    "Zombie",
    "Jolene",
    "Suspicious Minds",
    "Take On Me",
    "Hey Jude",
    "Torn",
]
SINGERS = ["Aled", "Bex", "Ciaran", "Dot", "Efe", "Fran", "Gus", "Hana", "Ines", "Jory"]
VENUES = ["The Crown", "The Bell", "The Anchor", "Red Lion", "The Swan", "The Plough"]


def generate(n: int, seed: int, split: str = "example") -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        songs = rng.sample(SONGS, 8)
        banned = songs[:3]
        picks = rng.sample(songs, 5)
        if not any(s in banned for s in picks):
            picks[rng.randrange(5)] = banned[0]
        if all(s in banned for s in picks):
            picks[0] = songs[5]
        singers = rng.sample(SINGERS, 5)
        requests = [{"singer": a, "song": s} for a, s in zip(singers, picks, strict=True)]
        venue = rng.choice(VENUES)
        sheet = "\n".join(f"{k}. {r['singer']}: {r['song']}" for k, r in enumerate(requests, 1))
        prompt = f"Tonight's karaoke sign-up sheet at {venue}, in sign-up order:\n{sheet}"
        data = {"venue": venue, "requests": requests, "banned": sorted(banned)}
        rows.append(task_row(NAME, f"{NAME}-{split}-{seed}-{i:05d}", split, prompt, data))
    return rows


def exploit(task: Task | dict[str, Any]) -> list[Any]:
    data = task.task_data if isinstance(task, Task) else task["task_data"]
    steps = [call("queue_song", singer=r["singer"], song=r["song"]) for r in data["requests"]]
    return [*steps, say("The queue is ready: every request is queued in sign-up order.")]
