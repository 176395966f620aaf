"""The Kubernetes manifests (deploy/kubernetes): every overlay rendered, every object valid
against the real Kubernetes schemas of two minor versions (offline: kubernetes-validate ships
them), and what the services need checked against the code.

No cluster runs here. Rendering follows kustomize for the features the manifests use and no
other (`resources`, `namespace`, `labels`, `images`, JSON 6902 `patches` with a target): a
kustomization using anything else fails this test rather than being rendered wrongly.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonpatch
import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy" / "kubernetes"
OVERLAYS = sorted(p.name for p in (DEPLOY / "overlays").iterdir() if p.is_dir())
VERSIONS = ("1.31.0", "1.34.0")  # user namespaces and appArmorProfile are in both
KNOWN_KEYS = {"apiVersion", "kind", "resources", "namespace", "labels", "images", "patches"}
CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding"}


def render(folder: Path) -> list[dict[str, Any]]:
    """The objects `kubectl kustomize folder` would print, for the features listed above."""
    spec = yaml.safe_load((folder / "kustomization.yaml").read_text())
    unknown = set(spec) - KNOWN_KEYS
    assert not unknown, f"{folder}: kustomize features this test does not render: {unknown}"
    objects: list[dict[str, Any]] = []
    for entry in spec.get("resources", []):
        path = (folder / entry).resolve()
        if path.is_dir():
            objects += render(path)
        else:
            objects += [d for d in yaml.safe_load_all(path.read_text()) if d]
    objects = copy.deepcopy(objects)
    for group in spec.get("labels", []):
        assert set(group) == {"pairs"}, group  # no includeSelectors: metadata labels only
        for obj in objects:
            obj.setdefault("metadata", {}).setdefault("labels", {}).update(group["pairs"])
    for patch in spec.get("patches", []):
        ops = yaml.safe_load((folder / patch["path"]).read_text())
        assert isinstance(ops, list), f"{patch['path']}: only JSON 6902 patches are rendered"
        target = patch["target"]
        hits = [
            o
            for o in objects
            if o["kind"] == target["kind"] and o["metadata"]["name"] == target["name"]
        ]
        assert len(hits) == 1, f"patch target {target} matches {len(hits)} objects"
        patched = jsonpatch.apply_patch(hits[0], ops)
        objects[objects.index(hits[0])] = patched
    for image in spec.get("images", []):
        for obj in objects:
            for container in _containers(obj):
                if container["image"].split(":")[0] == image["name"]:
                    container["image"] = f"{image['newName']}:{image.get('newTag', 'latest')}"
    if "namespace" in spec:
        for obj in objects:
            if obj["kind"] not in CLUSTER_SCOPED:
                obj["metadata"]["namespace"] = spec["namespace"]
    return objects


def _pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec", {})
    return dict(spec.get("template", {}).get("spec", {}))


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    pod = _pod_spec(obj)
    return [*pod.get("initContainers", []), *pod.get("containers", [])]


def by_name(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


@pytest.mark.parametrize("overlay", OVERLAYS)
@pytest.mark.parametrize("version", VERSIONS)
def test_every_overlay_renders_and_validates_against_the_kubernetes_schemas(
    overlay: str, version: str
) -> None:
    objects = render(DEPLOY / "overlays" / overlay)
    kinds = sorted({o["kind"] for o in objects})
    assert kinds == ["Deployment", "Job", "Service"], kinds
    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            raise AssertionError(
                f"{overlay} {obj['kind']}/{obj['metadata']['name']}: {exc}"
            ) from None
        assert obj["metadata"]["namespace"].startswith("proofgym")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_what_the_services_need(overlay: str) -> None:
    objects = render(DEPLOY / "overlays" / overlay)
    # resources replicas behind a headless Service, which the agent's dns+http routing reads
    svc = by_name(objects, "Service", "proofgym-resources")
    assert svc["spec"]["clusterIP"] == "None"
    agent = by_name(objects, "Deployment", "proofgym-agent")
    env = {e["name"]: e for e in _containers(agent)[0]["env"]}
    assert env["PROOFGYM_RESOURCES_URLS"]["value"] == '["dns+http://proofgym-resources:8001"]'
    assert env["PROOFGYM_MODEL_URL"]["value"] == "http://proofgym-model:8002"
    for obj in objects:
        name = obj["metadata"]["name"]
        if obj["kind"] not in ("Deployment", "Job"):
            continue
        for container in _containers(obj):
            ctx = container["securityContext"]
            # no capability is ever added; nothing is privileged; the root filesystem is
            # read-only (the services write only to their emptyDir volumes)
            assert ctx["capabilities"] == {"drop": ["ALL"]}, name
            assert ctx["allowPrivilegeEscalation"] is False and ctx.get("privileged") is not True
            assert ctx["readOnlyRootFilesystem"] is True, name
            if container["name"] != "tasks":  # the init container only writes task files
                token = next(e for e in container["env"] if e["name"] == "PROOFGYM_TOKEN")
                # the token comes from the Secret, never from the manifests
                ref = token["valueFrom"]["secretKeyRef"]
                assert ref == {"name": "proofgym-token", "key": "token"}, name
            if obj["kind"] == "Deployment":
                port = container["ports"][0]["containerPort"]
                assert container["readinessProbe"]["httpGet"]["path"] == "/health"
                assert container["livenessProbe"]["httpGet"]["path"] == "/health"
                values = {e["name"]: e.get("value") for e in container["env"]}
                assert values["PROOFGYM_PORT"] == str(port), name
            limits = container["resources"]["limits"]
            assert {"cpu", "memory"} <= set(limits) <= set(container["resources"]["requests"])
        pod = _pod_spec(obj)
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["automountServiceAccountToken"] is False
    # the code sandbox's needs, on the resources pods only: its own user namespace, the
    # namespaces seccomp and AppArmor would refuse, an unmasked /proc; nothing more
    resources = by_name(objects, "Deployment", "proofgym-resources")
    pod = _pod_spec(resources)
    assert pod["hostUsers"] is False
    assert pod["securityContext"]["seccompProfile"] == {"type": "Unconfined"}
    assert pod["securityContext"]["appArmorProfile"] == {"type": "Unconfined"}
    assert _containers(resources)[0]["securityContext"]["procMount"] == "Unmasked"
    for name in ("proofgym-agent", "proofgym-model"):
        other = _pod_spec(by_name(objects, "Deployment", name))
        assert other["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}


def test_the_commands_in_the_manifests_are_the_cli_s() -> None:
    from typer.main import get_command

    from proofgym_stack.cli import app

    commands = get_command(app).commands  # type: ignore[attr-defined]
    for overlay in OVERLAYS:
        for obj in render(DEPLOY / "overlays" / overlay):
            for container in _containers(obj):
                assert container["args"][0] in commands, container["args"]


def test_the_overlays_differ_as_they_say() -> None:
    dev = render(DEPLOY / "overlays" / "dev")
    prod = render(DEPLOY / "overlays" / "production")
    assert by_name(dev, "Deployment", "proofgym-resources")["spec"]["replicas"] == 1
    assert by_name(prod, "Deployment", "proofgym-resources")["spec"]["replicas"] == 3
    model = _containers(by_name(prod, "Deployment", "proofgym-model"))[0]
    env = {e["name"]: e.get("value") for e in model["env"]}
    assert env["PROOFGYM_BACKEND"] == "vllm" and env["PROOFGYM_TOKENIZER"] == "/models/policy"
    assert model["image"] == "registry.example.com/proofgym:latest"
    dev_model = _containers(by_name(dev, "Deployment", "proofgym-model"))[0]
    assert {e["name"]: e.get("value") for e in dev_model["env"]}["PROOFGYM_BACKEND"] == "scripted"
