"""A tiny Kubernetes API server double on loopback, for running the real kubectl offline.

It answers what ``kubectl apply --dry-run=client --prune --applyset=...`` asks: the version,
discovery (legacy ``/api``, ``/apis`` and each group-version's resource list), GETs of single
objects (404 unless given), lists (empty unless given) and nothing else. It is not a cluster: it
stores nothing, and a request it does not know is logged and answered 404.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# (group, version, resource, singular, kind, namespaced)
BUILTIN: list[tuple[str, str, str, str, str, bool]] = [
    ("", "v1", "configmaps", "configmap", "ConfigMap", True),
    ("", "v1", "secrets", "secret", "Secret", True),
    ("", "v1", "services", "service", "Service", True),
    ("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", True),
    ("", "v1", "namespaces", "namespace", "Namespace", False),
    ("apps", "v1", "deployments", "deployment", "Deployment", True),
    ("storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", False),
    (
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "customresourcedefinition",
        "CustomResourceDefinition",
        False,
    ),
]


class ApiDouble:
    """Resources (BUILTIN plus ``extra``) and objects (by URL path) the double knows."""

    def __init__(
        self,
        extra: list[tuple[str, str, str, str, str, bool]] | None = None,
        objects: dict[str, dict[str, Any]] | None = None,
        lists: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.resources = BUILTIN + list(extra or [])
        self.objects = dict(objects or {})
        self.lists = dict(lists or {})
        self.requests: list[str] = []

    def discovery(self, path: str) -> dict[str, Any] | None:
        if path == "/version":
            return {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"}
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if path == "/apis":
            groups: dict[str, list[str]] = {}
            for group, version, *_ in self.resources:
                if group and version not in groups.setdefault(group, []):
                    groups[group].append(version)
            return {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [
                    {
                        "name": group,
                        "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in vs],
                        "preferredVersion": {"groupVersion": f"{group}/{vs[0]}", "version": vs[0]},
                    }
                    for group, vs in groups.items()
                ],
            }
        for group, version in {(g, v) for g, v, *_ in self.resources}:
            prefix = f"/apis/{group}/{version}" if group else f"/api/{version}"
            if path == prefix:
                return {
                    "kind": "APIResourceList",
                    "apiVersion": "v1",
                    "groupVersion": f"{group}/{version}" if group else version,
                    "resources": [
                        {
                            "name": resource,
                            "singularName": singular,
                            "namespaced": namespaced,
                            "kind": kind,
                            "verbs": ["create", "delete", "get", "list", "patch", "update"],
                        }
                        for g, v, resource, singular, kind, namespaced in self.resources
                        if (g, v) == (group, version)
                    ],
                }
        return None

    def answer(self, method: str, path: str) -> tuple[int, dict[str, Any]]:
        self.requests.append(f"{method} {path}")
        bare = path.split("?", 1)[0]
        found = self.discovery(bare) if method == "GET" else None
        if found is not None:
            return 200, found
        if method == "GET" and bare in self.objects:
            return 200, self.objects[bare]
        if method == "GET" and self._is_collection(bare):
            kind = self._kind_of(bare)
            return 200, {
                "kind": f"{kind}List",
                "apiVersion": "v1",
                "metadata": {"resourceVersion": "1"},
                "items": self.lists.get(bare, []),
            }
        return 404, {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "reason": "NotFound",
            "code": 404,
            "message": f"{bare} not found",
        }

    def _segments(self, path: str) -> tuple[str, list[str]] | None:
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["api"] and len(parts) >= 2:
            return "", parts[2:]
        if parts[:1] == ["apis"] and len(parts) >= 3:
            return parts[1], parts[3:]
        return None

    def _resource(self, path: str) -> tuple[str, str, bool] | None:
        """(resource, kind, is a collection) of an object or collection path."""
        split = self._segments(path)
        if split is None:
            return None
        group, rest = split
        if rest[:1] == ["namespaces"] and len(rest) >= 3:
            rest = rest[2:]
        for g, _v, resource, _s, kind, _n in self.resources:
            if g == group and rest[:1] == [resource]:
                return resource, kind, len(rest) == 1
        return None

    def _is_collection(self, path: str) -> bool:
        found = self._resource(path)
        return found is not None and found[2]

    def _kind_of(self, path: str) -> str:
        found = self._resource(path)
        return found[1] if found is not None else "Unknown"


@contextmanager
def serve(double: ApiDouble, folder: Path) -> Iterator[dict[str, str]]:
    """Serve ``double`` on 127.0.0.1; yield the environment for kubectl (a kubeconfig in
    ``folder`` with context namespace ``default``, KUBECTL_APPLYSET=true)."""

    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            code, body = double.answer(self.command, self.path)
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = _reply
        do_PATCH = _reply
        do_POST = _reply
        do_PUT = _reply
        do_DELETE = _reply

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        kubeconfig = folder / "kubeconfig"
        kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\n"
            f"clusters:\n- name: double\n  cluster: {{server: 'http://127.0.0.1:{port}'}}\n"
            "users:\n- name: u\n  user: {token: t}\n"
            "contexts:\n- name: double\n  context: {cluster: double, user: u, namespace: default}\n"
            "current-context: double\n",
            encoding="utf-8",
        )
        env = dict(os.environ)
        env.update(
            KUBECONFIG=str(kubeconfig),
            KUBECTL_APPLYSET="true",
            KUBECACHEDIR=str(folder / "cache"),
            HOME=str(folder),
        )
        yield env
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
