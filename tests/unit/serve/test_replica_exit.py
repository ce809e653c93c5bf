"""Reading a replica's own state from Serve's instance details."""

from __future__ import annotations

import pytest

from serve.replica_exit import is_leaving, replica_state

pytestmark = pytest.mark.unit

DETAILS = {
    "applications": {
        "agentry": {
            "deployments": {
                "ingress": {
                    "replicas": [
                        {"replica_id": "old", "state": "STOPPING"},
                        {"replica_id": "new", "state": "RUNNING"},
                    ]
                }
            }
        }
    }
}


def test_the_replica_is_found_by_app_deployment_and_id() -> None:
    assert replica_state(DETAILS, "agentry", "ingress", "old") == "STOPPING"
    assert replica_state(DETAILS, "agentry", "ingress", "new") == "RUNNING"
    assert replica_state(DETAILS, "agentry", "ingress", "gone") is None
    assert replica_state(DETAILS, "other", "ingress", "new") is None
    assert replica_state({}, "agentry", "ingress", "new") is None


@pytest.mark.parametrize(
    ("state", "leaving"),
    [
        ("STOPPING", True),
        ("STOPPED", True),
        ("PENDING_MIGRATION", True),
        (None, True),
        ("RUNNING", False),
        ("UPDATING", False),
    ],
)
def test_which_states_mean_leaving(state: str | None, leaving: bool) -> None:
    assert is_leaving(state) is leaving
