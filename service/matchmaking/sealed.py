"""A seat token kept for its ticket's holder until it is handed over, sealed so the
store holds nothing usable: AES-256-GCM (``cryptography``'s ``AESGCM``, as
``service.sealing`` seals states) under a key derived with HKDF-SHA256 from the ticket's
secret, which the service never keeps (only its SHA-256, to check who asks). The ticket
id is the HKDF salt and the associated data, so a blob opens only for its own ticket.
Seat tokens elsewhere are kept as hashes alone; this one must be handed over later, so
it is kept, but never readable without its holder's secret. Format (ASCII):

    mt1.<base64url(nonce[12] || ciphertext || tag[16])>

``unseal`` refuses anything else, a wrong secret, another ticket's blob or a byte
changed, with ``TicketTokenUnreadable`` (never a crash).
"""

from __future__ import annotations

import base64
import binascii
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .errors import TicketTokenUnreadable

PREFIX = "mt1"
NONCE_BYTES = 12
TAG_BYTES = 16
INFO = b"uno-rules quick-match seat token v1"


def _key(secret: str, ticket_id: str) -> AESGCM:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=ticket_id.encode(), info=INFO)
    return AESGCM(hkdf.derive(secret.encode()))


def seal(token: str, secret: str, ticket_id: str) -> str:
    """``token`` encrypted and authenticated for ``ticket_id``'s holder."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    body = _key(secret, ticket_id).encrypt(nonce, token.encode(), ticket_id.encode())
    return f"{PREFIX}.{base64.urlsafe_b64encode(nonce + body).decode().rstrip('=')}"


def unseal(sealed: str, secret: str, ticket_id: str) -> str:
    """The token inside ``sealed``; ``TicketTokenUnreadable`` unless ``sealed`` is a blob
    sealed by ``seal`` for ``ticket_id`` with ``secret``, unchanged."""
    prefix, dot, data = sealed.partition(".")
    if prefix != PREFIX or not dot:
        raise TicketTokenUnreadable(f"the kept seat token is not a sealed token ({PREFIX}.…)")
    try:
        raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        raise TicketTokenUnreadable("the kept seat token is not valid base64url") from None
    if len(raw) < NONCE_BYTES + TAG_BYTES:
        raise TicketTokenUnreadable("the kept seat token is truncated")
    try:
        plain = _key(secret, ticket_id).decrypt(
            raw[:NONCE_BYTES], raw[NONCE_BYTES:], ticket_id.encode()
        )
    except InvalidTag:
        raise TicketTokenUnreadable(
            "the kept seat token failed authentication (altered, another ticket's, or "
            "another secret)"
        ) from None
    try:
        return plain.decode()
    except UnicodeDecodeError:  # sealed by seal() from a str: cannot happen unforged
        raise TicketTokenUnreadable("the kept seat token is not text") from None
