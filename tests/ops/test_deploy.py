"""The overlays as an operator applies them: every Secret a pod needs is rendered or made
by a command the docs give, every port a component dials is open in its NetworkPolicy,
the probes ask for paths the components serve, the notifier starts without webhooks on
the prod overlay's settings, and ``/metrics`` is reachable only from where
docs/operations.md says. The example Ingress (``k8s/examples``) routes the public paths
and the streams as the API needs, and prod's ``TRUSTED_PROXIES`` counts it."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ops.support import K8S, OVERLAYS, ROOT, documents, run, tool
from tests.ops.test_k8s import by_kind, env_of, one, selects
from tests.redis_procs import RedisServer, free_port

OPERATIONS = ROOT / "docs" / "operations.md"
#: Where the commands that make the overlays' Secrets are written.
COMMAND_SOURCES = (
    OPERATIONS,
    ROOT / "docs" / "notifications.md",
    *sorted(K8S.glob("overlays/*/kustomization.yaml")),
)
INGRESS = K8S / "examples" / "ingress.yaml"
#: The ingress-nginx controller's namespace (its Helm chart's), which the Ingress uses.
CONTROLLER_NAMESPACE = "ingress-nginx"
#: nginx closes an idle upstream connection after this (ingress-nginx's default).
NGINX_UPSTREAM_KEEPALIVE = 60
REDIS_URL = re.compile(r"\brediss?(?:\+sentinel|\+cluster)?://[^\s`'\"|)]+")


# ---------------------------------------------------------------- helpers
def deployments(target: str) -> list[dict[str, Any]]:
    return by_kind(target, "Deployment")


def commands() -> list[str]:
    """Every shell command in the pages' ``sh`` blocks and the kustomizations' comments,
    a continued line joined to its next."""
    found: list[str] = []
    for path in COMMAND_SOURCES:
        text = path.read_text()
        if path.suffix == ".yaml":
            lines = [line.split("#", 1)[1].strip() for line in text.splitlines() if "#" in line]
            text = "\n".join(lines)
        text = text.replace("\\\n", " ")
        found += [" ".join(line.split()) for line in text.splitlines() if "kubectl" in line]
    return found


def secret_commands(namespace: str) -> dict[str, list[str]]:
    """``kubectl -n <namespace> create secret generic <name> --from-...`` commands by the
    Secret's name: the keys each one fills."""
    made: dict[str, list[str]] = {}
    for command in commands():
        words = shlex.split(command, comments=True)
        if words[:5] != ["kubectl", "-n", namespace, "create", "secret"] or words[5] != "generic":
            continue
        keys = [
            w.split("=", 2)[1]
            for w in words[7:]
            if w.startswith(("--from-literal=", "--from-file="))
        ]
        made[words[6]] = keys
    return made


def referenced(pod: dict[str, Any], kind: str) -> dict[str, tuple[bool, set[str]]]:
    """The Secrets (``kind="secret"``) or ConfigMaps a pod names: optional?, keys used."""
    got: dict[str, tuple[bool, set[str]]] = {}
    name_key = "secretName" if kind == "secret" else "name"
    ref = "secretRef" if kind == "secret" else "configMapRef"
    key_ref = "secretKeyRef" if kind == "secret" else "configMapKeyRef"
    for volume in pod.get("volumes", []):
        source = volume.get(kind if kind == "secret" else "configMap")
        if source:
            keys = {item["key"] for item in source.get("items", [])}
            got[source[name_key]] = (bool(source.get("optional")), keys)
    for container in pod["containers"]:
        for source in container.get("envFrom", []):
            if ref in source:
                got[source[ref]["name"]] = (bool(source[ref].get("optional")), set())
        for item in container.get("env", []):
            key = item.get("valueFrom", {}).get(key_ref)
            if key:
                got[key["name"]] = (bool(key.get("optional")), {key["key"]})
    return got


def namespace_of(target: str) -> str:
    (namespace,) = {
        d["metadata"]["namespace"] for d in documents(target) if d["kind"] != "Namespace"
    }
    return str(namespace)


def ports_of(url: str) -> set[int]:
    """The ports a Redis URL names (every seed node or Sentinel); 6379 when none."""
    netloc = url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    ports = set()
    for node in netloc.split(","):
        host, _, port = node.rpartition(":")
        ports.add(int(port) if port.isdigit() and host else 6379)
    return ports


def policies_for(target: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    return [
        p
        for p in by_kind(target, "NetworkPolicy")
        if selects(p["spec"]["podSelector"]["matchLabels"], labels)
    ]


def dial_allowed(policies: list[dict[str, Any]], port: int, protocol: str = "TCP") -> bool:
    """Whether an egress rule of ``policies`` lets the pods dial ``port`` anywhere (a
    Redis or Sentinel outside the cluster included)."""
    for policy in policies:
        for rule in policy["spec"].get("egress", []):
            ports = rule.get("ports")
            if ports and {"protocol": protocol, "port": port} not in ports:
                continue
            peers = rule.get("to")
            if not peers or any(p.get("ipBlock", {}).get("cidr") == "0.0.0.0/0" for p in peers):
                return True
    return False


def dns_allowed(policies: list[dict[str, Any]]) -> bool:
    """Whether an egress rule lets the pods ask the cluster's DNS (kube-dns), UDP and TCP."""
    for policy in policies:
        for rule in policy["spec"].get("egress", []):
            ports = rule.get("ports", [])
            if not all({"protocol": proto, "port": 53} in ports for proto in ("UDP", "TCP")):
                continue
            for peer in rule.get("to", []):
                if peer.get("podSelector", {}).get("matchLabels", {}).get("k8s-app") == "kube-dns":
                    return True
    return False


def pod_labels(deployment: dict[str, Any]) -> dict[str, str]:
    return dict(deployment["spec"]["template"]["metadata"]["labels"])


def container_port(container: dict[str, Any], port: int | str) -> int:
    if isinstance(port, int):
        return port
    (number,) = [p["containerPort"] for p in container["ports"] if p["name"] == port]
    return int(number)


def metrics_ports(deployment: dict[str, Any]) -> set[int]:
    """The ports the pod serves ``/metrics`` on: its Prometheus annotation's."""
    annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    return (
        {int(annotations["prometheus.io/port"])} if "prometheus.io/port" in annotations else set()
    )


def ingress_routes(path: str) -> bool:
    """Whether the example Ingress sends ``path`` to the API."""
    (rule,) = yaml.safe_load(INGRESS.read_text())["spec"]["rules"]
    for route in rule["http"]["paths"]:
        prefix = route["path"]
        if route["pathType"] == "Exact" and path == prefix:
            return True
        if route["pathType"] == "Prefix" and (
            path == prefix or path.startswith(prefix.rstrip("/") + "/")
        ):
            return True
    return False


# ---------------------------------------------------------------- Secrets, namespaces
@pytest.mark.parametrize("target", OVERLAYS)
def test_every_secret_and_config_map_a_pod_needs_exists_or_has_its_command(target: str) -> None:
    namespace = namespace_of(target)
    rendered = {(d["kind"], d["metadata"]["name"]) for d in documents(target)}
    made = secret_commands(namespace)
    for deployment in deployments(target):
        pod = deployment["spec"]["template"]["spec"]
        for name in referenced(pod, "configMap"):
            assert ("ConfigMap", name) in rendered, (deployment["metadata"]["name"], name)
        for name, (_, keys) in referenced(pod, "secret").items():
            if ("Secret", name) in rendered:
                continue
            assert name in made, (
                f"no `kubectl -n {namespace} create secret generic {name}` in the docs"
            )
            assert keys <= set(made[name]), (name, keys, made[name])


def test_the_sealing_keys_command_makes_keys_the_service_opens() -> None:
    """The ``$(...)`` in the documented ``uno-rules-keys`` command, run as written."""
    from service.sealing import Keyring

    found = {c for c in commands() if "create secret generic uno-rules-keys" in c}
    assert found
    for command in found:
        (inner,) = re.findall(r"\$\(([^)]*)\)", command)
        words = shlex.split(inner)
        assert words[0] == ".venv/bin/python", words
        done = run([sys.executable, *words[1:]])
        assert done.returncode == 0, done.stderr
        ring = Keyring.parse(done.stdout.strip())
        assert ring.derived("test") is not None, command


@pytest.mark.parametrize("target", OVERLAYS)
def test_the_overlay_makes_its_namespace(target: str) -> None:
    (namespace,) = by_kind(target, "Namespace")
    assert namespace["metadata"]["name"] == namespace_of(target)
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


# ---------------------------------------------------------------- ports dialled
def documented_redis_urls() -> list[str]:
    urls = []
    for path in COMMAND_SOURCES:
        urls += [
            u for u in REDIS_URL.findall(path.read_text()) if not re.search(r"host:port|\.\.\.", u)
        ]
    return urls


@pytest.mark.parametrize("target", OVERLAYS)
def test_every_port_a_component_dials_is_open_in_its_network_policy(target: str) -> None:
    urls = documented_redis_urls()
    # One Redis, TLS, a Sentinel-managed primary and a cluster: each form is documented.
    assert {u.split("://")[0] for u in urls} >= {
        "redis",
        "rediss",
        "redis+sentinel",
        "redis+cluster",
    }
    config = one(target, "ConfigMap", "uno-rules-config")["data"]
    if "REDIS_URL" in config:
        urls.append(config["REDIS_URL"])
    ports = set().union(*(ports_of(u) for u in urls))
    assert {6379, 6380, 26379} <= ports
    for name in ("uno-rules", "uno-notifier"):
        policies = policies_for(target, pod_labels(one(target, "Deployment", name)))
        assert policies, name
        assert dns_allowed(policies), name
        for port in ports:
            assert dial_allowed(policies, port), f"{target}: {name} may not dial Redis on {port}"
    # The webhook's target: HTTPS anywhere public, or the port WEBHOOK_URL names.
    notifier = policies_for(target, pod_labels(one(target, "Deployment", "uno-notifier")))
    webhook = config.get("WEBHOOK_URL", "https://backend.example.com/uno")
    from urllib.parse import urlsplit

    assert dial_allowed(notifier, urlsplit(webhook).port or 443)
    if target == "dev":  # the in-cluster Redis takes both components on its URL's port
        (rule,) = one("dev", "NetworkPolicy", "redis")["spec"]["ingress"]
        (port,) = ports_of(config["REDIS_URL"])
        assert {"protocol": "TCP", "port": port} in rule["ports"]
        for name in ("uno-rules", "uno-notifier"):
            labels = pod_labels(one(target, "Deployment", name))
            assert any(selects(p["podSelector"]["matchLabels"], labels) for p in rule["from"]), name


# ---------------------------------------------------------------- probes and metrics
@pytest.mark.parametrize("target", OVERLAYS)
def test_the_apis_probes_and_scrape_ask_for_paths_it_serves(target: str) -> None:
    from service import create_app

    deployment = one(target, "Deployment", "uno-rules")
    (api,) = deployment["spec"]["template"]["spec"]["containers"]
    client = create_app({"TESTING": True}).test_client()
    annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    assert "prometheus.io/port" in annotations, "nothing tells Prometheus where to scrape"
    probes = [api[p]["httpGet"] for p in ("startupProbe", "readinessProbe", "livenessProbe")]
    scrape = {
        "path": annotations["prometheus.io/path"],
        "port": int(annotations["prometheus.io/port"]),
    }
    for get in (*probes, scrape):
        assert container_port(api, get["port"]) == int(env_of(api)["PORT"]["value"]), get
        assert client.get(get["path"]).status_code == 200, get
    service = one(target, "Service", "uno-rules")
    assert container_port(api, service["spec"]["ports"][0]["targetPort"]) == 8000


@pytest.mark.parametrize("target", OVERLAYS)
def test_metrics_are_reachable_only_from_where_operations_md_says(target: str) -> None:
    """A rule that admits a metrics port admits named peers only: this namespace's pods,
    or a namespace docs/operations.md names under "Metrics"; the ingress controller's
    only as long as the Ingress does not route ``/metrics``."""
    page = OPERATIONS.read_text()
    section = page[page.index("### Metrics") :].split("\n## ", 1)[0]
    for deployment in deployments(target):
        ports = metrics_ports(deployment)
        if deployment["metadata"]["name"] in ("uno-rules", "uno-notifier"):
            assert ports, deployment["metadata"]["name"]
        for policy in policies_for(target, pod_labels(deployment)):
            for rule in policy["spec"].get("ingress", []):
                admitted = {p["port"] for p in rule.get("ports", [])}
                if admitted and not admitted & ports:
                    continue
                assert rule.get("from"), (
                    f"{policy['metadata']['name']}: {ports} open to every address"
                )
                for peer in rule["from"]:
                    assert "ipBlock" not in peer, peer
                    if "namespaceSelector" not in peer:
                        continue
                    name = (
                        peer["namespaceSelector"]
                        .get("matchLabels", {})
                        .get("kubernetes.io/metadata.name")
                    )
                    assert name and f"`{name}`" in section, f"{name} reaches /metrics, undocumented"
                    if name == CONTROLLER_NAMESPACE:
                        assert not ingress_routes("/metrics")


# ---------------------------------------------------------------- the notifier starts
def test_the_notifier_starts_on_the_prod_settings_without_webhooks(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The prod overlay's ConfigMap and environment, its REDIS_URL file pointing at a test
    Redis, no WEBHOOK_URL and the webhook Secret's file absent (the Secret is optional):
    it runs, and its probes' paths answer 200 on its metrics port."""
    deployment = one("prod", "Deployment", "uno-notifier")
    (worker,) = deployment["spec"]["template"]["spec"]["containers"]
    config = one("prod", "ConfigMap", "uno-rules-config")["data"]
    env = {k: v["value"] for k, v in env_of(worker).items() if "value" in v}
    assert "WEBHOOK_URL" not in config and "WEBHOOK_URL" not in env
    assert not Path(env["WEBHOOK_SECRET_FILE"]).exists()
    redis_file = tmp_path / "REDIS_URL"
    redis_file.write_text(redis_server.url + "\n")
    port = free_port()  # the overlay's 9102 may be taken on this machine
    env |= {
        "REDIS_URL_FILE": str(redis_file),
        "NOTIFIER_METRICS_PORT": str(port),
        "NOTIFIER_NAME": "t",
    }
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("WEBHOOK_", "REDIS_URL", "NOTIFIER_"))
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.notifier"],
        cwd=ROOT,
        env={**base, **config, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        paths = {
            worker[p]["httpGet"]["path"]
            for p in ("startupProbe", "readinessProbe", "livenessProbe")
        }
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container_port(worker, worker[probe]["httpGet"]["port"]) == 9102
        notes = deployment["spec"]["template"]["metadata"].get("annotations", {})
        paths.add(notes.get("prometheus.io/path", "/metrics"))
        deadline = time.monotonic() + 30
        answered: dict[str, int] = {}
        while set(answered) != paths:
            assert proc.poll() is None, (
                f"the notifier exited {proc.returncode}: {proc.stdout.read() if proc.stdout else ''}"
            )
            assert time.monotonic() < deadline, answered
            for path in paths - set(answered):
                try:
                    with urllib.request.urlopen(
                        f"http://127.0.0.1:{port}{path}", timeout=2
                    ) as answer:
                        answered[path] = answer.status
                except (urllib.error.URLError, ConnectionError):
                    time.sleep(0.2)
        assert set(answered.values()) == {200}, answered
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert "sweeping clocks" in out


# ---------------------------------------------------------------- the Ingress
def test_the_example_ingress_validates_and_routes_the_public_paths_only() -> None:
    done = run([tool("kubernetes-validate"), "--strict", str(INGRESS)])
    assert done.returncode == 0 and "WARN" not in done.stdout, done.stdout + done.stderr
    ingress = yaml.safe_load(INGRESS.read_text())
    service = one("prod", "Service", "uno-rules")
    for route in ingress["spec"]["rules"][0]["http"]["paths"]:
        backend = route["backend"]["service"]
        assert backend["name"] == service["metadata"]["name"]
        assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    inside = ("/metrics", "/healthz", "/readyz")
    public = [re.sub(r"\{[^}]+\}", "x", p) for p in spec["paths"] if p not in inside]
    for path in (
        *public,
        "/openapi.yaml",
        "/docs/",
        "/docs/rules",
        "/play",
        "/v1/sessions/x/stream",
    ):
        assert ingress_routes(path), path
    for path in inside:
        assert not ingress_routes(path), path


def test_the_ingress_keeps_streams_open_and_lets_bodies_through() -> None:
    from service import DEFAULTS
    from service.sessions.config import SessionConfig

    notes = yaml.safe_load(INGRESS.read_text())["metadata"]["annotations"]
    nginx = {k.removeprefix("nginx.ingress.kubernetes.io/"): v for k, v in notes.items()}
    assert nginx["proxy-buffering"] == "off"
    defaults = SessionConfig()
    assert int(nginx["proxy-read-timeout"]) > 2 * defaults.heartbeat_seconds
    size = nginx["proxy-body-size"]
    assert size.endswith("m") and int(size[:-1]) * 2**20 >= DEFAULTS["REPLAY_MAX_CONTENT_LENGTH"]
    config = one("prod", "ConfigMap", "uno-rules-config")["data"]
    assert int(config["GUNICORN_KEEPALIVE"]) > NGINX_UPSTREAM_KEEPALIVE


def test_prod_trusts_the_one_proxy_the_network_policy_lets_in() -> None:
    """TRUSTED_PROXIES=1: the ingress controller; no client reaches port 8000 past it."""
    config = one("prod", "ConfigMap", "uno-rules-config")["data"]
    assert config["TRUSTED_PROXIES"] == "1"
    policy = one("prod", "NetworkPolicy", "uno-rules")
    peers = [peer for rule in policy["spec"]["ingress"] for peer in rule.get("from", [None])]
    assert None not in peers, "port 8000 is open to every address"
    names = {
        p["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
        for p in peers
        if "namespaceSelector" in p
    }
    assert CONTROLLER_NAMESPACE in names
    assert one("dev", "ConfigMap", "uno-rules-config")["data"]["TRUSTED_PROXIES"] == "0"


# ---------------------------------------------------------------- the dev image
def test_dev_runs_the_image_the_dockerfile_builds_from_the_node() -> None:
    header = (ROOT / "Dockerfile").read_text()
    (built,) = re.findall(r"docker build -t (\S+) \.", header)
    for name in ("uno-rules", "uno-notifier"):
        (container,) = one("dev", "Deployment", name)["spec"]["template"]["spec"]["containers"]
        assert container["image"] == built, name
        # Loaded into the cluster by hand, in no registry: never pulled.
        assert container["imagePullPolicy"] == "IfNotPresent", name
    assert f"kind load docker-image {built}" in OPERATIONS.read_text()
