"""engram: long-term memory for LLM agents, from Python.

    import engram
    with engram.Memory("notes.db") as m:
        m.add("Maya is allergic to peanuts", tags=["family"])
        hits = m.search("what can't Maya eat?", k=5, tags=["family"])
        hits[0].score, hits[0].fact.content, hits[0].fact.tags

Bindings of libengram's C API through ctypes; every error is an
engram.Error. See help(engram.Memory).
"""
from .errors import (AlreadyExistsError, CancelledError, CorruptionError, DeadlineExceededError,
                     Error, FailedPreconditionError, InternalError, InvalidArgumentError,
                     LibraryNotFoundError, NotFoundError, NotSupportedError, StorageError,
                     UnavailableError)
from .memory import Memory
from .types import (BackfillReport, BatchReport, Explanation, Fact, Hit, SearchResult, Signal,
                    Time)

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the libengram that is loaded."""
    from . import _lib
    return _lib.lib().engram_version().decode()


__all__ = [
    "AlreadyExistsError", "BackfillReport", "BatchReport", "CancelledError", "CorruptionError",
    "DeadlineExceededError", "Error", "Explanation", "FailedPreconditionError", "Fact", "Hit",
    "InternalError", "InvalidArgumentError", "LibraryNotFoundError", "Memory", "NotFoundError",
    "NotSupportedError", "SearchResult", "Signal", "StorageError", "Time", "UnavailableError",
    "library_version",
]
