"""A streaming pre-scan of a JSON body: how deep it nests and how many values it holds,
read from the raw bytes piece by piece, before any parser sees them.

``JsonScan(max_depth, max_values)``; ``feed(piece)`` for each piece as it is read
(``TooDeep`` or ``TooManyValues`` as soon as one is passed); ``depth`` is the deepest
nesting seen. Brackets inside strings do not count (escapes handled, a string or an
escape may be cut between two pieces). Each piece is scanned with bytes methods and
regular expressions, at C speed: its strings go, then everything but brackets and
commas; the nesting is then measured (``_deepest``), and only when the piece could go
deeper than anything before it. For valid JSON the answers are exact (the scan never
refuses a valid body within both limits); for invalid JSON they are an estimate, and
the parser refuses the body anyway.
"""

from __future__ import annotations

import re
from itertools import accumulate, chain
from operator import sub

#: A whole JSON string (escapes included), and the rest of one begun before: up to
#: its closing quote, or to the end of the piece (a last lone backslash left over).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
#: ``bytes.translate`` arguments: objects become lists; all but brackets and commas go.
_TO_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(set(range(256)) - set(b"[]{},"))
_NOT_STRUCTURE_OR_QUOTE = bytes(set(range(256)) - set(b'[]{},"'))
_RUNS = re.compile(rb"\[+|\]+")


class TooDeep(ValueError):
    """The body nests containers deeper than the limit."""


class TooManyValues(ValueError):
    """The body holds more values than the limit."""


class JsonScan:
    """The pre-scan of one body (see the module). ``values`` counts containers and
    commas outside strings: for valid JSON the number of values less one, plus one per
    empty container; so a cap on it caps the values a parser can be made to build."""

    def __init__(self, max_depth: int, max_values: int | None = None) -> None:
        self.max_depth = max_depth
        self.max_values = max_values
        #: Nesting at the end of what was fed; the deepest seen.
        self.level = 0
        self.depth = 0
        self.values = 0
        #: Inside a string at the end of what was fed; its next byte is escaped.
        self._in_string = False
        self._escaped = False
        #: The bytes are not JSON (a closing bracket too many): left to the parser.
        self._broken = False

    def feed(self, piece: bytes) -> None:
        """Scan the next ``piece`` of the body."""
        if self._broken or not piece:
            return
        outside = self._outside(piece)
        structure = outside.translate(_TO_BRACKETS, _NOT_STRUCTURE)
        commas = structure.count(b",")
        opens = structure.count(b"[")
        closes = len(structure) - commas - opens
        self.values += opens + commas
        if self.max_values is not None and self.values > self.max_values:
            raise TooManyValues(f"holds more than {self.max_values} JSON values")
        start = self.level
        self.level = start + opens - closes
        if self.level < 0:
            self._broken = True
            return
        if start + opens > self.depth:
            self._measure(start, structure.replace(b",", b""))

    def _measure(self, start: int, brackets: bytes) -> None:
        """The deepest nesting in ``brackets`` (this piece's, begun ``start`` deep)."""
        depth = _deepest(b"[" * start + brackets + b"]" * self.level, self.max_depth)
        if depth is None:
            self._broken = True
        elif depth > self.max_depth:
            self.depth = depth
            raise TooDeep(f"nests deeper than {self.max_depth} levels")
        else:
            self.depth = max(self.depth, depth)

    def _outside(self, piece: bytes) -> bytes:
        """``piece`` without the strings (and string parts) in it (and maybe without
        more than the structure); the string state at its end kept for the next piece."""
        pos = 0
        if self._in_string:
            pos = 1 if self._escaped else 0
            end = _STRING_REST.match(piece, pos).end()  # type: ignore[union-attr]
            if end == len(piece):  # the string goes on
                self._escaped = False
                return b""
            if end == len(piece) - 1 and piece[end] == 0x5C:  # ends on an escape
                self._escaped = True
                return b""
            self._in_string = False
            pos = end + 1  # after the closing quote
        rest = piece[pos:] if pos else piece
        if b"\\" in rest:
            text = _STRING.sub(b"", rest)
            open_at = text.find(b'"')  # a string that does not end in this piece
            if open_at < 0:
                return text
            text = text[:open_at]
            trailing = len(rest) - len(rest.rstrip(b"\\"))
        else:
            # Without a backslash: once all but the structure and the quotes is gone, a
            # string holding no structure is a ``""`` pair. If no quote is left after
            # dropping them, no string held any (the first quote of one that did would be
            # left over, structure after it); one quote left last opens a string that
            # runs past the piece and holds no structure so far.
            kept = rest.translate(None, _NOT_STRUCTURE_OR_QUOTE)
            structure = kept.replace(b'""', b"")
            quotes = structure.count(b'"')
            if not quotes:
                return structure
            if quotes == 1 and structure[-1] == 0x22:  # a clean string runs on
                self._in_string, self._escaped = True, False
                return structure[:-1]
            # Else every other part between quotes is a string.
            parts = rest.split(b'"')
            text = b"".join(parts[::2])
            if len(parts) % 2:
                return text
            trailing = 0
        # A string begun here runs past the end: its backslashes decide the next byte.
        self._in_string = True
        self._escaped = trailing % 2 == 1
        return text


def _deepest(seq: bytes, limit: int) -> int | None:
    """How deep ``seq`` (brackets that balance, as a piece's do once opened and closed
    around) nests, exactly up to ``limit + 1``; None when it does not balance (not JSON).

    Each ``replace(b"[]", b"")`` pass drops the innermost pairs and so lowers the
    deepest point by one. While passes remove much they are the cheap way; once one
    removes little the brackets are long runs, and the heights at the run ends are
    summed instead (``_run_depth``).
    """
    passes = 0
    while seq and passes <= limit:
        shorter = seq.replace(b"[]", b"")
        removed = len(seq) - len(shorter)
        if not removed:
            return None
        passes += 1
        seq = shorter
        if seq and removed * 8 < len(seq):
            return passes + _run_depth(seq)
    return passes if not seq else limit + 1


def _run_depth(seq: bytes) -> int:
    """The deepest point of ``seq``, runs of ``[`` and ``]`` that begin with ``[``: the
    greatest sum of the opening runs so far less the closing runs before."""
    lengths = list(map(len, _RUNS.findall(seq)))
    opened = accumulate(lengths[0::2])
    closed = chain((0,), accumulate(lengths[1::2]))
    return max(map(sub, opened, closed), default=0)
