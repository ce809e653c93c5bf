"""OpenAPI links: which reply field names the resource that other operations take in their path.

With them a generated client, or a stateful fuzzer, creates an agent and then reads, runs, patches
and deletes that very agent, instead of guessing ids that only ever get a 404.
"""

from __future__ import annotations

from typing import Any

#: (method, path, status) of an operation that creates something -> {path parameter: reply field}.
PRODUCERS: dict[tuple[str, str, str], dict[str, str]] = {
    ("post", "/api/v1/agents", "201"): {"agent_id": "id"},
    ("patch", "/api/v1/agents/{agent_id}", "200"): {"agent_id": "id"},
    ("post", "/api/v1/agents/{agent_id}/run", "201"): {"task_id": "task_id"},
    ("post", "/api/v1/webhooks", "201"): {"webhook_id": "id"},
    ("post", "/api/v2/files", "200"): {"file_id": "file_id"},
    ("post", "/api/v2/configs", "200"): {"config_id": "config_id"},
    ("post", "/api/v2/parse/async", "200"): {"record_id": "record_id", "batch_id": "batch_id"},
    ("post", "/api/v2/extract/async", "200"): {"record_id": "record_id", "batch_id": "batch_id"},
    ("post", "/api/v2/classify/async", "200"): {"record_id": "record_id", "batch_id": "batch_id"},
}


def add_links(document: dict[str, Any]) -> None:
    """Link every producer's reply to each operation whose path takes the id it returns."""
    paths = document.get("paths", {})
    for (method, path, status), fields in PRODUCERS.items():
        response = paths.get(path, {}).get(method, {}).get("responses", {}).get(status)
        if response is None:
            continue
        links = response.setdefault("links", {})
        for param, field in fields.items():
            for consumer_path, operations in paths.items():
                if f"{{{param}}}" not in consumer_path:
                    continue
                others = [p for p in _path_params(consumer_path) if p != param]
                if others:
                    # A path that needs a second id (a page number) is left to the fuzzer.
                    continue
                for consumer_method, operation in operations.items():
                    name = f"{operation['operationId']}_by_{field}"
                    links[name] = {
                        "operationId": operation["operationId"],
                        "parameters": {param: f"$response.body#/{field}"},
                        "description": f"`{field}` of the reply is `{param}` of {consumer_method.upper()} {consumer_path}.",
                    }


def _path_params(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]
