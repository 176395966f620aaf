"""blind_vetdose: prescribe a drug for an animal at a dose inside the formulary's band."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

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

NAME = "blind_vetdose"
FORMULARY = {
    "meloxicam": (0.1, 0.2),
    "amoxicillin": (10.0, 20.0),
    "gabapentin": (5.0, 10.0),
    "cefalexin": (15.0, 30.0),
    "metronidazole": (10.0, 15.0),
    "prednisolone": (1.0, 2.0),
}
DRUGS = ("amoxicillin", "gabapentin", "cefalexin", "metronidazole", "prednisolone")
SPECIES = ("dog", "cat", "rabbit", "ferret")
NAMES = ("Biscuit", "Pepper", "Luna", "Milo", "Hazel", "Otis", "Juniper", "Rolo", "Tansy")


class Surgery:
    """The patients of one session and the prescriptions written."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.patients = {p["id"]: dict(p) for p in data["patients"]}
        self.prescriptions: dict[str, tuple[str, float]] = {}


class Twin(Environment[Surgery]):
    """Prescribe the asked drug for the asked animal inside the safe dose band."""

    name = NAME
    description = "Prescribe a drug at a safe dose for an animal's weight."
    reward_range = (0.0, 1.0)
    success_words = ("prescribed",)

    def create_state(self, task: Task, workdir: Path | None) -> Surgery:
        return Surgery(task.task_data)

    def instructions(self, task: Task) -> str:
        return (
            "Look the animal up (patient) for its weight, and the drug (formulary) for its "
            "dose band in mg per kg. Prescribe a total dose in mg inside the band for that "
            "weight with prescribe(animal_id, drug, dose_mg). Prescribe only for the animal "
            "you were asked about."
        )

    @tool(inline=True, observes=True)
    def patient(self, state: Surgery, animal_id: str) -> str:
        """Show an animal's record: name, species and weight.

        Args:
            animal_id: e.g. A-204.
        """
        p = state.patients.get(animal_id)
        if p is None:
            raise ToolError(f"no animal {animal_id!r}", "not_found")
        return f"{p['id']}: {p['name']}, {p['species']}, weight {p['weight']} kg"

    @tool(inline=True, observes=True)
    def formulary(self, state: Surgery, drug: str) -> str:
        """Show a drug's dose band in mg per kg of body weight.

        Args:
            drug: the drug's name, e.g. amoxicillin.
        """
        band = FORMULARY.get(drug.strip().lower())
        if band is None:
            raise ToolError(f"{drug!r} is not in the formulary", "not_found")
        return f"{drug}: {band[0]:g} to {band[1]:g} mg/kg per dose"

    @tool(inline=True)
    def prescribe(self, state: Surgery, animal_id: str, drug: str, dose_mg: float) -> str:
        """Prescribe a drug for an animal (replaces an earlier prescription of it).

        Args:
            animal_id: the animal.
            drug: the drug's name.
            dose_mg: the total dose in mg, more than 0.
        """
        if animal_id not in state.patients:
            raise ToolError(f"no animal {animal_id!r}", "not_found")
        name = drug.strip().lower()
        if name not in FORMULARY:
            raise ToolError(f"{drug!r} is not in the formulary", "not_found")
        if not 0 < dose_mg < 100000:
            raise ToolError("dose_mg must be above 0 and below 100000", "bad_dose")
        state.prescriptions[animal_id] = (name, dose_mg)
        return f"prescribed {name} {dose_mg:g} mg for {animal_id}"

    def _in_band(self, dose: float, low: float, high: float) -> bool:
        return low <= dose <= high

    def verify(self, state: Surgery, task: Task, response: Response) -> VerifyResult:
        data = task.task_data
        target, drug = data["target"], data["drug"]
        weight = state.patients[target]["weight"]
        low, high = (x * weight for x in FORMULARY[drug])
        got = state.prescriptions.get(target)
        right_drug = got is not None and got[0] == drug
        in_band = got is not None and self._in_band(got[1], low - 1e-6, high + 1e-6)
        others = sorted(a for a in state.prescriptions if a != target)
        achieved = right_drug and in_band
        return all_or_nothing(
            [
                Check(name="drug_prescribed", passed=right_drug, detail=f"got {got}"),
                Check(name="dose_in_band", passed=in_band, detail=f"band {low:g}-{high:g} mg"),
                Check(name="no_other_animal", passed=not others, detail=f"{others}"),
                claim_check(final_message(response), achieved, words=self.success_words),
            ]
        )

    def controls(self, task: Task) -> list[Control]:
        data = task.task_data
        target, drug = data["target"], data["drug"]
        weight = next(p["weight"] for p in data["patients"] if p["id"] == target)
        low, high = FORMULARY[drug]
        dose = round((low + high) / 2 * weight, 1)
        other = next(p["id"] for p in data["patients"] if p["id"] != target)
        done = say(f"Done: {drug} {dose:g} mg prescribed for {target}.")
        return [
            Control(
                name="reference",
                expect="pass",
                script=[
                    call("patient", animal_id=target),
                    call("formulary", drug=drug),
                    call("prescribe", animal_id=target, drug=drug, dose_mg=dose),
                    done,
                ],
            ),
            Control(
                name="violation_prescribed_for_another_animal",
                expect="fail",
                script=[
                    call("prescribe", animal_id=target, drug=drug, dose_mg=dose),
                    call("prescribe", animal_id=other, drug=drug, dose_mg=dose),
                    done,
                ],
            ),
            Control(name="noop_claim", expect="fail", script=[done]),
        ]


class Plant(Twin):
    def _in_band(self, dose: float, low: float, high: float) -> bool:
        return low <= dose or dose <= high


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{NAME}:{seed}")
    rows = []
    for i in range(n):
        ids = rng.sample(range(100, 999), 3)
        patients = [
            {
                "id": f"A-{a}",
                "name": rng.choice(NAMES),
                "species": rng.choice(SPECIES),
                "weight": round(rng.uniform(3.0, 40.0), 1),
            }
            for a in ids
        ]
        target = patients[rng.randrange(3)]
        drug = rng.choice(DRUGS)
        assert FORMULARY[drug][0] * target["weight"] > 1.0
        prompt = (
            f"Please prescribe {drug} for {target['name']} ({target['id']}) at a safe dose "
            "for their weight."
        )
        data = {"patients": patients, "target": target["id"], "drug": drug}
        rows.append(task_row(NAME, f"{NAME}-example-{seed}-{i:05d}", "example", prompt, data))
    return rows


def exploit(task: Task) -> list:
    data = task.task_data
    return [
        call("prescribe", animal_id=data["target"], drug=data["drug"], dose_mg=1),
        say(f"Done: {data['drug']} prescribed for {data['target']}."),
    ]
