"""docker-compose.yml and deploy/haproxy.cfg describe what ``patience-server
cluster`` runs: the same topology and the same settings, checked against
tools/localcluster/topology.py and against the command's own plan."""

from __future__ import annotations

import argparse
import resource
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from tools.localcluster import topology as t
from tools.localcluster.command import add_arguments
from tools.localcluster.supervisor import LocalDeployment

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return doc


@pytest.fixture(scope="module")
def deploy_cfg() -> dict[str, list[str]]:
    return t.parse_haproxy((ROOT / "deploy" / "haproxy.cfg").read_text())


@pytest.fixture
def plan(tmp_path: Path) -> LocalDeployment:
    """What the command would start with its defaults (nothing is started)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    return LocalDeployment(tmp_path, t.Topology(servers=args.servers), lb_port=args.port,
                           redis_port=args.redis_port, server_port=args.server_port)


def _flags(command: list[str]) -> dict[str, str]:
    return {command[i].removeprefix("--"): command[i + 1] for i in range(1, len(command), 2)}


def _redis_nodes(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in compose["services"].items()
            if svc.get("command", [""])[0] == "valkey-server"}


def test_the_command_runs_the_shared_topology(plan: LocalDeployment) -> None:
    assert (plan.topology.primaries, plan.topology.replicas_per_primary) == (3, 1)
    assert plan.topology.servers == t.SERVERS and plan.lb_port == t.LB_PORT
    assert len(plan.redis.nodes) == 6 and len(plan.servers) == t.SERVERS
    for node in plan.redis.nodes:
        assert node.extra_config == t.REDIS_NODE_CONFIG
    env = plan.server_env(plan.servers[0])
    assert {k: env[k] for k in t.SERVER_ENV} == t.SERVER_ENV
    assert env["PATIENCE_HOST"] == "127.0.0.1"  # loopback only, behind HAProxy
    assert env["REDIS_URL"].count("redis://") == t.PRIMARIES


def test_compose_runs_the_same_redis_cluster(compose: dict[str, Any]) -> None:
    nodes = _redis_nodes(compose)
    assert len(nodes) == t.PRIMARIES * (1 + t.REPLICAS_PER_PRIMARY)
    for svc in nodes.values():
        assert svc["image"] == "valkey/valkey:8.1"  # the engine of the embedded binary
        flags = _flags(svc["command"])
        assert flags.pop("port") == "6379"
        assert flags == t.REDIS_NODE_CONFIG
    create = " ".join(compose["services"]["redis-cluster"]["command"])
    assert f"--cluster-replicas {t.REPLICAS_PER_PRIMARY}" in create
    assert all(name in create for name in nodes)


def test_compose_runs_k_servers_with_the_same_settings(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    assert server["deploy"]["replicas"] == t.SERVERS
    env = dict(server["environment"])
    seeds = env.pop("REDIS_URL").split(",")
    assert seeds == [f"redis://{name}:6379" for name in list(_redis_nodes(compose))[:t.PRIMARIES]]
    env.pop("PATIENCE_SECRET")
    assert env.pop("PATIENCE_HOST") == "0.0.0.0"  # in a container, reached from the balancer's
    assert env == t.SERVER_ENV


def test_compose_runs_haproxy_with_deploy_cfg(compose: dict[str, Any],
                                              deploy_cfg: dict[str, list[str]]) -> None:
    lb = compose["services"]["lb"]
    assert lb["image"] == "haproxy:2.6"  # the series of Debian's package the local cluster runs
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in lb["volumes"]
    assert lb["ports"] == [f"{t.LB_PORT}:{t.LB_PORT}"]
    assert deploy_cfg["frontend players"][0] == f"bind *:{t.LB_PORT}"
    template = next(line for line in deploy_cfg["backend servers"] if line.startswith("server-template"))
    # one slot per server replica, each checked like a local process
    assert shlex.split(template)[2] == str(compose["services"]["server"]["deploy"]["replicas"])
    assert t.BALANCER.check in template


def test_deploy_cfg_has_the_settings_the_command_runs(deploy_cfg: dict[str, list[str]],
                                                      plan: LocalDeployment) -> None:
    local = t.parse_haproxy(plan.haproxy_text())
    assert set(local) == {"global", "defaults", "frontend players", "backend servers"}
    assert set(deploy_cfg) == set(local) | {"resolvers docker"}
    assert local["defaults"] == deploy_cfg["defaults"]
    for line in ("mode http", "balance leastconn", "option httpchk GET /healthz", "timeout tunnel 1h"):
        assert line in local["defaults"] + local["backend servers"]
    # maxconn: the shared value, capped on a machine whose descriptor limit is lower
    assert deploy_cfg["global"] == [f"maxconn {t.BALANCER.maxconn}"]
    fd_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert local["global"] == [f"maxconn {min(t.BALANCER.maxconn, (fd_limit - 100) // 2)}"]
    assert local["frontend players"] == [f"bind 127.0.0.1:{t.LB_PORT}", "default_backend servers"]
    assert deploy_cfg["frontend players"][1:] == local["frontend players"][1:]

    def settings(lines: list[str]) -> list[str]:
        return [line for line in lines if not line.startswith(("server ", "server-template "))]

    assert settings(local["backend servers"]) == settings(deploy_cfg["backend servers"])
    servers = [line for line in local["backend servers"] if line.startswith("server ")]
    assert servers == [f"server s{i + 1} 127.0.0.1:{t.SERVER_BASE_PORT + i} {t.BALANCER.check}"
                       for i in range(t.SERVERS)]


def test_a_node_still_in_its_handshake_is_not_yet_known() -> None:
    """The cluster counts as formed only once every node knows every other by its
    own id: a node still in handshake refuses commands that name the other one
    ("I don't know about node"), which made a slot move in tests fail now and then."""
    from tools.localcluster.nodes import known_ids

    text = ("aaa 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460\n"
            "bbb 127.0.0.1:7001@17001 master - 0 1 2 connected 5461-10922\n"
            "ccc 127.0.0.1:7002@17002 handshake - 0 0 0 connected\n"
            "ddd 127.0.0.1:7003@17003 master,fail - 0 1 3 disconnected\n")
    assert known_ids(text) == {"aaa", "bbb", "ddd"}
    assert not {"aaa", "ccc"} <= known_ids(text)
