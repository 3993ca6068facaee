"""Loading libengram and declaring the C API (include/engram/c.h) to ctypes.

Internal: the rest of the package calls `lib()` and the helpers here.
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from typing import Callable, List, Optional

from .errors import InvalidArgumentError, LibraryNotFoundError, raise_for

#: The C API this package is written against: libengram 0.1.x.
SONAME = "libengram.so.0.1"
API_MAJOR, API_MINOR = 0, 1

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None

P = ctypes.c_void_p
S = ctypes.c_char_p
SIZE = ctypes.c_size_t
I64 = ctypes.c_int64
INT = ctypes.c_int
DOUBLE = ctypes.c_double
ERR = ctypes.POINTER(ctypes.c_void_p)  # char** errmsg, freed with engram_free


class Signal(ctypes.Structure):
    _fields_ = [("present", INT), ("raw", DOUBLE), ("normalized", DOUBLE), ("weight", DOUBLE),
                ("rank", SIZE)]


# name: (restype, argtypes). Calls returning engram_code have restype INT.
_PROTOTYPES = {
    "engram_code_name": (S, [INT]),
    "engram_free": (None, [P]),
    "engram_version": (S, []),
    "engram_version_number": (INT, []),
    "engram_options_create": (P, []),
    "engram_options_destroy": (None, [P]),
    "engram_options_set": (INT, [P, S, S, ERR]),
    "engram_options_get": (INT, [P, S, ctypes.POINTER(P), ERR]),
    "engram_options_read_config": (None, [P, INT]),
    "engram_options_create_if_missing": (None, [P, INT]),
    "engram_open": (INT, [P, S, ctypes.POINTER(P), ERR]),
    "engram_close": (None, [P]),
    "engram_warning_count": (SIZE, [P]),
    "engram_warning": (S, [P, SIZE]),
    "engram_config_json": (INT, [P, ctypes.POINTER(P), ERR]),
    "engram_fact_id": (S, [P]),
    "engram_fact_scope": (S, [P]),
    "engram_fact_content": (S, [P]),
    "engram_fact_kind": (S, [P]),
    "engram_fact_source": (S, [P]),
    "engram_fact_metadata": (S, [P]),
    "engram_fact_tag_count": (SIZE, [P]),
    "engram_fact_tag": (S, [P, SIZE]),
    "engram_fact_confidence": (DOUBLE, [P]),
    "engram_fact_created_at": (I64, [P]),
    "engram_fact_updated_at": (I64, [P]),
    "engram_fact_last_accessed": (I64, [P]),
    "engram_fact_access_count": (I64, [P]),
    "engram_fact_superseded_by": (S, [P]),
    "engram_fact_valid_until": (I64, [P]),
    "engram_fact_expires_at": (I64, [P]),
    "engram_fact_destroy": (None, [P]),
    "engram_facts_count": (SIZE, [P]),
    "engram_facts_at": (P, [P, SIZE]),
    "engram_facts_destroy": (None, [P]),
    "engram_new_fact_create": (P, [S]),
    "engram_new_fact_destroy": (None, [P]),
    "engram_new_fact_set_scope": (None, [P, S]),
    "engram_new_fact_add_tag": (None, [P, S]),
    "engram_new_fact_set_kind": (None, [P, S]),
    "engram_new_fact_set_source": (None, [P, S]),
    "engram_new_fact_set_confidence": (None, [P, DOUBLE]),
    "engram_new_fact_set_metadata": (None, [P, S]),
    "engram_new_fact_set_expires_at": (None, [P, I64]),
    "engram_add": (INT, [P, P, ctypes.POINTER(P), ctypes.POINTER(INT), ERR]),
    "engram_add_batch": (INT, [P, ctypes.POINTER(P), SIZE, ctypes.POINTER(SIZE),
                               ctypes.POINTER(SIZE), ERR]),
    "engram_update": (INT, [P, S, S, P, ctypes.POINTER(P), ERR]),
    "engram_get": (INT, [P, S, S, ctypes.POINTER(P), ERR]),
    "engram_history": (INT, [P, S, S, ctypes.POINTER(P), ERR]),
    "engram_filter_create": (P, []),
    "engram_filter_destroy": (None, [P]),
    "engram_filter_add_any_tag": (None, [P, S]),
    "engram_filter_add_all_tag": (None, [P, S]),
    "engram_filter_set_kind": (None, [P, S]),
    "engram_filter_add_metadata": (None, [P, S, S]),
    "engram_filter_set_since": (None, [P, I64]),
    "engram_filter_set_until": (None, [P, I64]),
    "engram_filter_set_as_of": (None, [P, I64]),
    "engram_list_options_create": (P, []),
    "engram_list_options_destroy": (None, [P]),
    "engram_list_options_add_scope": (None, [P, S]),
    "engram_list_options_set_limit": (None, [P, SIZE]),
    "engram_list_options_set_offset": (None, [P, SIZE]),
    "engram_list_options_set_include_superseded": (None, [P, INT]),
    "engram_list_options_set_filter": (None, [P, P]),
    "engram_list": (INT, [P, P, ctypes.POINTER(P), ERR]),
    "engram_forget": (INT, [P, S, ctypes.POINTER(S), SIZE, INT, ctypes.POINTER(I64), ERR]),
    "engram_forget_tag": (INT, [P, S, S, INT, ctypes.POINTER(I64), ERR]),
    "engram_forget_scope": (INT, [P, S, ctypes.POINTER(I64), ERR]),
    "engram_search_options_create": (P, []),
    "engram_search_options_destroy": (None, [P]),
    "engram_search_options_set_k": (None, [P, SIZE]),
    "engram_search_options_add_scope": (None, [P, S]),
    "engram_search_options_set_mode": (INT, [P, S, ERR]),
    "engram_search_options_set_weights": (None, [P, DOUBLE, DOUBLE, DOUBLE]),
    "engram_search_options_set_explain": (None, [P, INT]),
    "engram_search_options_set_record_access": (None, [P, INT]),
    "engram_search_options_set_hyde": (None, [P, INT]),
    "engram_search_options_set_include_superseded": (None, [P, INT]),
    "engram_search_options_set_filter": (None, [P, P]),
    "engram_search": (INT, [P, S, P, ctypes.POINTER(P), ERR]),
    "engram_search_result_destroy": (None, [P]),
    "engram_result_count": (SIZE, [P]),
    "engram_result_fact": (P, [P, SIZE]),
    "engram_result_score": (DOUBLE, [P, SIZE]),
    "engram_result_signal": (INT, [P, SIZE, INT, ctypes.POINTER(Signal), ERR]),
    "engram_result_matched_term_count": (SIZE, [P, SIZE]),
    "engram_result_matched_term": (S, [P, SIZE, SIZE]),
    "engram_result_newer_version_of": (S, [P, SIZE]),
    "engram_result_no_match": (INT, [P]),
    "engram_result_temporal_fallback": (INT, [P]),
    "engram_result_candidates": (SIZE, [P]),
    "engram_result_semantic": (INT, [P]),
    "engram_result_language": (S, [P]),
    "engram_result_query_term_count": (SIZE, [P]),
    "engram_result_query_term": (S, [P, SIZE]),
    "engram_result_hypothesis": (S, [P]),
    "engram_result_warning_count": (SIZE, [P]),
    "engram_result_warning": (S, [P, SIZE]),
    "engram_export": (INT, [P, ctypes.POINTER(S), SIZE, S, ctypes.POINTER(SIZE), ERR]),
    "engram_import": (INT, [P, S, INT, ctypes.POINTER(SIZE), ctypes.POINTER(SIZE),
                            ctypes.POINTER(SIZE), ERR]),
    "engram_backfill": (INT, [P, SIZE, ctypes.POINTER(SIZE), ctypes.POINTER(SIZE), ERR]),
}


def _candidates() -> List[str]:
    """Where libengram is looked for, in order (see README.md)."""
    found = []
    explicit = os.environ.get("ENGRAM_LIBRARY")
    if explicit:
        return [explicit]
    found.append(SONAME)  # the dynamic loader: ld.so.cache, LD_LIBRARY_PATH
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "engram"],
                                    capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            libdir = ""
        if libdir:
            found.append(os.path.join(libdir, SONAME))
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        for libdir in ("lib", os.path.join("lib", multiarch) if multiarch else None, "lib64"):
            if libdir:
                found.append(os.path.join(prefix, libdir, SONAME))
    by_name = ctypes.util.find_library("engram")
    if by_name:
        found.append(by_name)
    return found


def _load() -> ctypes.CDLL:
    tried = []
    for candidate in _candidates():
        try:
            library = ctypes.CDLL(candidate)
        except OSError as e:
            tried.append(f"{candidate} ({e})")
            continue
        _declare(library)
        _check_version(library, candidate)
        return library
    raise LibraryNotFoundError(
        "engram: cannot load libengram; tried " + "; ".join(tried) +
        ". Install it (cmake --install, or the .deb) or set ENGRAM_LIBRARY to its path")


def _declare(library: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _PROTOTYPES.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes


def _check_version(library: ctypes.CDLL, where: str) -> None:
    number = library.engram_version_number()
    major, minor = number // 10000, (number // 100) % 100  # ENGRAM_VERSION_NUMBER
    if (major, minor) != (API_MAJOR, API_MINOR):
        raise LibraryNotFoundError(
            f"engram: {where} is libengram {library.engram_version().decode()}; this package "
            f"needs {API_MAJOR}.{API_MINOR}.x")


def lib() -> ctypes.CDLL:
    """The loaded library, loaded on first use."""
    global _lib
    with _lock:
        if _lib is None:
            _lib = _load()
        return _lib


def encode(text: Optional[str], what: str) -> Optional[bytes]:
    """`text` as UTF-8 for the C API; a lone surrogate is refused by name."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise InvalidArgumentError(f"{what}: must be a str, not {type(text).__name__}")
    if "\0" in text:
        raise InvalidArgumentError(f"{what}: contains a NUL character")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgumentError(
            f"{what}: not valid UTF-8 ({e.reason} at character {e.start})") from None


def decode(raw: Optional[bytes]) -> str:
    return "" if raw is None else raw.decode("utf-8", errors="replace")


def call(function: Callable[..., int], *args) -> None:
    """Calls an API function taking `char** errmsg` last; raises on failure."""
    errmsg = ctypes.c_void_p()
    code = function(*args, ctypes.byref(errmsg))
    if code == 0:
        return
    message = ""
    if errmsg.value:
        message = decode(ctypes.string_at(errmsg.value))
        lib().engram_free(errmsg)
    raise_for(code, message)


def take_string(pointer: ctypes.c_void_p) -> str:
    """A string the library allocated, copied and freed."""
    if not pointer.value:
        return ""
    try:
        return decode(ctypes.string_at(pointer.value))
    finally:
        lib().engram_free(pointer)
