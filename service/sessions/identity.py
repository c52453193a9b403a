"""Identity assertions: a seat's ``external_id`` comes only from the app's backend.

The webhooks name a seat's person by ``external_id`` (the app pushes to that person),
so a client may not choose it. The app's backend, which knows who its user is, signs a
short-lived JSON Web Token (HS256, PyJWT) with ``IDENTITY_ASSERTION_KEY``, a key it
shares with the service, and gives it to that user's client, which sends it as the
seat's ``identity`` (on create, in ``players``, or on join). Its claims:

| claim | value |
|---|---|
| ``sub`` | the person's ``external_id`` (1 to 256 characters) |
| ``aud`` | ``uno-rules-sessions`` (``AUDIENCE``) |
| ``iat``, ``exp`` | issued at, expires at (at most ``MAX_LIFETIME_SECONDS`` apart) |

A seat gets the ``sub`` as its ``external_id``. A request's ``external_id`` alone is 422
``identity_assertion_missing`` (one that differs from the assertion's ``sub``:
``identity_assertion_mismatch``); an assertion past its ``exp`` is
``identity_assertion_expired``, one signed with another key
``identity_assertion_bad_signature``, one for another audience
``identity_assertion_wrong_audience``, anything else wrong ``identity_assertion_invalid``;
an assertion while no key is set is ``identity_assertions_not_configured``.
"""

from __future__ import annotations

from typing import Any

import jwt

from . import problems
from .schemas import MAX_EXTERNAL_ID

#: The audience an assertion must name.
AUDIENCE = "uno-rules-sessions"
#: The longest an assertion may live (``exp`` - ``iat``, seconds).
MAX_LIFETIME_SECONDS = 600
#: Clock skew allowed between the app's backend and the service (seconds).
LEEWAY_SECONDS = 5


def external_id(key: str | None, seat: dict[str, Any], field: str) -> str | None:
    """The ``external_id`` a requested seat (``identity``, ``external_id``) may carry:
    the assertion's ``sub``, or None without one; ``field`` names the seat in errors."""
    assertion, claimed = seat.get("identity"), seat.get("external_id")
    if assertion is None:
        if claimed is not None:
            raise problems.identity_assertion_missing(field)
        return None
    if key is None:
        raise problems.identity_assertions_not_configured(field)
    try:
        claims = jwt.decode(
            assertion, key, algorithms=["HS256"], audience=AUDIENCE, leeway=LEEWAY_SECONDS,
            options={"require": ["sub", "aud", "iat", "exp"]},
        )  # fmt: skip
    except jwt.ExpiredSignatureError:
        raise problems.identity_assertion_expired(field) from None
    except jwt.InvalidAudienceError:
        raise problems.identity_assertion_wrong_audience(field, AUDIENCE) from None
    except jwt.InvalidSignatureError:
        raise problems.identity_assertion_bad_signature(field) from None
    except jwt.InvalidTokenError as e:
        raise problems.identity_assertion_invalid(field, str(e)) from None
    sub = claims["sub"]
    if not isinstance(sub, str) or not 1 <= len(sub) <= MAX_EXTERNAL_ID:
        raise problems.identity_assertion_invalid(
            field, f"sub must be a string of 1 to {MAX_EXTERNAL_ID} characters"
        )
    lifetime = claims["exp"] - claims["iat"]
    if lifetime > MAX_LIFETIME_SECONDS:
        raise problems.identity_assertion_invalid(
            field, f"it lives {lifetime:g} s: at most {MAX_LIFETIME_SECONDS} s (exp - iat)"
        )
    if claimed is not None and claimed != sub:
        raise problems.identity_assertion_mismatch(field)
    return sub
