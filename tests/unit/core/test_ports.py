"""Free ports for the listeners the service starts (core.infra.ports): distinct, free, in the range
no Ray process or outgoing connection takes ports from."""

from __future__ import annotations

import socket

import pytest

from core.infra import ports


def test_ports_are_distinct_free_and_in_the_range() -> None:
    chosen = ports.free_ports(4)
    assert len(set(chosen)) == 4 and all(p in ports.PORTS for p in chosen)
    for port in chosen:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_a_port_something_listens_on_is_not_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        free = ports.free_port()
        monkeypatch.setattr(ports, "PORTS", range(busy, busy + 1))
        monkeypatch.setattr(ports, "TRIES", 1)
        with pytest.raises(RuntimeError, match="no 1 free ports"):
            ports.free_ports(1)
    assert free != busy
