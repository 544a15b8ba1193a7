"""deploy/: what issue 13.9 and 13.10 ask of the compose file, the HAProxy config and the
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
