"""An environment's identity: a hash of every source file and data file that decides what it
does, and the names of the settings that do.

A proof (`proofgym validate`) holds for one version of an environment, and a trainer refuses
rollouts of versions never proven; so the version must move whenever anything that can move a
reward moves. Hashing the environment's own folder misses most of it: the verifier library
its `verify` calls, the base class, the core that reads a final message, and, for a subclass
defined elsewhere, the file that overrides `verify`. So the version is the hash of the source
closure: the module of each class in the environment's method resolution order, and every
module those import (at any depth, at module level or inside a function) from the project's
own packages, package `__init__` files included. The project's packages are every package
that lives beside `proofgym` or beside one of the classes' top-level packages (so a verify
that calls a helper in `sdg/` or in any other package of the project hashes that helper),
never the interpreter's own library or an installed distribution's (`site-packages`): those
are pinned by the lock file, not hashed. An import by a computed name
(`importlib.import_module(x)`) is not followed.

Beside the source, the version hashes the data files the environment declares
(`Environment.data_files`: their bytes, a folder's every file) and the names of the settings
it declares (`Environment.reward_settings`); the settings' values are not in the version,
they are in the reward inputs every rollout is stamped with (`Environment.reward_inputs`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

#: packages whose modules are always part of an environment's identity
CORE = ("proofgym",)


def _spec_file(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None) if module is not None else None
    if path and str(path).endswith(".py"):
        return Path(path)
    return _spec_file(name)


def _imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Every module name `source` (the text of `module`) imports, relative ones resolved;
    for `from X import y`, both X and X.y (y may be a submodule)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base_parts = parts[: len(parts) - node.level + 1] if node.level > 1 else parts
                base = ".".join(base_parts)
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target:
                names.add(target)
                names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


#: (file, its mtime and size, module name, is package) -> what it imports: parsing is most of
#: a closure's cost, and validate asks for the same files' imports again and again
_IMPORTS: dict[tuple[str, int, int, str, bool], frozenset[str]] = {}


def _imports_of(path: Path, module: str, is_package: bool) -> frozenset[str]:
    """`_imported_names` of the file `path`, parsed again only when the file changed."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, module, is_package)
    names = _IMPORTS.get(key)
    if names is None:
        source = path.read_text(encoding="utf-8", errors="replace")
        names = _IMPORTS[key] = frozenset(_imported_names(source, module, is_package))
    return names


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@functools.cache
def _installed_roots() -> tuple[Path, ...]:
    """Folders whose modules are not the project's: the standard library, the interpreter's
    prefixes (a virtualenv inside the project folder included) and installed distributions."""
    paths = sysconfig.get_paths()
    roots = {paths.get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return tuple(Path(r).resolve() for r in roots if r)


def _top_level_folder(name: str) -> Path | None:
    """The folder that holds top-level module or package `name` (None: not a file on disk)."""
    path = _module_file(name)
    if path is None:
        return None
    return path.parent.parent if path.name == "__init__.py" else path.parent


def project_roots(modules: Iterable[str]) -> tuple[Path, ...]:
    """The folders whose packages are the project's, for an environment whose classes live in
    `modules`: those holding `proofgym` and the classes' top-level packages, less any that
    is an installed library's."""
    installed = _installed_roots()
    found = set()
    for top in {m.split(".")[0] for m in modules} | set(CORE):
        folder = _top_level_folder(top)
        if folder is not None and not _under_any(folder.resolve(), installed):
            found.add(folder.resolve())
    return tuple(sorted(found))


def _under_any(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _is_project_file(path: Path, roots: tuple[Path, ...], installed: tuple[Path, ...]) -> bool:
    resolved = path.resolve()
    if "site-packages" in resolved.parts or "dist-packages" in resolved.parts:
        return False
    return _under_any(resolved, roots) and not _under_any(resolved, installed)


def _shares_its_name(path: Path) -> bool:
    """Whether the package at `path` spreads over several folders (`pkgutil.extend_path`,
    `pkg_resources.declare_namespace`): a submodule of it may still be the project's."""
    if path.name != "__init__.py":
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    return "extend_path" in text or "declare_namespace" in text


def source_closure(cls: type) -> dict[str, Path]:
    """Module name -> file of every module `cls`'s behaviour comes from (see the module
    docstring)."""
    roots = [c.__module__ for c in cls.__mro__ if c.__module__ not in ("builtins", "abc")]
    folders = project_roots(roots)
    installed = _installed_roots()
    found: dict[str, Path] = {}
    skipped: set[str] = set()
    #: top-level names that are a file outside the project: none of their submodules is the
    #: project's, and finding one's spec would import its parents (a whole library)
    outside: dict[str, bool] = {}
    todo = [n for r in roots for n in _with_parents(r)]
    while todo:
        name = todo.pop()
        top = name.split(".")[0]
        if name in found or name in skipped or top in ("typing", "builtins"):
            continue
        if top not in outside:
            top_path = _module_file(top)
            outside[top] = (
                top_path is not None
                and not _is_project_file(top_path, folders, installed)
                and not _shares_its_name(top_path)
            )
        if outside[top]:
            skipped.add(name)
            continue
        path = _module_file(name)
        if path is None or not _is_project_file(path, folders, installed):
            skipped.add(name)
            continue
        found[name] = path
        for imported in _imports_of(path, name, path.name == "__init__.py"):
            todo.extend(_with_parents(imported))
    return found


def source_hash(
    cls: type, data_files: Iterable[tuple[str, Path]] = (), settings: Iterable[str] = ()
) -> str:
    """Content hash of `cls`'s source closure, keyed by module name (the same wherever the
    project is installed), of each of `data_files` ((the name it was declared by, its path):
    a missing one hashes as missing, a folder as its every file) and of the `settings` names."""
    digest = hashlib.sha256()
    for name, path in sorted(source_closure(cls).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    for declared, path in sorted(data_files):
        for relative, content in _data_contents(path):
            digest.update(b"data\0" + f"{declared}/{relative}".encode() + b"\0" + content + b"\0")
    for setting in sorted(set(settings)):
        digest.update(b"setting\0" + setting.encode() + b"\0")
    return digest.hexdigest()[:16]


def _data_contents(path: Path) -> list[tuple[str, bytes]]:
    """(path relative to `path`, bytes) of the file `path` or of every file under the folder
    `path` (caches left out), sorted; a missing path is one entry that says so."""
    if path.is_file():
        return [("", path.read_bytes())]
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        return [(p.relative_to(path).as_posix(), p.read_bytes()) for p in files]
    return [("", b"\0missing")]
