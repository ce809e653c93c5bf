from __future__ import annotations

import pytest

from core.infra.errors import SettingsError
from core.infra.settings import Settings, load_settings, parse_rate

pytestmark = pytest.mark.unit


def test_defaults_match_the_contract(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    for field in Settings.model_fields.values():
        for name in getattr(field.validation_alias, "choices", ()):
            monkeypatch.delenv(str(name), raising=False)
    s = load_settings()
    assert (s.host, s.port) == ("127.0.0.1", 8000)
    assert s.redis_url is None and s.ray_address is None
    assert s.data_dir == (tmp_path / ".agentry").resolve()
    assert s.resolved_blob_url == f"file://{tmp_path.resolve() / '.agentry' / 'blobs'}"
    assert s.default_on_failure == "fail"
    assert s.sync_budget_seconds == 300 and s.sync_enabled is True
    assert s.rate_limit_per_period == (1200, 60)
    assert s.agent_concurrency == 8 and s.max_upload_mb == 50
    assert s.allow_private_urls is False and s.batch_fanout_enabled is True
    assert s.default_model == "scripted" and s.task_placement == "dedicated"
    assert s.max_live_tasks_per_node == 32
    assert s.sync_result_cap_bytes == 1024 * 1024
    assert s.review_confidence == 0.9


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ORCHESTRATOR_DEFAULT_ON_FAILURE", "maybe"),
        ("AGENTRY_PORT", "not-a-port"),
        ("AGENTRY_RATE_LIMIT", "lots"),
        ("AGENTRY_TASK_PLACEMENT", "everywhere"),
        ("AGENTRY_SYNC_ENABLED", "perhaps"),
        ("AGENTRY_REVIEW_CONFIDENCE", "1.5"),
    ],
)
def test_invalid_value_names_the_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert name in info.value.message


def test_ask_user_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORCHESTRATOR_DEFAULT_ON_FAILURE", "ask_user")
    assert load_settings().default_on_failure == "ask_user"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1200/minute", (1200, 60)), ("5/second", (5, 1)), ("10 / hour", (10, 3600)), ("off", None)],
)
def test_parse_rate(text: str, expected: tuple[int, int] | None) -> None:
    assert parse_rate(text) == expected


def test_worker_env_reproduces_the_settings(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("AGENTRY_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AGENTRY_AGENT_CONCURRENCY", "3")
    monkeypatch.setenv("AGENTRY_SYNC_ENABLED", "false")
    original = load_settings()
    env = original.worker_env(redis_url="unix:///tmp/x.sock")
    for name in list(env):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    copy = Settings()
    assert copy.redis_url == "unix:///tmp/x.sock"
    assert copy.agent_concurrency == 3 and copy.sync_enabled is False
    assert copy.data_dir == original.data_dir
    assert copy.resolved_secret() == original.resolved_secret()


def test_secret_is_generated_once(tmp_path) -> None:
    s = Settings(AGENTRY_DATA_DIR=str(tmp_path))  # type: ignore[call-arg]
    first = s.resolved_secret()
    assert len(first) > 40
    assert Settings(AGENTRY_DATA_DIR=str(tmp_path)).resolved_secret() == first  # type: ignore[call-arg]
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600
