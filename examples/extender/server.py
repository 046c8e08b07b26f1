"""An example scheduler extender: a small HTTP server speaking kube-scheduler's extender protocol.

Standard library only. Run it, then point a scheduler configuration at it::

    python examples/extender/server.py --port 8888

    extenders:
    - urlPrefix: http://127.0.0.1:8888/
      filterVerb: filter
      prioritizeVerb: prioritize
      preemptVerb: preempt
      bindVerb: bind
      weight: 1

Its rules read node labels:

- ``extender/deny: "true"`` — Filter fails the node (the scheduler may still preempt there);
  ``extender/deny: unresolvable`` — Filter fails it as unresolvable (preemption skips it).
- ``extender/score: "<0-10>"`` — Prioritize gives the node that score (others get 0).
- ``extender/no-preemption: "true"`` — Preempt drops the node from the candidates.
- ``extender/bind: refuse`` — Bind answers with an error for that node.

and one pod label: ``extender/error: <message>`` makes Filter answer with that error.

Bind only records the binding (``GET /bindings`` lists them): a real binding extender would
create the Binding through the API server itself.

Like any extender configured with ``nodeCacheCapable: true``, it needs its own view of the nodes
when the scheduler sends only node names: it remembers every Node it was ever sent whole, and
``POST /nodes`` (a JSON list of Node manifests, or a NodeList) teaches it more. A node it does
not know has no labels, so every rule passes it.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DENY = "extender/deny"
SCORE = "extender/score"
NO_PREEMPTION = "extender/no-preemption"
BIND = "extender/bind"
POD_ERROR = "extender/error"

MAX_EXTENDER_PRIORITY = 10


class ExampleExtender:
    """The rules, one method per verb: decoded request in, answer out (no HTTP here)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        """Seconds to wait before answering any request (to try out ``httpTimeout``)."""
        self.node_labels: dict[str, dict[str, str]] = {}
        self.bindings: list[dict[str, str]] = []
        self.requests: list[tuple[str, Any]] = []
        """Every request as ``(verb, decoded body)``, for people (and tests) to inspect."""
        self._lock = threading.Lock()

    # -- the node cache --------------------------------------------------------------------------

    def learn_nodes(self, nodes: list[dict[str, Any]]) -> None:
        with self._lock:
            for node in nodes:
                metadata = node.get("metadata") or {}
                self.node_labels[metadata.get("name", "")] = dict(metadata.get("labels") or {})

    def labels(self, node_name: str) -> dict[str, str]:
        with self._lock:
            return self.node_labels.get(node_name, {})

    def _node_names(self, args: dict[str, Any]) -> tuple[list[str], bool]:
        """The nodes of a Filter or Prioritize request, and whether they came whole."""
        if args.get("Nodes") is not None:
            items = args["Nodes"].get("items") or []
            self.learn_nodes(items)
            return [item["metadata"]["name"] for item in items], True
        return list(args.get("NodeNames") or []), False

    # -- the verbs -------------------------------------------------------------------------------

    def filter(self, args: dict[str, Any]) -> dict[str, Any]:
        pod_labels = (args.get("Pod") or {}).get("metadata", {}).get("labels") or {}
        if POD_ERROR in pod_labels:
            return {"Error": pod_labels[POD_ERROR]}
        names, whole = self._node_names(args)
        passed: list[str] = []
        failed: dict[str, str] = {}
        unresolvable: dict[str, str] = {}
        for name in names:
            deny = self.labels(name).get(DENY)
            if deny == "true":
                failed[name] = "node(s) denied by the example extender"
            elif deny == "unresolvable":
                unresolvable[name] = "node(s) denied for good by the example extender"
            else:
                passed.append(name)
        answer: dict[str, Any] = {"FailedNodes": failed, "FailedAndUnresolvableNodes": unresolvable}
        if whole:
            items = [n for n in args["Nodes"]["items"] if n["metadata"]["name"] in passed]
            answer["Nodes"] = {"metadata": {}, "items": items}
        else:
            answer["NodeNames"] = passed
        return answer

    def prioritize(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        names, _ = self._node_names(args)
        return [{"Host": name, "Score": self._score(name)} for name in names]

    def _score(self, node_name: str) -> int:
        try:
            score = int(self.labels(node_name).get(SCORE, "0"))
        except ValueError:
            return 0
        return max(0, min(score, MAX_EXTENDER_PRIORITY))

    def preempt(self, args: dict[str, Any]) -> dict[str, Any]:
        """Keeps every candidate node and its victims, except nodes that refuse preemption."""
        if args.get("NodeNameToMetaVictims") is not None:
            by_node = args["NodeNameToMetaVictims"]
            uids = {n: [p["UID"] for p in v.get("Pods") or []] for n, v in by_node.items()}
        else:
            by_node = args.get("NodeNameToVictims") or {}
            uids = {
                n: [p["metadata"]["uid"] for p in v.get("Pods") or []] for n, v in by_node.items()
            }
        kept = {
            node: {
                "Pods": [{"UID": uid} for uid in uids[node]],
                "NumPDBViolations": victims.get("NumPDBViolations", 0),
            }
            for node, victims in by_node.items()
            if self.labels(node).get(NO_PREEMPTION) != "true"
        }
        return {"NodeNameToMetaVictims": kept}

    def bind(self, args: dict[str, Any]) -> dict[str, Any]:
        node = args.get("Node", "")
        if self.labels(node).get(BIND) == "refuse":
            return {"Error": f"node {node} refuses bindings from the example extender"}
        with self._lock:
            self.bindings.append(
                {
                    "namespace": args.get("PodNamespace", ""),
                    "name": args.get("PodName", ""),
                    "uid": args.get("PodUID", ""),
                    "node": node,
                }
            )
        return {"Error": ""}

    def learn(self, args: Any) -> dict[str, Any]:
        """``POST /nodes``: a list of Node manifests, or a NodeList."""
        items = args.get("items") if isinstance(args, dict) else args
        self.learn_nodes(items or [])
        return {}

    def answer(self, verb: str, args: Any) -> Any:
        """Answers one request; an unknown verb raises UnknownVerb."""
        verbs = {
            "filter": self.filter,
            "prioritize": self.prioritize,
            "preempt": self.preempt,
            "bind": self.bind,
            "nodes": self.learn,
        }
        if verb not in verbs:
            raise UnknownVerb(verb)
        if self.delay:
            time.sleep(self.delay)
        with self._lock:
            self.requests.append((verb, args))
        return verbs[verb](args)


class UnknownVerb(LookupError):
    pass


class _Handler(BaseHTTPRequestHandler):
    """Routes ``POST <any prefix>/<verb>`` to the extender; ``GET /bindings`` lists bindings."""

    server: ExtenderServer

    def do_POST(self) -> None:
        verb = self.path.rstrip("/").rsplit("/", 1)[-1]
        length = int(self.headers.get("Content-Length") or 0)
        try:
            args = json.loads(self.rfile.read(length) or b"null")
        except ValueError as err:
            self._answer(400, {"error": f"bad JSON: {err}"})
            return
        try:
            answer = self.server.extender.answer(verb, args)
        except UnknownVerb:
            self._answer(404, {"error": f"unknown verb {verb!r}"})
        except Exception as err:  # a malformed request: say so rather than drop the connection
            self._answer(500, {"error": f"{type(err).__name__}: {err}"})
        else:
            self._answer(200, answer)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/bindings"):
            self._answer(200, self.server.extender.bindings)
        else:
            self._answer(404, {"error": "only GET /bindings is served"})

    def _answer(self, code: int, value: Any) -> None:
        body = json.dumps(value).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)


class ExtenderServer(ThreadingHTTPServer):
    """The HTTP server around an ExampleExtender; ``port=0`` picks a free port."""

    daemon_threads = True

    def __init__(
        self, host: str, port: int, extender: ExampleExtender, verbose: bool = False
    ) -> None:
        super().__init__((host, port), _Handler)
        self.extender = extender
        self.verbose = verbose

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="An example kube-scheduler extender.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8888, help="port to listen on")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait per request")
    args = parser.parse_args(argv)
    server = ExtenderServer(args.host, args.port, ExampleExtender(args.delay), verbose=True)
    print(f"example extender listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
