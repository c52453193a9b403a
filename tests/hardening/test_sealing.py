"""Sealed state tokens: round trip, rotation, and every kind of bad token."""

from __future__ import annotations

import base64

import pytest

from service.sealing import KeyConfigError, Keyring, SealError, seal, unseal

KEY_A = Keyring.new_key_spec("a")
KEY_B = Keyring.new_key_spec("b")
PLAIN = b'{"schema": 1, "hands": [[1, 2, 3], [4, 5, 6]]}'


def _flip_bit(token: str, index: int) -> str:
    """The token with one bit of its sealed bytes flipped (editing a base64 character
    could leave the bytes unchanged: the last character carries spare bits)."""
    head, _, data = token.rpartition(".")
    raw = bytearray(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
    raw[index] ^= 0x01
    return f"{head}.{base64.urlsafe_b64encode(bytes(raw)).decode().rstrip('=')}"


def test_round_trip() -> None:
    ring = Keyring.parse(KEY_A)
    token = seal(ring, PLAIN)
    assert token.startswith("st1.a.")
    assert unseal(ring, token) == PLAIN


def test_token_hides_the_state() -> None:
    ring = Keyring.parse(KEY_A)
    token = seal(ring, PLAIN)
    raw = base64.urlsafe_b64decode(token.split(".")[2] + "==")
    assert b"hands" not in raw and b"schema" not in raw


def test_two_seals_differ_nonce_is_fresh() -> None:
    ring = Keyring.parse(KEY_A)
    assert seal(ring, PLAIN) != seal(ring, PLAIN)


def test_rotation_old_key_still_opens_new_key_seals() -> None:
    old = Keyring.parse(KEY_A)
    token = seal(old, PLAIN)
    rotated = Keyring.parse(f"{KEY_B},{KEY_A}")
    assert unseal(rotated, token) == PLAIN
    assert seal(rotated, PLAIN).startswith("st1.b.")


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: _flip_bit(t, -1),  # tampered tag
        lambda t: _flip_bit(t, 20),  # tampered ciphertext
        lambda t: t[: len(t) // 2],  # truncated
        lambda t: t.replace("st1.a.", "st1.b."),  # moved to another key id
        lambda t: t.replace("st1.", "st2."),  # unknown format
        lambda t: t + ".x",
        lambda t: "st1.a.%%%",
        lambda t: "st1.a." + "A" * 10,
        lambda t: "",
        lambda t: "x" * 70000,
    ],
)
def test_bad_tokens_are_rejected(mangle) -> None:  # type: ignore[no-untyped-def]
    ring = Keyring.parse(f"{KEY_A},{KEY_B}")
    with pytest.raises(SealError) as err:
        unseal(ring, mangle(seal(ring, PLAIN)))
    assert err.value.code == "invalid_state_token"


def test_foreign_key_token_is_rejected() -> None:
    mine = Keyring.parse(KEY_A)
    theirs = Keyring.parse(Keyring.new_key_spec("a"))  # same id, other key
    with pytest.raises(SealError):
        unseal(mine, seal(theirs, PLAIN))


def test_non_string_token_is_rejected() -> None:
    with pytest.raises(SealError):
        unseal(Keyring.parse(KEY_A), 12)


@pytest.mark.parametrize(
    "spec",
    ["", "nokey", "a:short", "bad id:" + "A" * 43, f"{KEY_A},{KEY_A}"],
    ids=["empty", "no-key", "short-key", "bad-id", "id-twice"],  # the same ids in every process
)
def test_bad_key_config_is_refused(spec: str) -> None:
    with pytest.raises(KeyConfigError):
        Keyring.parse(spec)


def test_no_keys_configured_gives_an_ephemeral_ring() -> None:
    ring = Keyring.from_env({})
    assert ring.ephemeral and unseal(ring, seal(ring, PLAIN)) == PLAIN
