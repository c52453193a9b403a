"""The figures docs/notifications.md states about delivery and identity assertions are
the code's: the answer bound, the stuck slack, an assertion's lifetime, skew, audience
and key length."""

from __future__ import annotations

from pathlib import Path

from service.notifier.delivery import MAX_ANSWER_BYTES
from service.notifier.worker import STUCK_SLACK
from service.sessions import identity
from service.sessions.config import IDENTITY_KEY_MIN_BYTES, SessionConfig

PAGE_DIR = Path(__file__).resolve().parents[2] / "docs"
PAGE = (PAGE_DIR / "notifications.md").read_text()


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_page_states_the_codes_figures() -> None:
    page = flat(PAGE)
    assert f"At most {MAX_ANSWER_BYTES // 1024} KiB of an answer are read" in page
    assert f"past twice `WEBHOOK_TIMEOUT_SECONDS` and {STUCK_SLACK:g} s" in page
    assert (
        f"lives at most {identity.MAX_LIFETIME_SECONDS} s (`exp` - `iat`; "
        f"{identity.LEEWAY_SECONDS} s of clock skew allowed)" in page
    )
    assert f"name the audience `{identity.AUDIENCE}`" in page
    assert f'"aud": "{identity.AUDIENCE}"' in page  # the backend's signing code
    assert f"at least {IDENTITY_KEY_MIN_BYTES} bytes" in page
    cap = SessionConfig().webhook_outbox_max
    assert f"`WEBHOOK_OUTBOX_MAX` | {cap}:" in page
    assert f"holds at most `WEBHOOK_OUTBOX_MAX` ({cap}) webhooks" in page
    operations = flat((PAGE_DIR / "operations.md").read_text())
    assert f"holds at most `WEBHOOK_OUTBOX_MAX` ({cap}) webhooks" in operations
    security = (PAGE_DIR / "security.md").read_text()
    assert f"| `WEBHOOK_OUTBOX_MAX` ({cap}) | the oldest waiting dropped |" in security
