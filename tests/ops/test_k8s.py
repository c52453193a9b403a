"""The Kubernetes manifests render, validate offline and keep the pods locked down."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.ops.support import K8S, OVERLAYS, ROOT, documents, render, run, tool, yaml_documents

API_LABELS = {"app.kubernetes.io/name": "uno-rules", "app.kubernetes.io/component": "api"}
REDIS_LABELS = {"app.kubernetes.io/name": "redis", "app.kubernetes.io/component": "cache"}
NOTIFIER_LABELS = {"app.kubernetes.io/name": "uno-rules", "app.kubernetes.io/component": "notifier"}


def by_kind(target: str, kind: str) -> list[dict[str, Any]]:
    return [doc for doc in documents(target) if doc["kind"] == kind]


def one(target: str, kind: str, name: str) -> dict[str, Any]:
    found = [doc for doc in by_kind(target, kind) if doc["metadata"]["name"].startswith(name)]
    assert len(found) == 1, f"{target}: expected one {kind} {name}, found {len(found)}"
    return found[0]


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in container.get("env", [])}


def secret_file(deployment: dict[str, Any], path: str) -> dict[str, Any]:
    """The Secret volume source whose key is mounted at ``path`` in the API container."""
    pod = deployment["spec"]["template"]["spec"]
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    (api,) = pod["containers"]
    for mount in api["volumeMounts"]:
        secret = volumes[mount["name"]].get("secret")
        if secret and path.startswith(mount["mountPath"].rstrip("/") + "/"):
            key = path[len(mount["mountPath"].rstrip("/")) + 1 :]
            items = {item["path"]: item["key"] for item in secret.get("items", [])}
            assert items.get(key, key) == key, (path, items)
            # Readable by the pod's group (fsGroup), by no one else.
            assert secret["defaultMode"] & 0o007 == 0, secret
            assert pod["securityContext"]["fsGroup"] == 10001
            return dict(secret)
    raise AssertionError(f"{path} is not in a mounted Secret")


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


@pytest.mark.parametrize("target", ("base", *OVERLAYS))
def test_kubernetes_validate_strict_passes(target: str) -> None:
    done = run([tool("kubernetes-validate"), "--strict", "-"], stdin=render(target))
    assert done.returncode == 0, done.stdout + done.stderr
    # A kind without a schema is only a WARN with exit 0: none is allowed.
    assert "WARN" not in done.stdout and "ERROR" not in done.stdout, done.stdout


def test_yamllint_strict_passes_on_the_sources() -> None:
    done = run([tool("yamllint"), "--strict", "-c", str(ROOT / ".yamllint.yaml"), "k8s"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_manifest_per_file() -> None:
    for path in K8S.rglob("*.yaml"):
        docs = yaml_documents(path.read_text())
        assert len(docs) == 1, f"{path}: {len(docs)} documents"


@pytest.mark.parametrize("target", OVERLAYS)
def test_every_pod_is_restricted(target: str) -> None:
    deployments = by_kind(target, "Deployment")
    assert deployments
    for deployment in deployments:
        pod = deployment["spec"]["template"]["spec"]
        name = deployment["metadata"]["name"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        assert pod["automountServiceAccountToken"] is False, name
        assert not pod.get("hostNetwork") and not pod.get("hostPID"), name
        for container in pod["containers"]:
            sc = container["securityContext"]
            assert sc["allowPrivilegeEscalation"] is False, name
            assert sc["readOnlyRootFilesystem"] is True, name
            assert sc["runAsNonRoot"] is True, name
            assert sc["capabilities"]["drop"] == ["ALL"], name
            assert "add" not in sc["capabilities"], name
            assert sc["seccompProfile"]["type"] == "RuntimeDefault", name
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]), name
            assert {"cpu", "memory"} <= set(resources["limits"]), name
            assert container["readinessProbe"] and container["livenessProbe"], name
            assert ":" in container["image"] and not container["image"].endswith(":latest")
            # A tag can move: pulled every time. A digest cannot. Dev's own image is built
            # and loaded into the cluster by hand (test_deploy.py): never pulled.
            if "@sha256:" not in container["image"] and container["image"] != "uno-rules:dev":
                assert container["imagePullPolicy"] == "Always", name
            # Secrets are files, never environment variables.
            assert not [
                e for e in container.get("env", []) if "secretKeyRef" in e.get("valueFrom", {})
            ]
            assert not [e for e in container.get("envFrom", []) if "secretRef" in e], name
        # Every path written to is an emptyDir (the root filesystem is read-only), or a
        # claim the overlay itself renders (the dev Redis' data); the only other mounts are
        # Secrets, read-only.
        claims = {doc["metadata"]["name"] for doc in by_kind(target, "PersistentVolumeClaim")}
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        for container in pod["containers"]:
            for mount in container["volumeMounts"]:
                volume = volumes[mount["name"]]
                claim = volume.get("persistentVolumeClaim", {}).get("claimName")
                assert (
                    "emptyDir" in volume
                    or claim in claims
                    or ("secret" in volume and mount.get("readOnly") is True)
                ), (name, mount)


@pytest.mark.parametrize("target", OVERLAYS)
def test_api_pod_probes_shutdown_and_environment(target: str) -> None:
    deployment = one(target, "Deployment", "uno-rules")
    pod = deployment["spec"]["template"]["spec"]
    assert selects(
        deployment["spec"]["selector"]["matchLabels"],
        deployment["spec"]["template"]["metadata"]["labels"],
    )
    assert pod["securityContext"]["runAsUser"] == 10001
    (api,) = pod["containers"]
    assert api["startupProbe"]["httpGet"]["path"] == "/healthz"
    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert api["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert {"name": "http", "containerPort": 8000, "protocol": "TCP"} in api["ports"]
    assert api["lifecycle"]["preStop"]["exec"]["command"] == [
        "python",
        "-c",
        "import time; time.sleep(5)",
    ]
    assert {"name": "tmp", "mountPath": "/tmp"} in api["volumeMounts"]
    env = env_of(api)
    # Every worker's metrics in one directory of the pod's own (an emptyDir in memory).
    metrics_dir = env["PROMETHEUS_MULTIPROC_DIR"]["value"]
    (mount,) = [m for m in api["volumeMounts"] if m["mountPath"] == metrics_dir]
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    assert volumes[mount["name"]]["emptyDir"]["medium"] == "Memory"
    assert int(env["WEB_CONCURRENCY"]["value"]) >= 1
    # The pod is killed only after the preStop sleep and gunicorn's graceful shutdown.
    graceful = int(env["GUNICORN_GRACEFUL_TIMEOUT"]["value"])
    assert pod["terminationGracePeriodSeconds"] > 5 + graceful
    # envFrom names the generated ConfigMap (with its hash suffix) that the overlay renders.
    (source,) = api["envFrom"]
    config = one(target, "ConfigMap", "uno-rules-config")
    assert source["configMapRef"]["name"] == config["metadata"]["name"]
    for key in ("LOG_LEVEL", "SESSION_TTL_SECONDS", "SESSION_KEY_PREFIX", "RATE_LIMIT"):
        assert key in config["data"], key
    # Every setting the ConfigMap gives is one the service reads (by its quoted name in
    # service/): a misspelt or retired key would do nothing and say otherwise.
    sources = "".join(p.read_text() for p in (ROOT / "service").rglob("*.py"))
    unread = [key for key in config["data"] if f'"{key}"' not in sources]
    assert not unread, unread


@pytest.mark.parametrize("target", OVERLAYS)
def test_more_than_one_process_only_where_sessions_and_keys_are_shared(target: str) -> None:
    """Each gunicorn worker keeps in-process sessions and makes its own key when none is given."""
    deployment = one(target, "Deployment", "uno-rules")
    (api,) = deployment["spec"]["template"]["spec"]["containers"]
    env = env_of(api)
    hpas = by_kind(target, "HorizontalPodAutoscaler")
    pods = max([deployment["spec"]["replicas"]] + [hpa["spec"]["maxReplicas"] for hpa in hpas])
    if pods * int(env["WEB_CONCURRENCY"]["value"]) > 1:
        assert (
            "REDIS_URL_FILE" in env
            or "REDIS_URL" in one(target, "ConfigMap", "uno-rules-config")["data"]
        )
        secret = secret_file(deployment, env["STATE_TOKEN_KEYS_FILE"]["value"])
        assert secret["secretName"] == "uno-rules-keys" and secret["optional"] is False


def test_dev_has_an_in_cluster_redis_and_points_the_api_at_it() -> None:
    assert one("dev", "Deployment", "uno-rules")["spec"]["replicas"] == 1
    redis = one("dev", "Deployment", "redis")
    assert (
        redis["spec"]["template"]["metadata"]["labels"] | REDIS_LABELS
        == (redis["spec"]["template"]["metadata"]["labels"])
    )
    (container,) = redis["spec"]["template"]["spec"]["containers"]
    assert container["image"].startswith("redis:7.2.") and container["image"].endswith("-alpine")
    assert {"name": "data", "mountPath": "/data"} in container["volumeMounts"]
    # Its data persists: an append-only file on a PersistentVolumeClaim (not an emptyDir).
    args = container["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--appendfsync") + 1] == "everysec"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    (volume,) = (v for v in redis["spec"]["template"]["spec"]["volumes"] if v["name"] == "data")
    claim = one("dev", "PersistentVolumeClaim", "redis-data")
    assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    service = one("dev", "Service", "redis")
    assert service["spec"]["selector"] == REDIS_LABELS
    assert service["spec"]["ports"][0]["port"] == 6379
    config = one("dev", "ConfigMap", "uno-rules-config")
    assert config["data"]["REDIS_URL"] == "redis://redis:6379/0"


def test_prod_runs_the_image_by_digest_and_dev_by_tag() -> None:
    """The release step writes the digest (kustomize edit set image; docs/operations.md, Releasing)."""
    (api,) = one("prod", "Deployment", "uno-rules")["spec"]["template"]["spec"]["containers"]
    name, _, digest = api["image"].partition("@")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), api["image"]
    assert name.rpartition("/")[2] == "uno-rules", "no tag beside the digest"
    (dev,) = one("dev", "Deployment", "uno-rules")["spec"]["template"]["spec"]["containers"]
    assert dev["image"] == "uno-rules:dev" and dev["imagePullPolicy"] == "IfNotPresent"


def test_dev_redis_runs_as_a_high_uid() -> None:
    pod = one("dev", "Deployment", "redis")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] >= 10000
    for container in pod["containers"]:
        assert container["securityContext"]["runAsUser"] >= 10000


def test_base_autoscales_on_cpu() -> None:
    hpa = one("base", "HorizontalPodAutoscaler", "uno-rules")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    assert one("base", "Deployment", "uno-rules")["spec"]["replicas"] == 2


def test_prod_takes_redis_from_a_secret_and_runs_none() -> None:
    deployment = one("prod", "Deployment", "uno-rules")
    assert deployment["spec"]["replicas"] == 3
    assert not [doc for doc in documents("prod") if "redis" in doc["metadata"]["name"]]
    (api,) = deployment["spec"]["template"]["spec"]["containers"]
    env = env_of(api)
    assert "REDIS_URL" not in env
    redis_url = secret_file(deployment, env["REDIS_URL_FILE"]["value"])
    assert redis_url["secretName"] == "uno-rules-redis" and redis_url["optional"] is False
    assert "REDIS_URL" not in one("prod", "ConfigMap", "uno-rules-config")["data"]
    # Several replicas must share the sealing keys: prod refuses to start without them.
    assert "STATE_TOKEN_KEYS" not in env
    keys = secret_file(deployment, env["STATE_TOKEN_KEYS_FILE"]["value"])
    assert keys["secretName"] == "uno-rules-keys" and keys["optional"] is False
    hpa = one("prod", "HorizontalPodAutoscaler", "uno-rules")
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (3, 20)
    dev_limits = one("dev", "Deployment", "uno-rules")["spec"]["template"]["spec"]["containers"][0]
    assert api["resources"]["limits"] != dev_limits["resources"]["limits"]


@pytest.mark.parametrize("target", OVERLAYS)
def test_service_hpa_and_pdb_point_at_the_api_pods(target: str) -> None:
    deployment = one(target, "Deployment", "uno-rules")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    service = one(target, "Service", "uno-rules")
    assert selects(service["spec"]["selector"], labels)
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    pdb = one(target, "PodDisruptionBudget", "uno-rules")
    assert selects(pdb["spec"]["selector"]["matchLabels"], labels)
    for hpa in by_kind(target, "HorizontalPodAutoscaler"):
        assert hpa["apiVersion"] == "autoscaling/v2"
        assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
        assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    for doc in documents(target):
        assert doc["metadata"]["labels"]["app.kubernetes.io/part-of"] == "uno-rules", doc["kind"]
        assert "app.kubernetes.io/name" in doc["metadata"]["labels"], doc["kind"]


@pytest.mark.parametrize("target", OVERLAYS)
def test_network_policies(target: str) -> None:
    api_labels = one(target, "Deployment", "uno-rules")["spec"]["template"]["metadata"]["labels"]
    api = one(target, "NetworkPolicy", "uno-rules")
    assert selects(api["spec"]["podSelector"]["matchLabels"], api_labels)
    assert set(api["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    ingress_ports = [port for rule in api["spec"]["ingress"] for port in rule["ports"]]
    assert ingress_ports == [{"protocol": "TCP", "port": 8000}]
    egress_ports = {port["port"] for rule in api["spec"]["egress"] for port in rule["ports"]}
    assert {53, 6379} <= egress_ports
    if target != "dev":
        return
    redis = one("dev", "NetworkPolicy", "redis")
    redis_labels = one("dev", "Deployment", "redis")["spec"]["template"]["metadata"]["labels"]
    assert selects(redis["spec"]["podSelector"]["matchLabels"], redis_labels)
    assert set(redis["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    assert not redis["spec"].get("egress")
    (rule,) = redis["spec"]["ingress"]
    assert rule["ports"] == [{"protocol": "TCP", "port": 6379}]
    api_peer, notifier_peer = rule["from"]
    assert set(api_peer) == set(notifier_peer) == {"podSelector"}
    assert api_peer["podSelector"]["matchLabels"] == API_LABELS
    assert selects(api_peer["podSelector"]["matchLabels"], api_labels)
    assert notifier_peer["podSelector"]["matchLabels"] == NOTIFIER_LABELS


def test_prod_refuses_client_seeds_and_dev_allows_them() -> None:
    """Prod turns ALLOW_CLIENT_SEED off, as the service's own config reader reads it."""
    from service.sessions.config import SessionConfig

    def allowed(target: str) -> bool:
        deployment = one(target, "Deployment", "uno-rules")
        (api,) = deployment["spec"]["template"]["spec"]["containers"]
        env = {k: v["value"] for k, v in env_of(api).items() if "value" in v}
        config = one(target, "ConfigMap", "uno-rules-config")["data"]
        raw = env.get("ALLOW_CLIENT_SEED", config.get("ALLOW_CLIENT_SEED"))
        return SessionConfig.load({"ALLOW_CLIENT_SEED": raw}).allow_client_seed

    assert allowed("prod") is False
    assert allowed("dev") is True


# ---------------------------------------------------------------- the notifier
@pytest.mark.parametrize("target", ("base", *OVERLAYS))
def test_the_notifier_runs_beside_the_api_on_its_settings(target: str) -> None:
    """Its own Deployment (``python -m service.notifier``), on the API's ConfigMap, its
    health on the metrics port, each replica named after its pod; the API indexes the
    deadlines it sweeps (CLOCK_SWEEPER on)."""
    from service.sessions.config import SessionConfig

    deployment = one(target, "Deployment", "uno-notifier")
    template = deployment["spec"]["template"]
    assert template["metadata"]["labels"] | NOTIFIER_LABELS == template["metadata"]["labels"]
    assert selects(deployment["spec"]["selector"]["matchLabels"], template["metadata"]["labels"])
    (worker,) = template["spec"]["containers"]
    assert worker["command"] == ["python", "-m", "service.notifier"]
    api = one(target, "Deployment", "uno-rules")["spec"]["template"]["spec"]["containers"][0]
    assert worker["image"] == api["image"] and worker["envFrom"] == api["envFrom"]
    env = env_of(worker)
    port = int(env["NOTIFIER_METRICS_PORT"]["value"])
    assert {"name": "metrics", "containerPort": port, "protocol": "TCP"} in worker["ports"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert worker[probe]["httpGet"] == {"path": "/healthz", "port": "metrics"}, probe
    assert env["NOTIFIER_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert deployment["spec"]["replicas"] >= 1
    config = one(target, "ConfigMap", "uno-rules-config")["data"]
    assert SessionConfig.load(config).sweeping
    # Every variable it is given is one the code reads (by its quoted name).
    sources = "".join(p.read_text() for p in (ROOT / "service").rglob("*.py"))
    unread = [k for k in env if f'"{k.removesuffix("_FILE")}"' not in sources]
    assert not unread, unread


def test_prod_gives_the_notifier_redis_and_the_webhook_secret_as_files() -> None:
    deployment = one("prod", "Deployment", "uno-notifier")
    assert deployment["spec"]["replicas"] >= 2
    (worker,) = deployment["spec"]["template"]["spec"]["containers"]
    env = env_of(worker)
    redis_url = secret_file_of(deployment, env["REDIS_URL_FILE"]["value"])
    assert redis_url["secretName"] == "uno-rules-redis" and redis_url["optional"] is False
    # Optional: without WEBHOOK_URL the notifier only sweeps and needs no secret.
    secret = secret_file_of(deployment, env["WEBHOOK_SECRET_FILE"]["value"])
    assert secret["secretName"] == "uno-rules-webhook"
    assert "WEBHOOK_SECRET" not in env


@pytest.mark.parametrize("target", OVERLAYS)
def test_the_notifier_reaches_redis_and_public_https_only(target: str) -> None:
    policy = one(target, "NetworkPolicy", "uno-notifier")
    assert policy["spec"]["podSelector"]["matchLabels"] == NOTIFIER_LABELS
    assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    ingress = [port for rule in policy["spec"]["ingress"] for port in rule["ports"]]
    assert ingress == [{"protocol": "TCP", "port": 9102}]
    egress = policy["spec"]["egress"]
    assert {p["port"] for rule in egress for p in rule["ports"]} == {53, 443, 6379, 6380, 26379}
    (https,) = [rule for rule in egress if {"protocol": "TCP", "port": 443} in rule["ports"]]
    (block,) = https["to"]
    assert block["ipBlock"]["cidr"] == "0.0.0.0/0"
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"} <= set(
        block["ipBlock"]["except"]
    )
    pdb = one(target, "PodDisruptionBudget", "uno-notifier")
    assert pdb["spec"]["selector"]["matchLabels"] == NOTIFIER_LABELS


def secret_file_of(deployment: dict[str, Any], path: str) -> dict[str, Any]:
    """The Secret volume mounted at ``path``'s folder in the deployment's one container."""
    pod = deployment["spec"]["template"]["spec"]
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    (container,) = pod["containers"]
    for mount in container["volumeMounts"]:
        secret = volumes[mount["name"]].get("secret")
        if secret and path.startswith(mount["mountPath"].rstrip("/") + "/"):
            assert mount.get("readOnly") is True and secret["defaultMode"] & 0o007 == 0
            return dict(secret)
    raise AssertionError(f"{path} is not in a mounted Secret")
