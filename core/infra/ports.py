"""Free TCP ports for listeners this project starts (HAProxy's stats and metrics, Serve's fallback
proxy, the tests' servers).

Picked at random in 20000-29999: above Ray's worker ports (10002-19999) and below the ports Serve
gives its replicas' own HTTP servers (30000 and up) and the kernel's ephemeral range (32768 and up),
from which Ray's processes and every outgoing connection take ports while a service starts. A port
the kernel picked with bind(0) comes from that range, and one of Ray's processes took it between the
probe and the listener's bind ("Address already in use").
"""

from __future__ import annotations

import contextlib
import random
import socket

PORTS = range(20000, 30000)
#: Random tries before giving up (a machine with most of the range taken has other trouble).
TRIES = 256


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """`count` distinct ports nothing listens on now; each is held until all are chosen, so none is
    chosen twice."""
    with contextlib.ExitStack() as held:
        chosen: list[int] = []
        for port in random.sample(PORTS, TRIES):
            sock = held.enter_context(socket.socket())
            try:
                sock.bind((host, port))
            except OSError:
                continue
            chosen.append(port)
            if len(chosen) == count:
                return chosen
    raise RuntimeError(f"no {count} free ports in {PORTS.start}-{PORTS.stop - 1} after {TRIES} tries")


def free_port(host: str = "127.0.0.1") -> int:
    return free_ports(1, host)[0]
