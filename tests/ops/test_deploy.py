"""deploy/: what a balanced, drained deployment needs of the compose file, the HAProxy config and the
Kubernetes manifests, checked on the files themselves, and by the real tools where installed
(`haproxy -c`, `docker compose config`, kubectl)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def nodes_of(compose: dict) -> dict[str, dict]:
    return {name: s for name, s in compose["services"].items() if s.get("image", "").startswith("teahouse:")}


def test_compose_has_redis_with_aof_three_nodes_and_haproxy(compose):
    services = compose["services"]
    redis = services["redis"]
    assert "/etc/redis/redis.conf" in " ".join(redis["command"])
    conf = (DEPLOY / "redis.conf").read_text()
    assert re.search(r"^appendonly yes$", conf, re.M) and re.search(r"^appendfsync always$", conf, re.M)
    assert any(v.endswith(":/data") for v in redis["volumes"]), "the AOF lives on a volume"
    nodes = nodes_of(compose)
    assert len(nodes) == 3
    for name, node in nodes.items():
        assert node["environment"]["TEAHOUSE_STORE"].startswith("redis://redis:"), name
        assert node["restart"] in ("always", "unless-stopped"), name
        assert "/health/ready" in " ".join(node["healthcheck"]["test"]), name
        assert node["depends_on"]["redis"]["condition"] == "service_healthy"
        assert not re.search(r":latest$", node["image"]), "a pinned image tag"
    assert all(s.get("restart") in ("always", "unless-stopped") for s in services.values())
    assert all("healthcheck" in s for s in services.values())
    proxy = services["haproxy"]
    assert any("haproxy.cfg" in v for v in proxy["volumes"])
    assert "ports" in proxy and all("ports" not in n for n in nodes.values()), "clients reach nodes through HAProxy only"


def test_haproxy_balances_every_node_without_stickiness_and_checks_readiness(compose):
    cfg = (DEPLOY / "haproxy.cfg").read_text()
    code = "\n".join(line.split("#", 1)[0] for line in cfg.splitlines())
    assert not re.search(r"^\s*(cookie|stick|stick-table|balance source)\b", code, re.M), "no sticky sessions"
    assert re.search(r"^\s*balance roundrobin", code, re.M)
    assert re.search(r"^\s*option httpchk GET /health/ready", code, re.M)
    assert re.search(r"^\s*timeout tunnel ", code, re.M), "upgraded WebSockets outlive an HTTP timeout"
    servers = set(re.findall(r"^\s*server (\S+) (\S+):8000", code, re.M))
    assert {name for name, _ in servers} == set(nodes_of(compose)), "HAProxy knows every node"
    out = subprocess.run(["/usr/sbin/haproxy", "-c", "-f", str(DEPLOY / "haproxy.cfg")], capture_output=True, text=True) \
        if shutil.which("/usr/sbin/haproxy") else None
    if out is not None:
        assert out.returncode == 0, out.stdout + out.stderr


def test_docker_compose_accepts_the_file():
    if shutil.which("docker") is None:
        pytest.skip("docker is not installed")
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"the docker compose plugin is not installed ({probe.stderr.strip() or probe.stdout.strip()})")
    out = subprocess.run(["docker", "compose", "-f", str(DEPLOY / "compose.yaml"), "config", "--quiet"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


# -- Kubernetes (13.10) ----------------------------------------------------------------------
K8S = DEPLOY / "k8s"


@pytest.fixture(scope="module")
def manifests() -> dict[tuple[str, str], dict]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    out = {}
    for name in kustomization["resources"]:
        for doc in yaml.safe_load_all((K8S / name).read_text()):
            out[(doc["kind"], doc["metadata"]["name"])] = doc
    return out


def container(manifests: dict, kind: str, name: str) -> dict:
    return manifests[(kind, name)]["spec"]["template"]["spec"]["containers"][0]


def test_the_deployment_is_pinned_probed_and_drains(manifests):
    dep = manifests[("Deployment", "teahouse")]
    pod = dep["spec"]["template"]["spec"]
    c = container(manifests, "Deployment", "teahouse")
    assert re.fullmatch(r"[\w./-]+:\d+\.\d+\.\d+", c["image"]), f"a pinned image tag, not {c['image']!r}"
    assert c["readinessProbe"]["httpGet"]["path"] == "/health/ready"
    assert c["livenessProbe"]["httpGet"]["path"] == "/health/live"
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env["TEAHOUSE_STORE"].startswith("redis://redis-0.redis:")
    sleep = int(c["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert pod["terminationGracePeriodSeconds"] > sleep + float(env["TEAHOUSE_DRAIN_S"]), \
        "Kubernetes must not kill the pod before its drain is over"
    assert dep["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_a_disruption_budget_covers_the_deployment(manifests):
    pdb = manifests[("PodDisruptionBudget", "teahouse")]
    labels = manifests[("Deployment", "teahouse")]["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert pdb["spec"].get("maxUnavailable") == 1 or pdb["spec"].get("minAvailable")


def test_redis_is_a_statefulset_with_its_aof_on_a_volume(manifests):
    sts = manifests[("StatefulSet", "redis")]
    c = container(manifests, "StatefulSet", "redis")
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    claims = {t["metadata"]["name"] for t in sts["spec"]["volumeClaimTemplates"]}
    assert mounts["data"] == "/data" and "data" in claims
    conf = manifests[("ConfigMap", "redis-config")]["data"]["redis.conf"]
    assert re.search(r"^appendonly yes$", conf, re.M) and re.search(r"^appendfsync always$", conf, re.M)
    assert re.search(r"^dir /data$", conf, re.M)
    assert manifests[("Service", "redis")]["spec"]["clusterIP"] == "None", "headless: redis-0.redis"
    assert re.fullmatch(r"redis:\d+\.\d+\.\d+", c["image"])


def _kubectl() -> str:
    exe = shutil.which("kubectl")
    if exe is None:
        pytest.skip("kubectl is not installed")
    return exe


def test_kubectl_renders_the_kustomization():
    out = subprocess.run([_kubectl(), "kustomize", str(K8S)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kinds = {d["kind"] for d in yaml.safe_load_all(out.stdout)}
    assert {"Deployment", "PodDisruptionBudget", "Service", "StatefulSet", "ConfigMap"} <= kinds


def test_kubectl_client_side_dry_run():
    out = subprocess.run([_kubectl(), "apply", "--dry-run=client", "--validate=false", "--request-timeout=5s", "-k", str(K8S)],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0 and re.search(r"connection refused|no configuration|dial tcp|server could not", out.stderr):
        # kubectl maps kinds to API paths by asking an API server, even for a client-side dry run
        pytest.skip(f"no Kubernetes API server for kubectl to map kinds: {out.stderr.strip().splitlines()[-1]}")
    assert out.returncode == 0, out.stderr
    assert "created (dry run)" in out.stdout or "configured (dry run)" in out.stdout
