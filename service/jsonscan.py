"""A streaming pre-scan of a JSON body: how deep it nests, how many values and keys it
holds (and at most in one object), how long its strings and numbers are, read from the
raw bytes piece by piece, before any parser sees them.

``JsonScan(max_depth, max_values, bounds=Bounds(...))``; ``feed(piece)`` for each piece
as it is read (``TooDeep``, ``TooManyValues`` or ``TooLong``, all ``Refused``, as soon
as a bound is passed); ``depth`` is the deepest nesting seen. A string's length is its
bytes as written between its quotes (escapes included); a number's, its longest run of
digits (whole part, fraction or exponent). Brackets inside strings do not count (escapes handled, a string or an
escape may be cut between two pieces). Each piece is scanned with bytes methods and
regular expressions, at C speed: its strings go, then everything but brackets and
commas; the nesting is then measured (``_deepest``), and only when the piece could go
deeper than anything before it. For valid JSON the answers are exact (the scan never
refuses a valid body within both limits); for invalid JSON they are an estimate, and
the parser refuses the body anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate, chain
from operator import sub

#: A whole JSON string (escapes included), and the rest of one begun before: up to
#: its closing quote, or to the end of the piece (a last lone backslash left over).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
#: ``bytes.translate`` arguments: objects become lists; all but brackets and commas go.
_TO_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(set(range(256)) - set(b"[]{},:"))
_NOT_STRUCTURE_OR_QUOTE = bytes(set(range(256)) - set(b'[]{},:"'))
_RUNS = re.compile(rb"\[+|\]+")
#: What the per-object key count walks: containers, and the runs between them.
_OBJECT_EVENTS = re.compile(rb"[\[\]{}]|[^\[\]{}]+")
_DIGITS = b"0123456789"
#: ``bytes.translate`` tables: each digit as ``0``, anything else a space; each quote
#: kept, anything else ``x``. A run is then found with ``in`` (C's fast search), not a
#: regular expression's repeat, which tries each byte of a piece in turn.
_AS_DIGIT_RUNS = bytes(0x30 if b in _DIGITS else 0x20 for b in range(256))
_AS_QUOTE_GAPS = bytes(0x22 if b == 0x22 else 0x78 for b in range(256))


class Refused(ValueError):
    """The body passes one of the scan's bounds."""


class TooDeep(Refused):
    """The body nests containers deeper than the limit."""


class TooManyValues(Refused):
    """The body holds more values (or keys) than the limit."""


class TooLong(Refused):
    """A string or a number in the body is longer than the limit."""


@dataclass(frozen=True)
class Bounds:
    """What a body may hold besides its depth and values (None: unbounded): keys in all
    (``keys``) and in one object (``object_keys``), the bytes of one string as written
    (``string``), the digits of one run in a number (``digits``)."""

    keys: int | None = None
    object_keys: int | None = None
    string: int | None = None
    digits: int | None = None


UNBOUNDED = Bounds()


class JsonScan:
    """The pre-scan of one body (see the module). ``values`` counts containers and
    commas outside strings: for valid JSON the number of values less one, plus one per
    empty container; so a cap on it caps the values a parser can be made to build."""

    def __init__(
        self, max_depth: int, max_values: int | None = None, bounds: Bounds = UNBOUNDED
    ) -> None:
        self.max_depth = max_depth
        self.max_values = max_values
        self.bounds = bounds
        #: Nesting at the end of what was fed; the deepest seen.
        self.level = 0
        self.depth = 0
        self.values = 0
        self.keys = 0
        #: The keys of each object open at the end of what was fed (-1: an array).
        self._open: list[int] = []
        #: Inside a string at the end of what was fed; its next byte is escaped; the
        #: bytes of that string so far; the digits ending what was fed (outside strings).
        self._in_string = False
        self._escaped = False
        self._string_bytes = 0
        self._trailing_digits = 0
        #: The bytes are not JSON (a closing bracket too many): left to the parser.
        self._broken = False

    def feed(self, piece: bytes) -> None:
        """Scan the next ``piece`` of the body."""
        if self._broken or not piece:
            return
        started_outside = not self._in_string
        if self.bounds.digits is not None:
            self._check_digits(piece, started_outside, self.bounds.digits)
        outside = self._outside(piece)
        keyed = outside.translate(None, _NOT_STRUCTURE)
        structure = keyed.replace(b":", b"").translate(_TO_BRACKETS)
        commas = structure.count(b",")
        opens = structure.count(b"[")
        closes = len(structure) - commas - opens
        start = self.level
        self.level = start + opens - closes
        if self.level < 0:
            self._broken = True
            return
        if start + opens > self.depth:
            self._measure(start, structure.replace(b",", b""))
        self.values += opens + commas
        if self.max_values is not None and self.values > self.max_values:
            raise TooManyValues(f"holds more than {self.max_values} JSON values")
        self.keys += len(keyed) - len(structure)
        bounds = self.bounds
        if bounds.keys is not None and self.keys > bounds.keys:
            raise TooManyValues(f"holds more than {bounds.keys} keys")
        if bounds.object_keys is not None:
            self._count_object_keys(keyed, bounds.object_keys)

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
            self._string_long(self._string_bytes + end)
            if end == len(piece):  # the string goes on
                self._escaped = False
                self._string_bytes += end
                return b""
            if end == len(piece) - 1 and piece[end] == 0x5C:  # ends on an escape
                self._escaped = True
                self._string_bytes += len(piece)
                return b""
            self._in_string = False
            pos = end + 1  # after the closing quote
        rest = piece[pos:] if pos else piece
        limit = self.bounds.string
        strings = limit is not None and b'"' in rest
        if b"\\" in rest:
            if strings:  # an escaped quote would cut a gap: each string measured
                self._string_long(max(map(len, _STRING.findall(rest)), default=2) - 2)
            text = _STRING.sub(b"", rest)
            open_at = text.find(b'"')  # a string that does not end in this piece
            if open_at < 0:
                return text
            self._string_bytes = len(text) - open_at - 1  # all after it is that string's
            self._string_long(self._string_bytes)
            text = text[:open_at]
            trailing = len(rest) - len(rest.rstrip(b"\\"))
        else:
            if strings:
                if limit is not None and _gap_over(rest, limit):
                    self._string_long(max(map(len, rest.split(b'"')[1::2])))
                self._string_bytes = len(rest) - rest.rfind(b'"') - 1
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

    def _string_long(self, length: int) -> None:
        limit = self.bounds.string
        if limit is not None and length > limit:
            raise TooLong(f"holds a string longer than {limit} bytes")

    def _check_digits(self, piece: bytes, started_outside: bool, limit: int) -> None:
        """No run of digits (outside strings) longer than ``limit``, across pieces."""
        lead = len(piece) - len(piece.lstrip(_DIGITS)) if started_outside else 0
        carried = self._trailing_digits if started_outside else 0
        # A long run in the raw bytes may be a string's: then look outside the strings.
        if carried + lead > limit or (
            _digits_over(piece, limit) and _digits_over(self._peek_outside(piece), limit)
        ):
            raise TooLong(f"holds a number with more than {limit} digits in a row")
        trailing = len(piece) - len(piece.rstrip(_DIGITS))
        self._trailing_digits = carried + trailing if trailing == len(piece) else trailing

    def _peek_outside(self, piece: bytes) -> bytes:
        """``piece`` without its strings (each one a NUL), all else kept; the scan's
        state is not changed."""
        if self._in_string:
            end = _STRING_REST.match(piece, 1 if self._escaped else 0).end()  # type: ignore[union-attr]
            piece = piece[end + 1 :]
        # Whole strings go; what is left after a quote opens one that runs on.
        return _STRING.sub(b"\0", piece).split(b'"', 1)[0]

    def _count_object_keys(self, keyed: bytes, limit: int) -> None:
        """The keys of each object in ``keyed`` (this piece's structure, with colons),
        counted on the objects open across pieces, at most ``limit`` in one."""
        opened = self._open
        for event in _OBJECT_EVENTS.findall(keyed):
            first = event[0]
            if first == 0x7B:  # {
                opened.append(0)
            elif first == 0x5B:  # [
                opened.append(-1)
            elif first in (0x5D, 0x7D):  # ] }
                if opened:
                    opened.pop()
            elif opened and opened[-1] >= 0:
                opened[-1] += event.count(b":")
                if opened[-1] > limit:
                    raise TooManyValues(f"holds an object with more than {limit} keys")


def _digits_over(piece: bytes, limit: int) -> bool:
    """``piece`` holds a run of more than ``limit`` digits."""
    return b"0" * (limit + 1) in piece.translate(_AS_DIGIT_RUNS)


def _gap_over(piece: bytes, limit: int) -> bool:
    """``piece`` (with no backslash) holds more than ``limit`` bytes in a row between two
    quotes or its ends: without one no string in it is longer than ``limit``."""
    return len(piece) > limit and b"x" * (limit + 1) in piece.translate(_AS_QUOTE_GAPS)


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
