"""The addresses a webhook may not reach (unless ``WEBHOOK_ALLOW_PRIVATE``): every one
that is not globally reachable, from one list (``REFUSED``) whose entries each cite
their source, and Python's ``ipaddress`` ``is_global`` as a second opinion.

Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (the entries whose
"Globally Reachable" is False or N/A; a block with a few global exceptions is refused
whole: no webhook receiver lives at an anycast relay), the IANA multicast blocks, and
the deprecated blocks those registries no longer list (site-local, ORCHID). An address
that embeds an IPv4 address (IPv4-mapped, 6to4, NAT64; ``EMBEDDING``) is judged as the
IPv4 address it reaches; Teredo, which embeds a client address behind a relay, is
refused whole.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

V4 = "IANA IPv4 Special-Purpose Address Registry"
V6 = "IANA IPv6 Special-Purpose Address Registry"


@dataclass(frozen=True)
class Block:
    """A refused block and where the refusal comes from."""

    network: IPNetwork
    source: str


def _block(cidr: str, source: str) -> Block:
    return Block(ipaddress.ip_network(cidr), source)


#: Every block refused, with its source.
REFUSED: tuple[Block, ...] = (
    _block("0.0.0.0/8", f"RFC 791 'this network' ({V4})"),
    _block("10.0.0.0/8", f"RFC 1918 private-use ({V4})"),
    _block("100.64.0.0/10", f"RFC 6598 shared address space, carrier-grade NAT ({V4})"),
    _block("127.0.0.0/8", f"RFC 1122 loopback ({V4})"),
    _block("169.254.0.0/16", f"RFC 3927 link-local ({V4})"),
    _block("172.16.0.0/12", f"RFC 1918 private-use ({V4})"),
    _block("192.0.0.0/24", f"RFC 6890 IETF protocol assignments ({V4})"),
    _block("192.0.2.0/24", f"RFC 5737 documentation TEST-NET-1 ({V4})"),
    _block("192.88.99.0/24", f"RFC 7526 deprecated 6to4 relay anycast ({V4})"),
    _block("192.168.0.0/16", f"RFC 1918 private-use ({V4})"),
    _block("198.18.0.0/15", f"RFC 2544 benchmarking ({V4})"),
    _block("198.51.100.0/24", f"RFC 5737 documentation TEST-NET-2 ({V4})"),
    _block("203.0.113.0/24", f"RFC 5737 documentation TEST-NET-3 ({V4})"),
    _block("224.0.0.0/4", "RFC 5771 multicast (IANA IPv4 Multicast Address Space Registry)"),
    _block("240.0.0.0/4", f"RFC 1112 reserved ({V4})"),
    _block("255.255.255.255/32", f"RFC 919 limited broadcast ({V4})"),
    _block("::/96", "RFC 4291 unspecified, loopback and deprecated IPv4-compatible addresses"),
    _block("64:ff9b:1::/48", f"RFC 8215 local-use IPv4/IPv6 translation ({V6})"),
    _block("100::/64", f"RFC 6666 discard-only ({V6})"),
    _block("2001::/32", f"RFC 4380 Teredo, embeds a client behind a relay ({V6})"),
    _block("2001:2::/48", f"RFC 5180 benchmarking ({V6})"),
    _block("2001:10::/28", "RFC 4843 deprecated ORCHID (RFC 7343)"),
    _block("2001:db8::/32", f"RFC 3849 documentation ({V6})"),
    _block("3fff::/20", f"RFC 9637 documentation ({V6})"),
    _block("5f00::/16", f"RFC 9602 segment routing SIDs ({V6})"),
    _block("fc00::/7", f"RFC 4193 unique-local ({V6})"),
    _block("fe80::/10", f"RFC 4291 link-local unicast ({V6})"),
    _block("fec0::/10", "RFC 3879 deprecated site-local"),
    _block("ff00::/8", "RFC 4291 multicast (IANA IPv6 Multicast Address Space Registry)"),
)


def _mapped(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    return ip.ipv4_mapped


def _sixtofour(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    return ip.sixtofour


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def _nat64(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF) if ip in _NAT64 else None


#: IPv6 forms that reach an IPv4 address: judged as that address (source, extractor).
EMBEDDING: tuple[tuple[str, Callable[[ipaddress.IPv6Address], Any]], ...] = (
    ("RFC 4291 IPv4-mapped ::ffff:0:0/96", _mapped),
    ("RFC 3056 6to4 2002::/16", _sixtofour),
    ("RFC 6052 NAT64 well-known prefix 64:ff9b::/96", _nat64),
)


def refusal(address: str) -> str | None:
    """Why ``address`` may not be reached (its block and source), None when it may."""
    ip: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        for form, embedded in EMBEDDING:
            inner = embedded(ip)
            if inner is not None:
                why = refusal(str(inner))
                return f"{form} embedding {inner}: {why}" if why else None
    for block in REFUSED:
        if ip in block.network:
            return f"{block.network}: {block.source}"
    if not ip.is_global:
        return "not global (Python's ipaddress is_global)"
    return None


def refused_address(address: str) -> bool:
    """Whether ``address`` is one a webhook may not reach unless ops allow it."""
    return refusal(address) is not None
