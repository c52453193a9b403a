"""The SSRF guard's address classes, case by case: every address that is not globally
reachable is refused (``service.notifier.addresses``), with the source of its refusal."""

from __future__ import annotations

import ipaddress

import pytest

from service.notifier.addresses import REFUSED, refusal, refused_address

#: (address, what it is, refused): each class the guard must know, and global ones.
CASES = [
    ("10.1.2.3", "RFC 1918", True),
    ("172.16.0.1", "RFC 1918", True),
    ("192.168.1.1", "RFC 1918", True),
    ("127.0.0.1", "loopback", True),
    ("0.0.0.0", "this network", True),
    ("169.254.169.254", "link-local, cloud metadata", True),
    ("100.64.0.1", "shared address space", True),
    ("100.100.100.200", "shared address space, a cloud metadata address", True),
    ("100.127.255.254", "shared address space, its end", True),
    ("192.0.0.170", "IETF protocol assignments", True),
    ("192.0.2.1", "documentation TEST-NET-1", True),
    ("198.51.100.7", "documentation TEST-NET-2", True),
    ("203.0.113.9", "documentation TEST-NET-3", True),
    ("198.18.0.1", "benchmarking", True),
    ("192.88.99.1", "6to4 relay anycast", True),
    ("224.0.0.1", "multicast", True),
    ("240.0.0.1", "reserved", True),
    ("255.255.255.255", "limited broadcast", True),
    ("::", "unspecified", True),
    ("::1", "loopback", True),
    ("::10.0.0.1", "IPv4-compatible", True),
    ("::ffff:10.0.0.1", "IPv4-mapped private", True),
    ("::ffff:169.254.169.254", "IPv4-mapped link-local", True),
    ("fe80::1", "link-local", True),
    ("fe80::1%eth0", "link-local with a zone", True),
    ("fc00::1", "unique-local", True),
    ("fd12:3456::1", "unique-local", True),
    ("fec0::1", "site-local", True),
    ("feff:ffff::1", "site-local, its end", True),
    ("ff0e::1", "global-scope multicast", True),
    ("2002:a9fe:a9fe::1", "6to4 embedding 169.254.169.254", True),
    ("2002:7f00:1::1", "6to4 embedding 127.0.0.1", True),
    ("2002:0a00:0001::", "6to4 embedding 10.0.0.1", True),
    ("2002:6440:0001::", "6to4 embedding 100.64.0.1", True),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo", True),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo embedding 10.0.0.1", True),
    ("64:ff9b::a9fe:a9fe", "NAT64 embedding 169.254.169.254", True),
    ("64:ff9b::7f00:1", "NAT64 embedding 127.0.0.1", True),
    ("64:ff9b:1::1", "local-use NAT64", True),
    ("100::1", "discard-only", True),
    ("2001:2::1", "benchmarking", True),
    ("2001:10::1", "ORCHID", True),
    ("2001:db8::1", "documentation", True),
    ("3fff::1", "documentation (RFC 9637)", True),
    ("5f00::1", "segment routing SIDs", True),
    ("93.184.216.34", "a public IPv4 address", False),
    ("8.8.8.8", "a public IPv4 address", False),
    ("100.128.0.1", "just past the shared address space", False),
    ("::ffff:8.8.8.8", "IPv4-mapped public", False),
    ("2002:0808:0808::1", "6to4 embedding 8.8.8.8", False),
    ("64:ff9b::808:808", "NAT64 embedding 8.8.8.8", False),
    ("2606:2800:220:1:248:1893:25c8:1946", "a public IPv6 address", False),
    ("2a00:1450:4001:81c::200e", "a public IPv6 address", False),
]


@pytest.mark.parametrize(("address", "what", "refused"), CASES, ids=[c[0] for c in CASES])
def test_every_address_that_is_not_global_is_refused(
    address: str, what: str, refused: bool
) -> None:
    why = refusal(address)
    assert refused_address(address) is refused, (what, why)
    if refused:
        assert why and ("RFC" in why or "is_global" in why), why


def test_every_block_of_the_list_cites_its_source_and_is_refused_to_its_ends() -> None:
    for block in REFUSED:
        assert "RFC" in block.source, block
        net = block.network
        for ip in (net.network_address, net.broadcast_address):
            assert refused_address(str(ip)), (block, ip)


def test_whatever_python_calls_not_global_is_refused_too() -> None:
    # A sample across the space, judged by Python's ipaddress: none it calls
    # non-global gets through (the list may refuse more, never less).
    for n in range(0, 2**32, 2**32 // 4099):
        ip = ipaddress.IPv4Address(n)
        if not ip.is_global:
            assert refused_address(str(ip)), ip
