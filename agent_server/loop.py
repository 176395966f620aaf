"""One rollout: seed_session -> responses_loop -> verify -> close_session.

Infrastructure failures are data: the rollout comes back masked with its failure kind, never
as a silent reward of 0, and the session is always closed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import uuid
from typing import Any

from openai.types.responses import Response

from agent_server.replicas import ReplicaSet
from proofgym.clients.http import CallFailed, ServiceClient, error_detail, troubles
from proofgym.rollouts.proofs import Identity, ProofBook
from proofgym.rollouts.signing import sign_row
from proofgym.serving import deadline, timeouts
from proofgym.serving.settings import AgentSettings
from proofgym.wire.errors import (
    BadRequest,
    Conflict,
    InvalidRequest,
    NotFound,
    ProofgymError,
    known_kind,
)
from proofgym.wire.jsonlimits import MAX_BYTES, loads_limited, scrub_surrogates
from proofgym.wire.output_items import check_output
from proofgym.wire.protocol import (
    CLOSE_HEADER,
    CLOSED_HEADER,
    FailureKind,
    RunRequest,
    RunResult,
    TerminationReason,
    Timings,
    Usage,
    VerifyResult,
)
from proofgym.wire.responses import build_response, function_call_output, normalize_input
from proofgym.wire.tokens import is_trainable

#: seconds before an unproven environment version is looked up again
PROOF_RECHECK_S = 5.0

log = logging.getLogger("proofgym.agent")


REJECTIONS: dict[int, type[ProofgymError]] = {
    400: BadRequest,
    404: NotFound,
    409: Conflict,
    422: InvalidRequest,
}


class RolloutFailed(Exception):
    """An infrastructure failure that ends a rollout; becomes a masked RunResult."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: FailureKind = kind
        self.reason = reason


class Unreached(RolloutFailed):
    """No connection to the replica at `url` could be made: nothing ran there."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__("resources_error", reason)
        self.url = url


def timeout_reason(limit: float, left: float, upstream: list[str]) -> str:
    """Why a rollout timed out: the limit that fired (the agent's own `rollout_timeout_s`, or
    the caller's shorter budget) and the last trouble an upstream gave, if any."""
    if left < limit - 0.5:
        why = f"the rollout ran past the caller's budget of {left:.1f}s"
    else:
        why = f"the rollout ran past the agent's rollout_timeout_s of {limit:g}s"
    if upstream:
        why += f"; the last upstream trouble: {upstream[-1]}"
    return why


class _Rollout:
    """The mutable record of one rollout while it runs."""

    def __init__(self) -> None:
        self.outputs: list[dict[str, Any]] = []
        self.turns: list[list[dict[str, Any]]] = []
        self.steps = 0
        self.termination: TerminationReason = "error"
        self.usage = Usage()
        self.timings = Timings()
        self.model_name = "unknown"
        self.response: Response | None = None  # built once the loop ends
        self.sent: dict[str, Any] = {}  # what the policy was sent at the first step
        self.closed = False  # the resources server closed the session with its verdict
        self.env_version: str | None = None  # as the serving resources server names it
        self.judge: str | None = None  # the judge and settings digest it names beside it
        self.settings_digest: str | None = None


class RolloutRunner:
    """Runs rollouts against the resources servers and the model interface the settings name."""

    def __init__(self, settings: AgentSettings, client: ServiceClient) -> None:
        self.settings = settings
        self.client = client
        self.default_set = ReplicaSet(settings.resources_urls)
        self.env_sets = {env: ReplicaSet(urls) for env, urls in settings.env_urls.items()}
        self.running: set[str] = set()  # rollout ids (= session ids) in flight
        self.leased: dict[str, str] = {}  # rollout id -> env URL of its (maybe) open session
        self.keys: dict[str, str] = {}  # rollout id -> its owned session's key
        given = settings.proof_key.get_secret_value() if settings.proof_key else None
        self.proofs = ProofBook(settings.proofs_dir, given) if settings.proofs_dir else None
        # rows are signed with the operator's key: the given one, else the proofs folder's
        # (generated there on first use, when the first rollout is stamped)
        self._key: bytes | None = given.encode() if given else None
        self._unsigned = False  # no key could be had: said once, not tried per rollout
        # proofs are only ever added: a yes is kept, a no is asked again after a while
        self.proven: dict[Identity, float] = {}
        self.limits = settings.guard_limits()  # what the services' guards take (same settings)

    async def env_url(self, env: str, session_id: str, unreachable: Unreached | None = None) -> str:
        """The base URL of `env` for this session (sticky across replicas); after
        `unreachable`, a failure to connect to one, a URL on another replica (the failure
        itself when there is none)."""
        if unreachable is not None:
            replicas = self.env_sets.get(env) or self.default_set
            gone = unreachable.url
            if not replicas.forget(gone if env in self.env_sets else gone.removesuffix(f"/{env}")):
                raise unreachable
        if env in self.env_sets:
            url = await self.env_sets[env].pick(session_id)
        else:
            base = await self.default_set.pick(session_id)
            url = None if base is None else f"{base}/{env}"
        if url is None:
            raise RolloutFailed("resources_error", f"no resources replica found for {env}")
        return url

    async def run(self, request: RunRequest) -> RunResult:
        """Run one rollout to its end and return what happened, failures included."""
        rollout_id = request.rollout_id or uuid.uuid4().hex
        if rollout_id in self.running:  # two callers must never share one session
            raise Conflict(f"rollout {rollout_id} is already running", kind="rollout_running")
        self.running.add(rollout_id)
        try:
            return await self._run(request, rollout_id)
        finally:
            self.running.discard(rollout_id)
            self.leased.pop(rollout_id, None)
            self.keys.pop(rollout_id, None)

    async def _run(self, request: RunRequest, rollout_id: str) -> RunResult:
        task = request.task
        env_url = ""
        state = _Rollout()
        start = time.perf_counter()
        verdict: VerifyResult | None = None
        failure: RolloutFailed | None = None
        seeded = False
        limit = self.settings.rollout_timeout_s
        left = limit
        upstream: list[str] = []
        try:
            with deadline.within(limit), troubles() as upstream:
                left = deadline.remaining() or 0.0  # the caller's budget, when it is shorter
                async with timeouts.timeout(max(0.0, left)):
                    env_url = await self.env_url(task.env, rollout_id)
                    try:
                        seed = await self._seed(env_url, rollout_id, request)
                    except Unreached as exc:  # nothing ran there: a new session goes elsewhere
                        env_url = await self.env_url(task.env, rollout_id, unreachable=exc)
                        if env_url == exc.url:
                            raise
                        seed = await self._seed(env_url, rollout_id, request)
                    seeded = True
                    state.env_version = seed.get("env_version") or request.task.env_version
                    state.judge = seed.get("judge")
                    state.settings_digest = seed.get("settings_digest")
                    params = await self._params(request, env_url, seed)
                    await self._loop(request, params, env_url, rollout_id, state)
                    verify_start = time.perf_counter()
                    verdict = await self._verify(env_url, rollout_id, state)
                    state.timings.verify = time.perf_counter() - verify_start
        except TimeoutError:
            failure = RolloutFailed("timeout", timeout_reason(limit, left, upstream))
        except RolloutFailed as exc:
            failure = exc
        finally:
            if env_url and (seeded or failure is not None) and not state.closed:
                with deadline.lifted():  # the session must close even after the deadline
                    await self._close(env_url, rollout_id)
        state.timings.total = time.perf_counter() - start
        return self._result(request, rollout_id, state, verdict, failure)

    async def _resources(
        self, url: str, body: Any, headers: dict[str, str] | None = None, idempotent: bool = True
    ) -> Any:
        try:
            return await self.client.post_json(url, body, headers=headers, idempotent=idempotent)
        except CallFailed as exc:
            # capacity other sessions held past this call's deadline: say whose load it was
            kind: FailureKind = (
                "others_load"
                if error_detail(exc.body).get("kind") == "others_load"
                else "resources_error"
            )
            raise RolloutFailed(kind, str(exc)) from None

    async def _seed(self, env_url: str, rollout_id: str, request: RunRequest) -> Any:
        # the session is this rollout's alone: never joined, touched only with this key
        key = self.keys[rollout_id] = secrets.token_hex(16)
        body = {
            "session_id": rollout_id,
            "task": request.task.model_dump(mode="json"),
            "lease_s": self.settings.session_lease_s,
            "session_key": key,
        }
        self.leased[rollout_id] = env_url
        try:
            # A seed, like a verify, shares its environment's pool with other sessions'
            # blocking work and is never refused there: wait for it within the rollout's
            # budget, so that others' load never masks this rollout at its first step.
            return await self.client.post_json(
                f"{env_url}/seed_session", body, timeout=self._patience()
            )
        except CallFailed as exc:
            if not exc.reached:
                raise Unreached(env_url, str(exc)) from None
            rejected = REJECTIONS.get(exc.status or 0)
            if rejected is None:
                raise RolloutFailed("resources_error", str(exc)) from None
            # The environment refused the task itself (wrong version, bad task_data): that is
            # the caller's input to fix, not an outage to mask and retry.
            error = error_detail(exc.body)
            raise rejected(
                f"{request.task.env} refused task {request.task.task_id}: "
                f"{error.get('message', exc)}",
                kind=known_kind(error.get("kind")),
            ) from None

    async def _params(
        self, request: RunRequest, env_url: str, seed: dict[str, Any]
    ) -> dict[str, Any]:
        params = {**request.task.responses_create_params, **request.model_params}
        params["tools"] = list(params.get("tools") or []) + list(seed.get("tools") or [])
        instructions = [t for t in (seed.get("instructions"), params.get("instructions")) if t]
        if instructions:
            params["instructions"] = "\n\n".join(instructions)
        if request.control is not None:
            body = {"task": request.task.model_dump(mode="json")}
            answer = await self._resources(f"{env_url}/controls", body)
            scripts = {c["name"]: c["script"] for c in answer.get("controls", [])}
            if request.control not in scripts:
                raise NotFound(
                    f"{request.task.env} has no control {request.control!r}; "
                    f"it has {sorted(scripts)}",
                    kind="unknown_control",
                )
            params.update(model="scripted", script=scripts[request.control])
        return params

    async def _loop(
        self,
        request: RunRequest,
        params: dict[str, Any],
        env_url: str,
        rollout_id: str,
        state: _Rollout,
    ) -> None:
        history = normalize_input(params.pop("input"))
        if params.get("script") is not None:  # the scripted policy's turns start after the prompt
            params["script_from"] = len(history)
        state.sent = {
            **{k: v for k, v in params.items() if k not in ("script", "script_from", "model")},
            "input": history,
        }
        tool_names = {t.get("name") for t in params["tools"]}
        max_steps = request.max_steps or self.settings.max_steps
        for _ in range(max_steps):
            model_start = time.perf_counter()
            response = await self._model(
                {**params, "input": history + state.outputs}, rollout_id, first=state.steps == 0
            )
            state.timings.model += time.perf_counter() - model_start
            state.steps += 1
            state.model_name = response.get("model", state.model_name)
            # Policy content: a lone surrogate cannot be encoded as UTF-8 and would fail every
            # later hop (and the RunResult itself), turning the policy's text into an outage.
            items = scrub_surrogates(list(response.get("output") or []))
            state.outputs.extend(items)
            state.turns.append(items)
            usage = response.get("usage") or {}
            state.usage.input_tokens += int(usage.get("input_tokens", 0))
            state.usage.output_tokens += int(usage.get("output_tokens", 0))
            if response.get("status") == "incomplete":
                state.termination = "length"
                return
            calls = [i for i in items if i.get("type") == "function_call"]
            if not calls:
                state.termination = "final_message"
                return
            tools_start = time.perf_counter()
            cap = self.settings.max_tool_calls_per_turn
            outputs = await asyncio.gather(
                *(self._tool(env_url, rollout_id, call, tool_names) for call in calls[:cap])
            )
            outputs += [
                function_call_output(
                    str(call.get("call_id", "")),
                    f"Error: too many tool calls in one turn; the first {cap} ran, "
                    "this one did not",
                )
                for call in calls[cap:]
            ]
            state.timings.tools += time.perf_counter() - tools_start
            state.outputs.extend(outputs)
        state.termination = "max_steps"

    async def _model(self, body: dict[str, Any], rollout_id: str, first: bool) -> dict[str, Any]:
        try:
            # Not idempotent for retries: the model interface already retried its upstream,
            # and a second layer would multiply the upstream calls of one step. Only a call
            # that never reached it, or that it refused unrun, is sent again. Like a verify,
            # a generation may queue behind other rollouts' (a batching server): it is waited
            # for within the rollout's own budget, never less than one request timeout.
            answer = await self.client.post_json(
                f"{self.settings.model_url.rstrip('/')}/v1/responses",
                body,
                headers={"X-Rollout-Id": rollout_id},
                idempotent=False,
                timeout=self._patience(),
            )
        except CallFailed as exc:
            if first and exc.status in (400, 422):
                # The first request is the caller's own (its model_params, its task's
                # input): a refusal of it is the caller's to fix, not a sample to mask and
                # redo on every rerun. Later steps carry the policy's own turns: masked.
                error = error_detail(exc.body)
                raise BadRequest(
                    f"the model refused this rollout's request: {error.get('message', exc)}",
                    kind="model_refused",
                ) from None
            raise RolloutFailed("model_error", str(exc)) from None
        if not isinstance(answer, dict) or not isinstance(answer.get("output"), list):
            raise RolloutFailed("model_error", "model interface answered no Response")
        try:  # each turn's items once, so a malformed one fails here, as the model's fault
            check_output(answer["output"])
        except ValueError as exc:
            raise RolloutFailed(
                "model_error", f"model interface answered a malformed item: {exc}"
            ) from None
        return answer

    async def _tool(
        self, env_url: str, rollout_id: str, call: dict[str, Any], tool_names: set[Any]
    ) -> dict[str, Any]:
        call_id = str(call.get("call_id", ""))
        name = call.get("name")
        if name not in tool_names:
            return function_call_output(
                call_id, f"Error: unknown tool {name!r}; available: {sorted(map(str, tool_names))}"
            )
        try:
            arguments = scrub_surrogates(loads_limited(call.get("arguments") or "{}"))
        except ValueError as exc:
            return function_call_output(
                call_id, f"Error: arguments are not valid JSON (or too deep or too large): {exc}"
            )
        if not isinstance(arguments, dict):
            return function_call_output(call_id, "Error: arguments must be a JSON object")
        # What the resources server's guard would refuse (413, 400) is the policy's doing:
        # answered here as a tool error it is scored; refused there it would be masked.
        sent = json.dumps(arguments).encode()  # as the HTTP client will encode it
        problem = (
            f"{len(sent)} bytes once encoded, over the limit of {MAX_BYTES}"
            if len(sent) > MAX_BYTES
            else self.limits.content_problem(sent)
        )
        if problem is not None:
            return function_call_output(call_id, f"Error: arguments refused: {problem}")
        # Tools may have effects, so a call that may have reached the server is not retried.
        result = await self._resources(
            f"{env_url}/tools/{name}",
            arguments,
            headers=self._session_headers(rollout_id),
            idempotent=False,
        )
        return function_call_output(call_id, str(result.get("output", "")))

    async def _verify(self, env_url: str, rollout_id: str, state: _Rollout) -> VerifyResult:
        response = state.response = self._response(state)
        body = {"session_id": rollout_id, "response": response.model_dump(mode="json")}
        # Asked to close the session with its verdict: one call fewer per rollout. A server
        # that did so says `X-Proofgym-Closed: 1`; one that did not (an older version, or a
        # verify that failed) leaves it to the separate close that follows.
        headers = {**self._session_headers(rollout_id), CLOSE_HEADER: "1"}
        # A verify may queue behind other sessions' sandbox runs: the agent waits for its
        # verdict within the rollout's own budget, not one request timeout, so that a
        # short PROOFGYM_REQUEST_TIMEOUT_S never turns someone else's load into a mask.
        try:
            answer = await self.client.post(
                f"{env_url}/verify", body, headers=headers, timeout=self._patience()
            )
            state.closed = answer.header(CLOSED_HEADER) == "1"
            return VerifyResult.model_validate(answer.body)
        except CallFailed as exc:
            # No answer, or a session the server no longer knows: the server failed, not the
            # verifier.
            lost = exc.status is None or exc.status == 404
            kind: FailureKind = "resources_error" if lost else "verify_error"
            raise RolloutFailed(kind, str(exc)) from None
        except ValueError as exc:
            raise RolloutFailed("verify_error", f"unusable verify answer: {exc}") from None

    def _patience(self) -> float:
        """How long to wait for an answer that may queue behind other rollouts' work (a
        generation, a verify): what is left of this rollout's budget, at least one request
        timeout."""
        return max(self.client.settings.request_timeout_s, deadline.remaining() or 0.0)

    async def _close(self, env_url: str, rollout_id: str) -> None:
        try:
            await self.client.post_json(
                f"{env_url}/close_session",
                {"session_id": rollout_id},
                headers=self._session_headers(rollout_id),
                timeout=10.0,
            )
        except CallFailed as exc:  # unrenewed, the lease runs out and the server reaps it
            log.info("closing %s failed: %s", rollout_id, exc)
        finally:
            self.leased.pop(rollout_id, None)

    def _session_headers(self, rollout_id: str) -> dict[str, str]:
        headers = {"X-Session-Id": rollout_id}
        key = self.keys.get(rollout_id)
        if key:
            headers["X-Session-Key"] = key
        return headers

    async def renew_leases(self) -> int:
        """Renew the session of every running rollout, one call per environment URL; return
        how many sessions the servers renewed. A failed call is logged: the next one, a
        third of a lease later, tries again."""
        by_url: dict[str, list[dict[str, str]]] = {}
        for rollout_id, env_url in list(self.leased.items()):
            key = self.keys.get(rollout_id)
            if key:
                ref = {"session_id": rollout_id, "session_key": key}
                by_url.setdefault(env_url, []).append(ref)
        renewed = 0
        for env_url, refs in by_url.items():
            try:
                answer = await self.client.post_json(
                    f"{env_url}/renew_sessions", {"sessions": refs}, timeout=10.0
                )
                renewed += int(answer.get("renewed", 0))
            except (CallFailed, AttributeError, ValueError) as exc:
                log.warning("renewing %d sessions at %s failed: %s", len(refs), env_url, exc)
        return renewed

    async def renew_forever(self) -> None:
        """Renew leases every third of a lease, until cancelled (the agent's lifespan)."""
        while True:
            await asyncio.sleep(self.settings.session_lease_s / 3)
            with deadline.lifted():
                await self.renew_leases()

    def _response(self, state: _Rollout) -> Response:
        usage = {
            "input_tokens": state.usage.input_tokens,
            "output_tokens": state.usage.output_tokens,
        }
        return build_response(state.outputs, model=state.model_name, usage=usage)

    def _proven(self, ident: Identity) -> bool | None:
        """Whether a passing certificate covers `ident` (None: this agent keeps no proofs)."""
        if self.proofs is None:
            return None
        if not ident.version:
            return False
        now = time.monotonic()
        if self.proven.get(ident, -1.0) == float("inf"):
            return True
        if now - self.proven.get(ident, -60.0) < PROOF_RECHECK_S:
            return False
        ok = self.proofs.is_proven(ident)
        self.proven[ident] = float("inf") if ok else now
        return ok

    def _signing_key(self) -> bytes | None:
        """The key rows are signed with (None: no key given and no proofs folder)."""
        if self._key is None and self.proofs is not None and not self._unsigned:
            try:
                self._key = self.proofs.key(create=True)
            except (OSError, ValueError) as exc:  # a read-only or broken proofs folder
                log.warning("rollouts go unsigned (no gate admits them): %s", exc)
                self._unsigned = True  # said once
        return self._key

    def _result(
        self,
        request: RunRequest,
        rollout_id: str,
        state: _Rollout,
        verdict: VerifyResult | None,
        failure: RolloutFailed | None,
    ) -> RunResult:
        state.usage.total_tokens = state.usage.input_tokens + state.usage.output_tokens
        trainable, _ = is_trainable(state.turns)
        if failure is not None:
            # once per masked rollout: the trainer drops it, so the log is where it shows
            log.warning("rollout %s masked: %s: %s", rollout_id, failure.kind, failure.reason)
            state.termination = "error"
            verdict = VerifyResult(
                reward=0.0,
                mask_sample=True,
                failure_kind=failure.kind,
                failure_reason=failure.reason,
            )
        assert verdict is not None
        version = state.env_version or request.task.env_version
        ident = Identity(request.task.env, state.env_version, state.judge, state.settings_digest)
        result = RunResult(
            rollout_id=rollout_id,
            task_id=request.task.task_id,
            env=request.task.env,
            env_version=version,
            env_proven=self._proven(ident),
            judge=state.judge,
            settings_digest=state.settings_digest,
            reward=verdict.reward,
            reward_components=verdict.reward_components,
            checks=verdict.checks,
            response=state.response or self._response(state),
            responses_create_params=state.sent,
            num_steps=state.steps,
            termination_reason=state.termination,
            usage=state.usage,
            timings=state.timings,
            trainable=trainable and not verdict.mask_sample,
            mask_sample=verdict.mask_sample,
            failure_kind=verdict.failure_kind,
            failure_reason=verdict.failure_reason,
        )
        key = self._signing_key()
        return result if key is None else sign_row(key, result)
