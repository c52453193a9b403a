"""service/gunicorn_conf.py reads its settings from the environment, and gunicorn accepts them."""

from __future__ import annotations

import gc
import importlib.util
import inspect
from pathlib import Path
from types import ModuleType, SimpleNamespace
from unittest.mock import patch

import pytest
from gunicorn.config import Config

from tests.ops.support import ROOT

CONF = ROOT / "service" / "gunicorn_conf.py"
VARIABLES = (
    "PORT",
    "BIND_HOST",
    "WEB_CONCURRENCY",
    "WEB_TIMEOUT",
    "GUNICORN_WORKER_CLASS",
    "GUNICORN_WORKER_CONNECTIONS",
    "GUNICORN_GRACEFUL_TIMEOUT",
    "GUNICORN_KEEPALIVE",
    "GUNICORN_MAX_REQUESTS",
    "GUNICORN_MAX_REQUESTS_JITTER",
    "GUNICORN_ACCESSLOG",
    "GUNICORN_WARMUP_TIMEOUT",
    "LOG_LEVEL",
    "REDIS_URL",
    "STATE_TOKEN_KEYS",
    "REDIS_URL_FILE",
    "STATE_TOKEN_KEYS_FILE",
)
SHARED = {"REDIS_URL": "redis://127.0.0.1:6379/0", "STATE_TOKEN_KEYS": "k1:c2VjcmV0"}


@pytest.fixture
def load(monkeypatch: pytest.MonkeyPatch):
    """Load the config file (as gunicorn does, by path) under the given environment."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)

    def loader(**env: str) -> ModuleType:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        spec = importlib.util.spec_from_file_location("gunicorn_conf_under_test", CONF)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return loader


def settings(module: ModuleType) -> dict[str, object]:
    """The module-level names gunicorn reads: lower-case, neither functions nor modules."""
    return {
        name: value
        for name, value in vars(module).items()
        if name.islower()
        and not name.startswith("_")
        and name != "annotations"
        and not callable(value)
        and not inspect.ismodule(value)
    }


def test_defaults(load) -> None:
    conf = load(**SHARED)
    assert conf.wsgi_app == "service:create_app()"
    assert conf.bind == ["0.0.0.0:8000"]
    assert conf.workers == min(2 * conf.usable_cpus() + 1, 9)
    assert conf.worker_class == "gevent"
    assert conf.worker_connections == 1000
    assert conf.timeout == 30
    assert conf.graceful_timeout == 20
    assert conf.keepalive == 5
    assert (conf.max_requests, conf.max_requests_jitter) == (100_000, 10_000)
    assert conf._warmup_timeout == 5
    assert conf.accesslog is None  # the app's JSON access line is the one
    assert conf.errorlog == "-"
    assert conf.loglevel == "info"
    assert conf.control_socket_disable is True
    assert conf.worker_tmp_dir == ("/dev/shm" if Path("/dev/shm").is_dir() else None)


def test_environment_overrides(load) -> None:
    conf = load(
        PORT="9123",
        BIND_HOST="127.0.0.1",
        WEB_CONCURRENCY="3",
        WEB_TIMEOUT="45",
        GUNICORN_WORKER_CLASS="sync",
        GUNICORN_WORKER_CONNECTIONS="250",
        GUNICORN_GRACEFUL_TIMEOUT="12",
        GUNICORN_KEEPALIVE="75",
        GUNICORN_MAX_REQUESTS="100",
        GUNICORN_MAX_REQUESTS_JITTER="10",
        GUNICORN_ACCESSLOG="-",
        GUNICORN_WARMUP_TIMEOUT="2",
        LOG_LEVEL="WARNING",
    )
    assert conf.bind == ["127.0.0.1:9123"]
    assert conf.workers == 3
    assert conf.timeout == 45
    assert conf.worker_class == "sync"
    assert conf.worker_connections == 250
    assert conf.graceful_timeout == 12
    assert conf.keepalive == 75
    assert (conf.max_requests, conf.max_requests_jitter) == (100, 10)
    assert conf.accesslog == "-"
    assert conf._warmup_timeout == 2
    assert conf.loglevel == "warning"


@pytest.mark.parametrize("unset", ["REDIS_URL", "STATE_TOKEN_KEYS"])
def test_one_worker_by_default_while_state_lives_in_the_process(
    load, unset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = load(**{name: value for name, value in SHARED.items() if name != unset})
    assert conf.workers == 1
    assert "WEB_CONCURRENCY" in capsys.readouterr().err
    assert load(WEB_CONCURRENCY="4").workers == 4


def test_shared_state_may_come_from_secret_files(load, tmp_path: Path) -> None:
    files = {}
    for name, value in SHARED.items():
        (tmp_path / name).write_text(value + "\n")
        files[f"{name}_FILE"] = str(tmp_path / name)
    conf = load(**files)
    assert conf.workers == min(2 * conf.usable_cpus() + 1, 9)
    assert conf.max_requests == 100_000


def test_an_unreadable_secret_file_stops_the_master(load, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="REDIS_URL_FILE"):
        load(REDIS_URL_FILE=str(tmp_path / "absent"), STATE_TOKEN_KEYS="k1:x")


def test_max_requests_zero_turns_recycling_off(load) -> None:
    conf = load(GUNICORN_MAX_REQUESTS="0")
    assert (conf.max_requests, conf.max_requests_jitter) == (0, 0)


@pytest.mark.parametrize(
    "env",
    [
        {"GUNICORN_WORKER_CLASS": "eventlet"},
        {"WEB_CONCURRENCY": "zero"},
        {"WEB_CONCURRENCY": "0"},
        {"PORT": "-1"},
    ],
)
def test_bad_values_are_refused_with_the_variable_named(load, env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=next(iter(env))):
        load(**env)


@pytest.mark.parametrize(
    ("cpu_max", "expected"),
    [("max 100000\n", None), ("150000 100000\n", 2), ("50000 100000\n", 1), ("garbage", None)],
)
def test_usable_cpus_honours_a_cgroup_quota(load, tmp_path: Path, cpu_max: str, expected) -> None:
    conf = load()
    affinity = conf.usable_cpus(tmp_path / "absent")
    (tmp_path / "cpu.max").write_text(cpu_max)
    assert conf.usable_cpus(tmp_path / "cpu.max") == min(affinity, expected or affinity)


@pytest.mark.parametrize("worker_class", ["gevent", "sync"])
def test_gunicorn_accepts_every_setting(load, worker_class: str) -> None:
    conf = load(GUNICORN_WORKER_CLASS=worker_class, GUNICORN_ACCESSLOG="-")
    cfg = Config()
    found = settings(conf)
    unknown = set(found) - set(cfg.settings)
    assert not unknown, f"not gunicorn settings (typos?): {sorted(unknown)}"
    for name, value in found.items():
        cfg.set(name, value)  # gunicorn's own validation
    assert cfg.worker_class_str == worker_class
    assert cfg.workers == conf.workers
    assert cfg.address == [("0.0.0.0", 8000)]


def test_post_worker_init_warms_the_app_and_freezes_what_the_worker_loaded(load) -> None:
    from service import create_app

    conf = load()
    Config().set("post_worker_init", conf.post_worker_init)  # gunicorn takes it as the hook
    warmed: list[tuple[object, float]] = []
    worker = SimpleNamespace(wsgi=create_app())
    gc.unfreeze()
    try:
        with patch("service.warmup.warm", lambda app, timeout: warmed.append((app, timeout))):
            conf.post_worker_init(worker)
        assert warmed == [(worker.wsgi, 5)]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_warm_up_timeout_of_zero_turns_the_warm_up_off(load) -> None:
    conf = load(GUNICORN_WARMUP_TIMEOUT="0")
    gc.unfreeze()
    try:
        with patch("service.warmup.warm", side_effect=AssertionError("warmed")):
            conf.post_worker_init(SimpleNamespace())
    finally:
        gc.unfreeze()


def test_the_metrics_hooks_are_gunicorn_hooks(load) -> None:
    conf = load()
    cfg = Config()
    for hook in ("on_starting", "child_exit", "on_exit"):
        cfg.set(hook, getattr(conf, hook))  # gunicorn checks each hook's arity


def test_the_metrics_directory_is_made_and_emptied_of_metric_files(load, tmp_path: Path) -> None:
    conf = load()
    given = tmp_path / "given"
    assert conf.prepare_metrics_dir({"PROMETHEUS_MULTIPROC_DIR": str(given)}) == str(given)
    assert given.is_dir()
    for name in ("counter_12.db", "histogram_12.db", "gauge_livesum_12.db", "notes.txt"):
        (given / name).write_bytes(b"\0" * 8)
    conf.prepare_metrics_dir({"PROMETHEUS_MULTIPROC_DIR": str(given)})
    assert sorted(p.name for p in given.iterdir()) == ["notes.txt"]
    conf.on_exit(None)  # a given directory stays
    assert given.is_dir()


def test_without_a_metrics_directory_one_is_made_for_the_workers(
    load, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = load()
    monkeypatch.setattr(conf.tempfile, "tempdir", str(tmp_path))
    environ: dict[str, str] = {}
    made = Path(conf.prepare_metrics_dir(environ))
    assert environ == {"PROMETHEUS_MULTIPROC_DIR": str(made)}
    assert made.parent == tmp_path and made.is_dir() and not any(made.iterdir())
    conf.on_exit(None)
    assert not made.exists()


def test_a_dead_worker_loses_its_live_gauges_only(
    load, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = load()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    for name in ("counter_7.db", "gauge_livesum_7.db", "gauge_livesum_8.db"):
        (tmp_path / name).write_bytes(b"")

    class Worker:
        pid = 7

    conf.child_exit(None, Worker())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter_7.db", "gauge_livesum_8.db"]


def test_operations_md_states_the_warm_up_timeout_the_conf_holds(load) -> None:
    conf = load()
    page = (ROOT / "docs" / "operations.md").read_text()
    assert f"| `GUNICORN_WARMUP_TIMEOUT` | {conf._warmup_timeout} |" in page
    assert f"`GUNICORN_WARMUP_TIMEOUT` | {conf._warmup_timeout} |" in conf.__doc__.replace(
        "``", "`"
    )
