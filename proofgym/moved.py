"""Old import paths that keep working for one release, each with a DeprecationWarning.

The core was split by concern (`proofgym.protocol` -> `proofgym.wire.protocol`, ...) and the
composition root moved out (`proofgym.testing` -> `proofgym_stack.testing`, ...). Code written
against the previous release still imports the old paths: `install(MOVED)` (run by
`proofgym/__init__.py`) answers each of them with the module at its new path, the same module
object (so `isinstance`, monkeypatching and identity hold across both names), after a
DeprecationWarning that names the new path. An old package path answers its submodules too
(`proofgym.validation.runner` -> `proofgym_stack.validation.runner`).

Why a finder, not a file per old module: the composition root's new paths may not be imported
by the core (the import contract), so those aliases import by a computed name, only when the
old path is asked for; one table then serves every move alike. This module imports nothing of
the project. The aliases go in the release after this one (`REMOVED_IN`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType

#: the release that drops these aliases
REMOVED_IN = "0.2.0"

#: what an environment author imports instead of any old path (the stable API)
AUTHORS_FACE = "resources_servers.sdk"

#: old module path -> its new path, for every module the previous release shipped that moved
MOVED: Mapping[str, str] = {
    # the wire contract
    "proofgym.canary": "proofgym.wire.canary",
    "proofgym.codec": "proofgym.wire.codec",
    "proofgym.errors": "proofgym.wire.errors",
    "proofgym.jsonlimits": "proofgym.wire.jsonlimits",
    "proofgym.output_items": "proofgym.wire.output_items",
    "proofgym.protocol": "proofgym.wire.protocol",
    "proofgym.responses": "proofgym.wire.responses",
    "proofgym.tokens": "proofgym.wire.tokens",
    "proofgym.trajectory": "proofgym.wire.trajectory",
    # how a service runs (the old `proofgym.serving` module is the package's `server.py`:
    # its names are answered by `proofgym/serving/__init__.py`, not here)
    "proofgym.deadline": "proofgym.serving.deadline",
    "proofgym.fastroute": "proofgym.serving.fastroute",
    "proofgym.guard": "proofgym.serving.guard",
    "proofgym.lean_imports": "proofgym.serving.lean_imports",
    "proofgym.service": "proofgym.serving.service",
    "proofgym.settings": "proofgym.serving.settings",
    "proofgym.timeouts": "proofgym.serving.timeouts",
    # calling the services
    "proofgym.agent_client": "proofgym.clients.agent_client",
    "proofgym.http": "proofgym.clients.http",
    "proofgym.lean_http": "proofgym.clients.lean_http",
    "proofgym.model_client": "proofgym.clients.model_client",
    "proofgym.routing": "proofgym.clients.routing",
    # rollouts at rest
    "proofgym.collect": "proofgym.rollouts.collect",
    "proofgym.export": "proofgym.rollouts.export",
    "proofgym.mixes": "proofgym.rollouts.mixes",
    "proofgym.profiling": "proofgym.rollouts.profiling",
    "proofgym.proofs": "proofgym.rollouts.proofs",
    "proofgym.sqltable": "proofgym.rollouts.sqltable",
    "proofgym.store": "proofgym.rollouts.store",
    "proofgym.viewer": "proofgym.rollouts.viewer",
    # the composition root (imported by computed name: the core may not import it)
    "proofgym.cli": "proofgym_stack.cli",
    "proofgym.testing": "proofgym_stack.testing",
    "proofgym.up": "proofgym_stack.up",
    "proofgym.validation": "proofgym_stack.validation",
}

#: old paths of modules an environment author imports: their warning names the face too
AUTHOR_MODULES = frozenset({"proofgym.protocol", "proofgym.responses", "proofgym.errors"})


def moved_message(old: str, new: str, face: str | None = None) -> str:
    """The one-sentence warning for an old path: where it went, and when the old one goes."""
    also = f" (environment authors: `from {face} import ...`, the stable API)" if face else ""
    return (
        f"{old} moved to {new}; import {new} instead{also}: "
        f"the old path is removed in proofgym {REMOVED_IN}"
    )


class _AliasLoader(importlib.abc.Loader):
    """Loads an old path as the module at its new path (see the module docstring)."""

    def __init__(self, old: str, new: str, face: str | None) -> None:
        self.old, self.new, self.face = old, new, face

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # a placeholder; exec_module puts the real module in its place

    def exec_module(self, module: ModuleType) -> None:
        # stacklevel 2 skips the import machinery's frames: the warning names the importer
        warnings.warn(moved_message(self.old, self.new, self.face), DeprecationWarning, 2)
        # The import system returns what sys.modules holds under the old name once this
        # returns, so the old name is the new module itself, not a copy.
        sys.modules[self.old] = importlib.import_module(self.new)


class MovedFinder(importlib.abc.MetaPathFinder):
    """Answers the old paths of `table` (old -> new) and the submodules of old packages."""

    def __init__(self, table: Mapping[str, str], authors: Sequence[str] = ()) -> None:
        self.table = dict(table)
        self.authors = frozenset(authors)
        self.roots = tuple(sorted({old.split(".")[0] + "." for old in self.table}))

    def new_path(self, fullname: str) -> str | None:
        """Where `fullname` lives now, or None when it is not an old path."""
        if not fullname.startswith(self.roots):
            return None  # the common case, first: every other import passes here
        if fullname in self.table:
            return self.table[fullname]
        for old, new in self.table.items():
            if fullname.startswith(old + "."):
                candidate = new + fullname[len(old) :]
                try:
                    found = importlib.util.find_spec(candidate)
                except (ImportError, ValueError, AttributeError):
                    return None
                return candidate if found is not None else None
        return None

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = self.new_path(fullname)
        if new is None:
            return None
        old_top = next(o for o in self.table if fullname == o or fullname.startswith(o + "."))
        face = AUTHORS_FACE if old_top in self.authors else None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname, new, face))


def install(table: Mapping[str, str], authors: Sequence[str] = ()) -> MovedFinder:
    """Answer the old paths of `table` from now on in this process (once per table: a second
    call with an equal table returns the finder already installed). It goes first on
    `sys.meta_path`, so a submodule of an old package path is the new package's own module,
    never a second copy loaded under the old name; no old path may be a real module (a test
    holds this)."""
    for finder in sys.meta_path:
        if isinstance(finder, MovedFinder) and finder.table == dict(table):
            return finder
    finder = MovedFinder(table, authors)
    sys.meta_path.insert(0, finder)
    return finder
