"""This machine's addresses on the local network, so `make run` can say where the others join.

Pure Python (settings reads it before Django is set up). Nothing here sends a packet: connecting a UDP
socket only asks the kernel which interface would carry traffic to an address, and no datagram leaves.
"""

from __future__ import annotations

import ipaddress
import socket

# Any address outside this machine works for the route question; a private one keeps it on the LAN side.
_ROUTE_PROBE = ("10.255.255.255", 1)
WILDCARDS = {"", "0.0.0.0", "::"}  # noqa: S104 - the names of "every interface", compared, not bound


def is_usable(address: str) -> bool:
    """An address another machine could reach this one on: not loopback, link-local or a wildcard."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def is_loopback(host: str) -> bool:
    """A host name or address that means this machine only (localhost, 127.x, ::1)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _route_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_ROUTE_PROBE)
        except OSError:  # no network at all
            return None
        return probe.getsockname()[0]


def _hostname_addresses() -> list[str]:
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return []
    return [info[4][0] for info in infos]


def lan_addresses() -> list[str]:
    """The IPv4 addresses of this machine that others on the network can use, the default route's first."""
    found = []
    for address in [_route_address(), *_hostname_addresses()]:
        if address and is_usable(address) and address not in found:
            found.append(address)
    return found


def serving_urls(host: str, port: int | str) -> list[str]:
    """The base URLs a server bound to ``host`` answers on: each LAN address for a wildcard bind, else
    ``host`` itself (a loopback bind is reachable from this machine only)."""
    if host in WILDCARDS:
        addresses = lan_addresses() or ["127.0.0.1"]
    else:
        addresses = [host]
    return [f"http://{f'[{a}]' if ':' in a else a}:{port}" for a in addresses]
