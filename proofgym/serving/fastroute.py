"""Hot routes served with nothing between the request guard and the handler.

A rollout crosses six service routes, and FastAPI's request cycle (the Starlette middleware
and exception layers, the router, dependency solving, a JSON decode, a validation of the
decoded dict, a validation of the returned model, a JSON encode) cost more CPU than most of
the handlers (bench/HOT_PATH.md). `fast_post(app, path)` declares a route once:

- FastAPI gets it as usual, so `/openapi.json` documents it and a request with the wrong
  method still gets FastAPI's 405;
- `FastRoutes`, installed by `proofgym.serving.service.install_common` inside the request guard and
  the auth and metrics layer, answers the matching POSTs itself: the body the guard already
  read and checked is validated straight from its bytes (`model_validate_json`), the handler
  runs, and a returned model is encoded straight to bytes (`model_dump_json`).

Every limit stays where it was: admission, body size and time, JSON bounds and auth run
before `FastRoutes`. Errors keep FastAPI's statuses and our wire shape: a body that is not
JSON, or not the route's model, is 422 `invalid_request` naming the fields FastAPI would name
(an integer too long to read is 400 `malformed_body`), and any exception goes to the app's
own exception handlers (the same ones FastAPI uses).

An endpoint may take path parameters (`str`), one pydantic model or `bytes` (the body) and
the `Request`; it returns a model or a Starlette `Response`.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from proofgym.serving.guard import BODY_KEY, ASGIApp, Receive, Scope, Send
from proofgym.wire.errors import BadRequest

JSON_HEADERS = [(b"content-type", b"application/json")]

Endpoint = Callable[..., Awaitable[Any]]
Model = type[BaseModel]


@dataclass(frozen=True)
class FastRoute:
    """One POST route `FastRoutes` serves: how to call its endpoint from a raw request."""

    pattern: re.Pattern[str]
    endpoint: Endpoint
    body_param: str | None
    body_model: type[BaseModel] | type[bytes] | None
    request_param: str | None
    exclude_none: bool
    route: Any  # the FastAPI route: `/metrics` labels requests with its path

    @classmethod
    def of(cls, path: str, endpoint: Endpoint, route: Any, exclude_none: bool) -> FastRoute:
        """The fast form of `endpoint` at `path`; TypeError for a parameter it cannot fill."""
        names = re.findall(r"{(\w+)}", path)
        pattern = re.compile(re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", path))
        hints = typing.get_type_hints(endpoint)
        body_param = request_param = None
        body_model: type[BaseModel] | type[bytes] | None = None
        for name in inspect.signature(endpoint).parameters:
            kind = hints.get(name)
            if name in names and kind is str:
                continue
            if kind is Request:
                request_param = name
            elif body_model is None and (
                kind is bytes or (isinstance(kind, type) and issubclass(kind, BaseModel))
            ):
                body_param, body_model = name, kind
            else:
                raise TypeError(
                    f"fast route {path}: parameter {name!r} ({kind}) is not a path parameter, "
                    "the body (a model or bytes) or the Request"
                )
        return cls(pattern, endpoint, body_param, body_model, request_param, exclude_none, route)


def fast_post(app: FastAPI, path: str, **options: Any) -> Callable[[Endpoint], Endpoint]:
    """Declare `POST path` on `app` (FastAPI `options` included) and serve it through
    `FastRoutes` (see the module)."""

    def register(endpoint: Endpoint) -> Endpoint:
        app.post(path, **options)(endpoint)
        exclude_none = bool(options.get("response_model_exclude_none", False))
        add_fast_route(app, path, endpoint, app.router.routes[-1], exclude_none)
        return endpoint

    return register


def add_fast_route(
    app: FastAPI, path: str, endpoint: Endpoint, route: Any, exclude_none: bool = False
) -> None:
    """Serve `POST path` through `FastRoutes` with `endpoint`; `route` is the app's own route
    for that path (what `/metrics` names, what answers the other methods)."""
    app.state.fast_routes.append(FastRoute.of(path, endpoint, route, exclude_none))


class FastRoutes:
    """ASGI middleware answering the POSTs of `routes` itself (see the module); anything
    else goes on to `app`. `handlers` are the app's exception handlers, looked up by the
    exception's class as Starlette does."""

    def __init__(
        self,
        app: ASGIApp,
        routes: list[FastRoute],
        handlers: Mapping[Any, Callable[..., Any]],
    ) -> None:
        self.app = app
        self.routes = routes  # filled after the middleware is added: routes come later
        self.handlers = handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            path = scope["path"]
            for route in self.routes:
                match = route.pattern.fullmatch(path)
                if match is not None:
                    await self._serve(route, match.groupdict(), scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _serve(
        self, route: FastRoute, params: dict[str, Any], scope: Scope, receive: Receive, send: Send
    ) -> None:
        scope["route"] = route.route
        scope["path_params"] = dict(params)  # the path only: the endpoint gets the rest too
        try:
            if route.body_model is not None:
                body = scope.get(BODY_KEY)
                if body is None:
                    body = await Request(scope, receive).body()
                model = route.body_model
                params[route.body_param] = (  # type: ignore[index]
                    body if model is bytes else _validated(typing.cast(Model, model), body)
                )
            if route.request_param is not None:
                params[route.request_param] = Request(scope, receive)
            result = await route.endpoint(**params)
        except Exception as exc:
            handler = self._handler(exc)
            if handler is None:
                raise  # a bug: the auth and metrics layer answers it with a 500
            result = handler(Request(scope, receive), exc)
            if inspect.isawaitable(result):
                result = await result
        if isinstance(result, BaseModel):
            data = result.model_dump_json(by_alias=True, exclude_none=route.exclude_none).encode()
            headers = [*JSON_HEADERS, (b"content-length", str(len(data)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": data})
        else:
            await result(scope, receive, send)

    def _handler(self, exc: Exception) -> Any:
        for cls in type(exc).__mro__:
            if cls in self.handlers:
                return self.handlers[cls]
        return None


def _validated(model: Model, body: bytes) -> BaseModel:
    """`body` as `model`, else RequestValidationError with FastAPI's locations (422
    `invalid_request`); 400 `malformed_body` for a number too long to read."""
    if not body:  # what FastAPI says of a missing body
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        if any(e["type"] == "json_invalid" and "out of range" in e["msg"] for e in errors):
            # an integer too long to read (Python's json stops at 4,300 digits): as FastAPI
            raise BadRequest(
                "the body holds a number too long to read", kind="malformed_body"
            ) from None
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in errors]) from None
