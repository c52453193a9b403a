"""Sealed state tokens: a game state encrypted and authenticated with a server key.

A mobile app can hold a token and its seat's view without being able to read hidden
cards or forge a state. Format (all ASCII):

    st1.<key id>.<base64url(nonce[12] || AES-256-GCM(zlib(json(state))) || tag[16])>

The key id and the format version are bound into the ciphertext as associated data, so
a token cannot be moved to another key id. Keys come from ``STATE_TOKEN_KEYS`` (or the
file ``STATE_TOKEN_KEYS_FILE`` names, see ``service.secretfiles``):
``kid1:<base64 32-byte key>,kid2:<...>``; the first key seals, every listed key opens
(rotation, step by step: ``docs/operations.md``, "Rotating the sealing keys").
Without configured keys the service makes an ephemeral key at start (tokens then die
with the process and do not cross replicas; the log says so).

Replay: a token is a value, not a session. An old token stays valid (it can be sent
again to replay from that point); tokens carry no expiry or version check. Where that
matters, use server-held sessions (``/v1/sessions``), which keep one current version.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service import secretfiles

PREFIX = "st1"
NONCE_BYTES = 12
KEY_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
#: The largest token accepted (a state of ten full hands is a few KiB sealed).
MAX_TOKEN_CHARS = 64 * 1024
MAX_PLAIN_BYTES = 512 * 1024


class SealError(Exception):
    """A token that is malformed, tampered with, truncated or sealed with another key."""

    code = "invalid_state_token"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class KeyConfigError(ValueError):
    """``STATE_TOKEN_KEYS`` is malformed."""


@dataclass(frozen=True)
class Keyring:
    """Sealing keys by id; ``active`` seals, all of them open."""

    keys: dict[str, bytes]
    active: str
    ephemeral: bool = False

    @classmethod
    def parse(cls, spec: str) -> Keyring:
        keys: dict[str, bytes] = {}
        order: list[str] = []
        for part in (p.strip() for p in spec.split(",")):
            if not part:
                continue
            kid, sep, b64 = part.partition(":")
            if not sep or not KEY_ID.match(kid):
                raise KeyConfigError(
                    "STATE_TOKEN_KEYS entries are '<key id>:<base64 32-byte key>' "
                    "(key id: letters, digits, '-' or '_', at most 32)"
                )
            try:
                key = base64.b64decode(b64 + "=" * (-len(b64) % 4), altchars=b"-_", validate=False)
            except (binascii.Error, ValueError) as exc:
                raise KeyConfigError(f"key {kid!r} is not base64") from exc
            if len(key) != 32:
                raise KeyConfigError(f"key {kid!r} must be 32 bytes (AES-256), not {len(key)}")
            if kid in keys:
                raise KeyConfigError(f"key id {kid!r} appears twice")
            keys[kid] = key
            order.append(kid)
        if not keys:
            raise KeyConfigError("STATE_TOKEN_KEYS names no key")
        return cls(keys, order[0])

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Keyring:
        """``STATE_TOKEN_KEYS`` or ``STATE_TOKEN_KEYS_FILE``; an ephemeral key without either."""
        spec = secretfiles.read("STATE_TOKEN_KEYS", environ)
        if spec:
            return cls.parse(spec)
        return cls.ephemeral_ring()

    @classmethod
    def ephemeral_ring(cls) -> Keyring:
        return cls({"ephemeral": secrets.token_bytes(32)}, "ephemeral", ephemeral=True)

    def derived(self, purpose: str) -> bytes | None:
        """A key for ``purpose`` alone (HMAC-SHA256 of the purpose under the active
        sealing key, never that key itself), or None for an ephemeral ring: a key each
        worker made for itself, so what it keyed would differ between workers."""
        if self.ephemeral:
            return None
        return hmac.new(self.keys[self.active], purpose.encode(), hashlib.sha256).digest()

    @staticmethod
    def new_key_spec(kid: str = "k1") -> str:
        """A fresh ``STATE_TOKEN_KEYS`` entry (for operators: ``python -m service.sealing``)."""
        return f"{kid}:{base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip('=')}"


def _aad(prefix: str, kid: str) -> bytes:
    return f"{prefix}.{kid}".encode()


def seal(ring: Keyring, plain: bytes, prefix: str = PREFIX) -> str:
    """Encrypt and authenticate ``plain`` (JSON bytes of a state) into a token.
    ``prefix`` names what the token holds (bound into the ciphertext, so a token of one
    kind never opens as another: a replay's ``resume`` token is ``rp1``)."""
    kid = ring.active
    nonce = secrets.token_bytes(NONCE_BYTES)
    body = AESGCM(ring.keys[kid]).encrypt(nonce, zlib.compress(plain, 6), _aad(prefix, kid))
    return f"{prefix}.{kid}.{base64.urlsafe_b64encode(nonce + body).decode().rstrip('=')}"


def unseal(ring: Keyring, token: object, prefix: str = PREFIX, name: str = "state_token") -> bytes:
    """The JSON bytes inside a token sealed with ``prefix``; ``SealError`` (its detail
    naming the field, ``name``) for anything but a genuine token."""
    if not isinstance(token, str):
        raise SealError(f"{name} must be a string")
    if len(token) > MAX_TOKEN_CHARS:
        raise SealError(f"{name} is too long")
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != prefix:
        raise SealError(
            f"{name} is not a token this service seals (expected '{prefix}.<key id>.<data>')"
        )
    _, kid, data = parts
    key = ring.keys.get(kid)
    if key is None:
        raise SealError(f"{name} was sealed with a key this service does not hold ({kid!r})")
    try:
        raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        raise SealError(f"{name} is not valid base64url") from None
    if len(raw) < NONCE_BYTES + 16:
        raise SealError(f"{name} is truncated")
    try:
        packed = AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _aad(prefix, kid))
    except InvalidTag:
        raise SealError(f"{name} failed authentication (tampered, truncated or foreign)") from None
    try:
        inflater = zlib.decompressobj()
        plain = inflater.decompress(packed, MAX_PLAIN_BYTES)
        if inflater.unconsumed_tail:
            raise SealError(f"{name} holds more than a state")
    except zlib.error:
        raise SealError(f"{name} content is corrupt") from None
    return plain


if __name__ == "__main__":  # pragma: no cover - operator helper
    print(Keyring.new_key_spec())
