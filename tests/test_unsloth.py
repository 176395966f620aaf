"""Unsloth: without a GPU it says so plainly; its extra admits the releases Unsloth pins.

Not run here: loading a model with Unsloth and a training step (no GPU was lent to this task;
`pip install --dry-run '.[unsloth]'` resolved unsloth 2026.10.9 with trl 1.15.0 and
transformers 5.17.0)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import torch
from packaging.requirements import Requirement

from trainers import unsloth

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_without_a_gpu_it_says_what_to_do() -> None:
    with pytest.raises(RuntimeError) as caught:
        unsloth.load("any/model")
    assert "GPU" in str(caught.value) and "trainers.trl" in str(caught.value)


def test_the_extra_admits_unsloths_pins() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    reqs = {Requirement(r).name: Requirement(r) for r in extras["unsloth"]}
    assert "unsloth" in reqs
    assert reqs["trl"].specifier.contains("1.15.0")  # Unsloth pins trl <= 1.15
    assert reqs["transformers"].specifier.contains("5.17.0")  # and transformers <= 5.17
    assert extras["trl"][-1] == extras["unsloth"][2]  # the TRL adapter's range is the same
