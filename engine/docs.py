"""Where each variant's rules document lives: ``docs/rules/<id>.md`` in the repository,
beside ``engine/`` (the image copies both to ``/app``). The service serves them
(``service.rules_docs``); the rules tests read them."""

from __future__ import annotations

from pathlib import Path

#: The repository's (and the image's, /app/docs/rules) rules documents.
RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"


def rules_path(variant_id: str, directory: Path = RULES_DIR) -> Path:
    """The rules document of a variant in the repository."""
    return directory / f"{variant_id}.md"
