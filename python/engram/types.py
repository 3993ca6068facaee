"""What engram returns: facts, search hits with their explanations, and
the reports of batch operations. Plain frozen dataclasses, built from the
C API's handles and holding no reference to them."""
import ctypes
import datetime as _dt
import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from . import _lib
from .errors import InvalidArgumentError

#: A time as engram takes it: an aware datetime, or milliseconds since the
#: Unix epoch (UTC).
Time = Union[_dt.datetime, int]


def to_millis(value: Time, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            raise InvalidArgumentError(f"{what}: a naive datetime is ambiguous; give a timezone")
        return int(value.timestamp() * 1000)
    raise InvalidArgumentError(
        f"{what}: must be a datetime or milliseconds, not {type(value).__name__}")


def _time(millis: int) -> Optional[_dt.datetime]:
    if millis == 0:
        return None
    return _dt.datetime.fromtimestamp(millis / 1000, tz=_dt.timezone.utc)


@dataclass(frozen=True)
class Fact:
    """A stored fact (include/engram/fact.h)."""
    id: str
    scope: str
    content: str
    tags: Tuple[str, ...]
    kind: str
    source: str
    confidence: float
    metadata: Dict[str, Any]
    created_at: _dt.datetime
    updated_at: _dt.datetime
    last_accessed: _dt.datetime
    access_count: int
    #: The fact that replaced this one; None while it is current.
    superseded_by: Optional[str] = None
    #: When it stopped being valid; None while current.
    valid_until: Optional[_dt.datetime] = None
    #: When it expires; None: never.
    expires_at: Optional[_dt.datetime] = None

    @property
    def is_current(self) -> bool:
        return self.superseded_by is None

    @classmethod
    def _from_handle(cls, handle: int) -> "Fact":
        lib = _lib.lib()
        tags = tuple(_lib.decode(lib.engram_fact_tag(handle, i))
                     for i in range(lib.engram_fact_tag_count(handle)))
        superseded_by = _lib.decode(lib.engram_fact_superseded_by(handle))
        return cls(
            id=_lib.decode(lib.engram_fact_id(handle)),
            scope=_lib.decode(lib.engram_fact_scope(handle)),
            content=_lib.decode(lib.engram_fact_content(handle)),
            tags=tags,
            kind=_lib.decode(lib.engram_fact_kind(handle)),
            source=_lib.decode(lib.engram_fact_source(handle)),
            confidence=lib.engram_fact_confidence(handle),
            metadata=json.loads(_lib.decode(lib.engram_fact_metadata(handle)) or "{}"),
            created_at=_time(lib.engram_fact_created_at(handle)),
            updated_at=_time(lib.engram_fact_updated_at(handle)),
            last_accessed=_time(lib.engram_fact_last_accessed(handle)),
            access_count=lib.engram_fact_access_count(handle),
            superseded_by=superseded_by or None,
            valid_until=_time(lib.engram_fact_valid_until(handle)),
            expires_at=_time(lib.engram_fact_expires_at(handle)),
        )


@dataclass(frozen=True)
class Signal:
    """One signal of one hit's explanation."""
    raw: float
    normalized: float
    #: The effective blend weight.
    weight: float
    #: Among the candidates that have this signal, 1 = best.
    rank: int


@dataclass(frozen=True)
class Explanation:
    """Why a hit scored as it did (search with explain=True). A signal is
    None when it does not apply (no term matched, no vector)."""
    semantic: Optional[Signal]
    lexical: Optional[Signal]
    temporal: Optional[Signal]
    matched_terms: Tuple[str, ...]
    #: The id of the result this one ranks above as its newer version.
    newer_version_of: Optional[str] = None


@dataclass(frozen=True)
class Hit:
    fact: Fact
    #: In [0, 1] for the blended mode.
    score: float
    explanation: Optional[Explanation] = None


@dataclass(frozen=True)
class SearchResult:
    """The hits of one search, best first, with what the search has to say
    about them. Indexes and iterates as its hits."""
    hits: Tuple[Hit, ...]
    #: Nothing matched the query; hits is empty unless temporal_fallback.
    no_match: bool = False
    #: The hits are the scope's most recent facts, not matches.
    temporal_fallback: bool = False
    #: The query was embedded and vectors searched.
    semantic: bool = False
    candidates: int = 0
    language: str = ""
    query_terms: Tuple[str, ...] = ()
    #: HyDE's hypothesis; "" when there is none.
    hypothesis: str = ""
    #: Problems that did not stop the search (HyDE's fallbacks among them).
    warnings: Tuple[str, ...] = field(default_factory=tuple)

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __getitem__(self, index):
        return self.hits[index]

    def __bool__(self) -> bool:
        return bool(self.hits)

    @classmethod
    def _from_handle(cls, handle: int, explained: bool) -> "SearchResult":
        lib = _lib.lib()
        hits: List[Hit] = []
        for i in range(lib.engram_result_count(handle)):
            explanation = _explanation(handle, i) if explained else None
            hits.append(Hit(Fact._from_handle(lib.engram_result_fact(handle, i)),
                            lib.engram_result_score(handle, i), explanation))
        return cls(
            hits=tuple(hits),
            no_match=bool(lib.engram_result_no_match(handle)),
            temporal_fallback=bool(lib.engram_result_temporal_fallback(handle)),
            semantic=bool(lib.engram_result_semantic(handle)),
            candidates=lib.engram_result_candidates(handle),
            language=_lib.decode(lib.engram_result_language(handle)),
            query_terms=tuple(_lib.decode(lib.engram_result_query_term(handle, i))
                              for i in range(lib.engram_result_query_term_count(handle))),
            hypothesis=_lib.decode(lib.engram_result_hypothesis(handle)),
            warnings=tuple(_lib.decode(lib.engram_result_warning(handle, i))
                           for i in range(lib.engram_result_warning_count(handle))),
        )


def _explanation(handle: int, index: int) -> Explanation:
    lib = _lib.lib()
    signals = []
    for kind in range(3):  # semantic, lexical, temporal: engram_signal_kind
        out = _lib.Signal()
        _lib.call(lib.engram_result_signal, handle, index, kind, ctypes.byref(out))
        signals.append(Signal(out.raw, out.normalized, out.weight, out.rank)
                       if out.present else None)
    terms = tuple(_lib.decode(lib.engram_result_matched_term(handle, index, t))
                  for t in range(lib.engram_result_matched_term_count(handle, index)))
    newer = _lib.decode(lib.engram_result_newer_version_of(handle, index))
    return Explanation(signals[0], signals[1], signals[2], terms, newer or None)


@dataclass(frozen=True)
class BatchReport:
    """What add_many or import_file stored."""
    added: int
    merged: int
    #: Bad records left out (import_file with skip_bad=True).
    skipped: int = 0


@dataclass(frozen=True)
class BackfillReport:
    embedded: int
    remaining: int
