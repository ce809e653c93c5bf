"""cluster.yaml and serve/config.yaml pass Ray's own checks, offline, and agree with the code."""

from __future__ import annotations

import importlib
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from actors.placement import TASK_SLOT_RESOURCE
from core.infra.settings import Settings
from serve.deployment import BACKPRESSURE, MAX_QUEUED_REQUESTS
from serve.service import PROXY_READY_ENV, PROXY_READY_SECONDS
from serve.state import HEADROOM_REQUESTS

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
ENV_ASSIGNMENT = re.compile(r"\b(AGENTRY_[A-Z_]+|REDIS_URL|RAY_ADDRESS)=(\S+)")


def _settings_variables() -> set[str]:
    names = set()
    for field in Settings.model_fields.values():
        names.update(str(n) for n in getattr(field.validation_alias, "choices", ()))
    return names


def _cluster() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "cluster.yaml").read_text()))


def _serve_config() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "serve" / "config.yaml").read_text()))


def _ray_start(command: str) -> dict[str, Any]:
    """The options of the command's `ray start`, parsed by Ray's own CLI (nothing is started)."""
    from ray.scripts.scripts import start

    args = shlex.split(command[command.index("ray start") + len("ray start") :])
    with start.make_context("start", args) as ctx:
        return dict(ctx.params)


def _start_line(commands: list[str]) -> str:
    (line,) = [c for c in commands if "ray start" in c]
    return line


# cluster.yaml


def test_cluster_config_passes_the_launchers_preparation_and_schema() -> None:
    from ray.autoscaler._private.util import prepare_config, validate_config

    raw = _cluster()
    prepared = prepare_config(raw)
    validate_config(prepared)
    # The local provider made its one node type and kept every listed worker.
    assert list(prepared["available_node_types"]) == ["local.cluster.node"]
    workers = len(raw["provider"]["worker_ips"])
    assert workers >= 1
    assert prepared["available_node_types"]["local.cluster.node"]["min_workers"] == workers


def test_cluster_config_has_no_fields_the_local_provider_rejects() -> None:
    from ray.autoscaler._private.util import prepare_config

    raw = _cluster()
    assert raw["provider"]["type"] == "local"
    for field in ("head_node", "worker_nodes", "available_node_types"):
        assert field not in raw
    with pytest.raises(BaseException, match="not supported for on-premise"):
        prepare_config(raw | {"available_node_types": {"head": {"node_config": {}, "resources": {}}}})


def test_every_node_starts_with_task_slots_and_a_metrics_port() -> None:
    raw = _cluster()
    head = _ray_start(_start_line(raw["head_start_ray_commands"]))
    worker = _ray_start(_start_line(raw["worker_start_ray_commands"]))
    assert head["head"] is True and worker["head"] is False
    for node in (head, worker):
        assert json.loads(node["resources"])[TASK_SLOT_RESOURCE] > 0
        assert node["metrics_export_port"] == 8080
    # Workers join the head's GCS port, whatever it is.
    assert worker["address"] == f"$RAY_HEAD_IP:{head['port']}"
    assert head["dashboard_host"] == "0.0.0.0" and head["dashboard_port"] == 8265


def test_cluster_settings_reach_every_node_and_are_real_settings() -> None:
    raw = _cluster()
    known = _settings_variables()
    for key in ("head_start_ray_commands", "worker_start_ray_commands"):
        line = _start_line(raw[key])
        # The secrets (REDIS_URL, AGENTRY_SECRET) come from the env file copied to every node.
        assert ". ~/agentry.env" in line
        assigned = dict(ENV_ASSIGNMENT.findall(line))
        assert assigned, line
        assert set(assigned) <= known
        assert "RAY_AUTH_MODE=token" in line
        # The proxy start timeout `agentry up` sets, so Serve does not kill a slowly starting proxy.
        assert f"{PROXY_READY_ENV}={PROXY_READY_SECONDS}" in line
    mounts = raw["file_mounts"]
    assert mounts["~/agentry.env"] == "./agentry.env"
    assert "~/.ray/auth_token" in mounts


def _example_env() -> dict[str, str]:
    lines = (ROOT / "agentry.env.example").read_text().splitlines()
    pairs = [line.split("=", 1) for line in lines if line and not line.startswith("#")]
    return {name: value for name, value in pairs}


def test_each_value_a_person_edits_is_written_in_one_place() -> None:
    """The bucket, the Redis URL and the secret live in agentry.env only, read by every node."""
    example = _example_env()
    assert set(example) == {"REDIS_URL", "AGENTRY_SECRET", "AGENTRY_BLOB_URL"}
    assert example["AGENTRY_BLOB_URL"].startswith("s3://")
    # Redis's own port: the head's GCS listens on the other one.
    head = _ray_start(_start_line(_cluster()["head_start_ray_commands"]))
    assert f":{head['port']}/" not in example["REDIS_URL"]
    texts = {
        "cluster.yaml": (ROOT / "cluster.yaml").read_text(),
        "serve/config.yaml": (ROOT / "serve" / "config.yaml").read_text(),
    }
    for name, text in texts.items():
        assigned = {m.group(1) for m in re.finditer(r"\b([A-Z_]+)[=:] *s3://", text)}
        assert not assigned, f"{name} writes a bucket: {assigned}"
        assert "REDIS_URL=" not in text, name


def test_cluster_setup_installs_the_project_wheel_with_s3_support() -> None:
    raw = _cluster()
    installs = [c for c in raw["setup_commands"] if "pip install" in c and "agentry-" in c]
    assert installs and any("s3fs" in c for c in installs)
    assert raw["file_mounts"]["~/agentry-dist"] == "./dist"


# serve/config.yaml


def test_serve_config_parses_with_rays_schema() -> None:
    from ray.serve.schema import ServeDeploySchema

    schema = ServeDeploySchema.model_validate(_serve_config())
    (app,) = schema.applications
    assert app.import_path == "serve.deployment:application"
    assert app.route_prefix == "/"


def _serve_flags() -> dict[str, str]:
    """What `agentry up` gives Serve's controller and replicas, with the binary where cluster.yaml
    installs it (its virtualenv ~/agentry, for the ssh_user)."""
    from serve.deployment import serve_env

    flags = serve_env(Settings())
    user = _cluster()["auth"]["ssh_user"]
    return flags | {"RAY_SERVE_HAPROXY_BINARY_PATH": f"/home/{user}/agentry/bin/agentry-haproxy"}


def test_serve_config_starts_haproxy_and_the_proxies_with_our_middleware() -> None:
    from serve.proxy_middleware import PROXY_ENV

    env = _serve_config()["controller_options"]["runtime_env"]["env_vars"]
    assert env == _serve_flags() and PROXY_ENV.items() <= env.items()
    assert env["RAY_SERVE_ENABLE_HA_PROXY"] == "1"


def test_the_replicas_get_the_same_serve_flags_as_the_controller() -> None:
    (app,) = _serve_config()["applications"]
    env = app["runtime_env"]["env_vars"]
    assert {k: v for k, v in env.items() if k.startswith("RAY_SERVE_")} == _serve_flags()


def test_serve_config_names_our_application_and_its_deployment() -> None:
    from ray.serve.deployment import Application

    from serve.deployment import Ingress

    (app,) = _serve_config()["applications"]
    module, _, attribute = app["import_path"].partition(":")
    assert isinstance(getattr(importlib.import_module(module), attribute), Application)
    (deployment,) = app["deployments"]
    assert deployment["name"] == Ingress.name


def test_serve_config_fits_the_sync_budget_and_bounds_the_queue() -> None:
    config = _serve_config()
    (app,) = config["applications"]
    env = {k: v for k, v in app["runtime_env"]["env_vars"].items() if not k.startswith("RAY_SERVE_")}
    assert set(env) <= _settings_variables()
    assert all(isinstance(v, str) for v in env.values())
    settings = Settings.model_validate(env)
    budget = settings.sync_budget_seconds
    assert config["http_options"]["request_timeout_s"] > budget
    (ingress,) = app["deployments"]
    assert ingress["graceful_shutdown_timeout_s"] > budget
    # The replica's cap on held runs is derived from the same number (serve/state.py).
    assert ingress["max_ongoing_requests"] == settings.ingress_max_ongoing > HEADROOM_REQUESTS
    # The same bounded queue and 429 as `agentry up` deploys.
    assert ingress["max_queued_requests"] == MAX_QUEUED_REQUESTS > 0
    assert ingress["backpressure_config"] == BACKPRESSURE
    assert BACKPRESSURE["status_code"] == 429 and BACKPRESSURE["retry_after_s"] >= 1
