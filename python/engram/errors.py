"""engram's exceptions: one per error code of the C API, all engram.Error."""
from typing import Dict, Type


class Error(Exception):
    """Every error engram raises. `code` is the C API's engram_code and
    `code_name` its name ("invalid_argument", ...)."""

    code = -1
    code_name = "unknown"

    def __init__(self, message: str, code: int = -1) -> None:
        super().__init__(message)
        if code >= 0:
            self.code = code
        self.message = message


class LibraryNotFoundError(Error):
    """libengram could not be loaded, or is not a version this package fits."""


class InvalidArgumentError(Error, ValueError):
    """Bad input from the caller: the message names what and where."""
    code, code_name = 1, "invalid_argument"


class NotFoundError(Error, LookupError):
    code, code_name = 2, "not_found"


class AlreadyExistsError(Error):
    code, code_name = 3, "already_exists"


class FailedPreconditionError(Error):
    """Not in a state to do this (e.g. updating a fact already replaced)."""
    code, code_name = 4, "failed_precondition"


class StorageError(Error, OSError):
    """The filesystem or the database failed (ENGRAM_IO_ERROR)."""
    code, code_name = 5, "io_error"


class CorruptionError(Error):
    code, code_name = 6, "corruption"


class UnavailableError(Error):
    """A remote service failed; the call may be retried."""
    code, code_name = 7, "unavailable"


class DeadlineExceededError(Error, TimeoutError):
    code, code_name = 8, "deadline_exceeded"


class NotSupportedError(Error):
    code, code_name = 9, "not_supported"


class CancelledError(Error):
    code, code_name = 10, "cancelled"


class InternalError(Error):
    """A bug in engram: an invariant did not hold."""
    code, code_name = 11, "internal"


_BY_CODE: Dict[int, Type[Error]] = {
    c.code: c for c in (InvalidArgumentError, NotFoundError, AlreadyExistsError,
                        FailedPreconditionError, StorageError, CorruptionError, UnavailableError,
                        DeadlineExceededError, NotSupportedError, CancelledError, InternalError)
}


def raise_for(code: int, message: str) -> None:
    """Raises the exception for a C API code."""
    raise _BY_CODE.get(code, Error)(message or f"engram: error code {code}", code)
