"""Memory: one engram store, opened through the C API."""
import contextlib
import ctypes
import json
import os
import threading
from typing import (Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple,
                    Union)

from . import _lib
from .errors import FailedPreconditionError, InvalidArgumentError
from .types import BackfillReport, BatchReport, Fact, SearchResult, Time, to_millis

PathLike = Union[str, "os.PathLike[str]"]

#: What becomes of the older versions of a current fact that is forgotten.
_HISTORY = {"refuse": 0, "restore": 1, "delete": 2}
_MODES = ("blended", "lexical", "semantic", "rrf", "temporal")


def _text(value: Any) -> str:
    """A setting's value as the C API takes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Handle(contextlib.AbstractContextManager):
    """A C handle released on exit: `create()` then `destroy(handle)`."""

    def __init__(self, create, destroy):
        self.value = create()
        if not self.value:
            raise MemoryError("engram: out of memory")
        self._destroy = destroy

    def __exit__(self, *exc):
        self._destroy(self.value)
        return False


class Memory:
    """A store of facts in one SQLite file.

    `path` is the database (created when missing unless create=False; None:
    the "db" setting, else $ENGRAM_HOME/memory.db). `scope` is the scope
    every call uses unless given its own. `settings` are configuration keys
    of docs/CONFIG.md ({"bm25.k1": 1.2, "embed.provider": "hash"}); each is
    checked here. read_config=True also reads the configuration file and the
    ENGRAM_* variables, as the CLI does.

    A Memory may be used from many threads at once; close() (or leaving the
    `with` block) waits for calls in flight, after which every call raises
    engram.FailedPreconditionError.
    """

    def __init__(self, path: Optional[PathLike] = None, *, scope: str = "default",
                 settings: Optional[Mapping[str, Any]] = None, read_config: bool = False,
                 create: bool = True):
        lib = _lib.lib()
        self.scope = scope
        self._calls = 0
        self._closed = False
        self._idle = threading.Condition()
        with _Handle(lib.engram_options_create, lib.engram_options_destroy) as options:
            for key, value in (settings or {}).items():
                _lib.call(lib.engram_options_set, options.value, _lib.encode(key, "setting"),
                          _lib.encode(_text(value), f"setting {key}"))
            lib.engram_options_read_config(options.value, int(read_config))
            lib.engram_options_create_if_missing(options.value, int(create))
            db = ctypes.c_void_p()
            encoded = None if path is None else _lib.encode(os.fspath(path), "path")
            _lib.call(lib.engram_open, options.value, encoded, ctypes.byref(db))
        self._db = db
        #: What opening had to say that did not stop it (keyword-only, ...).
        self.warnings: Tuple[str, ...] = tuple(
            _lib.decode(lib.engram_warning(db, i)) for i in range(lib.engram_warning_count(db)))

    # ---- Lifetime ---------------------------------------------------------

    def close(self) -> None:
        """Waits for calls in flight, then closes the store. Idempotent."""
        with self._idle:
            if self._closed:
                return
            self._closed = True
            while self._calls > 0:
                self._idle.wait()
        _lib.lib().engram_close(self._db)
        self._db = None

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if getattr(self, "_db", None) is not None and not getattr(self, "_closed", True):
            self.close()

    @contextlib.contextmanager
    def _open_db(self) -> Iterator[ctypes.c_void_p]:
        with self._idle:
            if self._closed:
                raise FailedPreconditionError("engram: the Memory is closed")
            self._calls += 1
        try:
            yield self._db
        finally:
            with self._idle:
                self._calls -= 1
                if self._calls == 0:
                    self._idle.notify_all()

    def _scope(self, scope: Optional[str]) -> bytes:
        return _lib.encode(self.scope if scope is None else scope, "scope")

    def _call(self, function, *args) -> None:
        """Calls C API `function` on this store: the store's handle, `args`,
        then errmsg; raises the error's exception on failure."""
        with self._open_db() as db:
            _lib.call(function, db, *args)

    def _take(self, function, *args) -> ctypes.c_void_p:
        """`_call` with the out parameter of the handle the call hands over
        last; returns that handle, the caller's to release."""
        out = ctypes.c_void_p()
        self._call(function, *args, ctypes.byref(out))
        return out

    # ---- Adding and changing facts ------------------------------------------

    def add(self, content: str, *, tags: Iterable[str] = (), kind: Optional[str] = None,
            source: Optional[str] = None, confidence: Optional[float] = None,
            metadata: Optional[Mapping[str, Any]] = None, expires_at: Optional[Time] = None,
            scope: Optional[str] = None) -> Fact:
        """Stores a fact, or merges it into the fact of its scope with the same
        content (tags united) or a near-duplicate; returns the stored fact."""
        lib = _lib.lib()
        with self._new_fact(content, tags, kind, source, confidence, metadata, expires_at,
                            scope) as fact:
            out = ctypes.c_void_p()
            self._call(lib.engram_add, fact.value, ctypes.byref(out), None)
            return _take_fact(out)

    def add_many(self, facts: Iterable[Union[str, Mapping[str, Any]]], *,
                 scope: Optional[str] = None) -> BatchReport:
        """Stores every fact in one transaction, all or nothing. Each is a
        string or a mapping of add()'s keyword arguments with "content"; the
        first bad one is named by its index."""
        lib = _lib.lib()
        with contextlib.ExitStack() as stack:
            handles = []
            for i, item in enumerate(facts):
                spec: Dict[str, Any] = {"content": item} if isinstance(item, str) else dict(item)
                if "content" not in spec:
                    raise InvalidArgumentError(f"add_many: fact {i} has no content")
                spec.setdefault("scope", scope)
                try:
                    handles.append(stack.enter_context(self._new_fact(**spec)).value)
                except (TypeError, InvalidArgumentError) as e:
                    raise InvalidArgumentError(f"add_many: fact {i}: {e}") from None
            array = (ctypes.c_void_p * max(len(handles), 1))(*handles)
            added, merged = ctypes.c_size_t(), ctypes.c_size_t()
            self._call(lib.engram_add_batch, array, len(handles), ctypes.byref(added),
                       ctypes.byref(merged))
            return BatchReport(added.value, merged.value)

    def update(self, id: str, content: str, *, tags: Iterable[str] = (),
               kind: Optional[str] = None, source: Optional[str] = None,
               confidence: Optional[float] = None, metadata: Optional[Mapping[str, Any]] = None,
               expires_at: Optional[Time] = None, scope: Optional[str] = None) -> Fact:
        """Stores `content` as the new version of fact `id` (or a unique prefix
        of 4+ characters); the old one is kept, superseded. Returns the new
        version. NotFoundError for an unknown id, FailedPreconditionError for
        a fact already replaced."""
        lib = _lib.lib()
        with self._new_fact(content, tags, kind, source, confidence, metadata, expires_at,
                            scope) as fact:
            return _take_fact(self._take(lib.engram_update, self._scope(scope),
                                         _lib.encode(id, "id"), fact.value))

    def get(self, id: str, *, scope: Optional[str] = None) -> Fact:
        """One fact by id or unique prefix; NotFoundError when there is none."""
        return _take_fact(self._take(_lib.lib().engram_get, self._scope(scope),
                                     _lib.encode(id, "id")))

    def history(self, id: str, *, scope: Optional[str] = None) -> List[Fact]:
        """Every version of fact `id`, oldest first."""
        return _take_facts(self._take(_lib.lib().engram_history, self._scope(scope),
                                      _lib.encode(id, "id")))

    # ---- Finding facts -----------------------------------------------------

    def search(self, query: str, *, k: int = 10, scopes: Optional[Sequence[str]] = None,
               mode: Optional[str] = None,
               weights: Optional[Tuple[float, float, float]] = None, explain: bool = False,
               record_access: bool = True, hyde: bool = True, include_superseded: bool = False,
               tags: Optional[Iterable[str]] = None, all_tags: Optional[Iterable[str]] = None,
               kind: Optional[str] = None, metadata: Optional[Mapping[str, Any]] = None,
               since: Optional[Time] = None, until: Optional[Time] = None,
               as_of: Optional[Time] = None) -> SearchResult:
        """The facts that answer `query`, best first.

        Filters, applied before ranking: `tags` (any of them), `all_tags`,
        `kind`, `metadata` (each key equal, as text), `since`/`until`
        (created or updated in [since, until)) and `as_of` (the facts current
        at that time). `weights` is (semantic, lexical, temporal) for this
        search; `mode` one of blended, lexical, semantic, rrf, temporal.
        """
        lib = _lib.lib()
        _check_count(k, "k")
        with _Handle(lib.engram_search_options_create,
                     lib.engram_search_options_destroy) as options:
            o = options.value
            lib.engram_search_options_set_k(o, k)
            for s in scopes if scopes is not None else [self.scope]:
                lib.engram_search_options_add_scope(o, _lib.encode(s, "scope"))
            if mode is not None:
                _lib.call(lib.engram_search_options_set_mode, o, _lib.encode(mode, "mode"))
            if weights is not None:
                if len(weights) != 3:
                    raise InvalidArgumentError(
                        "search: weights must be (semantic, lexical, temporal)")
                lib.engram_search_options_set_weights(o, *(float(w) for w in weights))
            lib.engram_search_options_set_explain(o, int(explain))
            lib.engram_search_options_set_record_access(o, int(record_access))
            lib.engram_search_options_set_hyde(o, int(hyde))
            lib.engram_search_options_set_include_superseded(o, int(include_superseded))
            with _filter(tags, all_tags, kind, metadata, since, until, as_of) as f:
                if f is not None:
                    lib.engram_search_options_set_filter(o, f)
            out = self._take(lib.engram_search, _lib.encode(query, "query"), o)
            try:
                return SearchResult._from_handle(out, explain)
            finally:
                lib.engram_search_result_destroy(out)

    def list(self, *, scopes: Optional[Sequence[str]] = None, limit: int = 50, offset: int = 0,
             include_superseded: bool = False, tags: Optional[Iterable[str]] = None,
             all_tags: Optional[Iterable[str]] = None, kind: Optional[str] = None,
             metadata: Optional[Mapping[str, Any]] = None, since: Optional[Time] = None,
             until: Optional[Time] = None, as_of: Optional[Time] = None) -> List[Fact]:
        """The current facts of the scopes, newest first (limit 0: all);
        filters as for search()."""
        lib = _lib.lib()
        _check_count(limit, "limit", minimum=0)
        _check_count(offset, "offset", minimum=0)
        with _Handle(lib.engram_list_options_create, lib.engram_list_options_destroy) as options:
            o = options.value
            for s in scopes if scopes is not None else [self.scope]:
                lib.engram_list_options_add_scope(o, _lib.encode(s, "scope"))
            lib.engram_list_options_set_limit(o, limit)
            lib.engram_list_options_set_offset(o, offset)
            lib.engram_list_options_set_include_superseded(o, int(include_superseded))
            with _filter(tags, all_tags, kind, metadata, since, until, as_of) as f:
                if f is not None:
                    lib.engram_list_options_set_filter(o, f)
            return _take_facts(self._take(lib.engram_list, o))

    # ---- Forgetting ----------------------------------------------------------

    def forget(self, *ids: str, scope: Optional[str] = None, history: str = "refuse") -> int:
        """Removes facts by id or prefix, all or nothing; returns how many went.
        A current fact with older versions needs history="restore" (the newest
        older version becomes current) or "delete" (they go too)."""
        lib = _lib.lib()
        if not ids:
            raise InvalidArgumentError("forget: no id given")
        array = (ctypes.c_char_p * len(ids))(*(_lib.encode(i, "id") for i in ids))
        count = ctypes.c_int64()
        self._call(lib.engram_forget, self._scope(scope), array, len(ids), _history(history),
                   ctypes.byref(count))
        return count.value

    def forget_tag(self, tag: str, *, scope: Optional[str] = None,
                   history: str = "refuse") -> int:
        """Removes every fact of the scope with tag `tag`."""
        lib = _lib.lib()
        count = ctypes.c_int64()
        self._call(lib.engram_forget_tag, self._scope(scope), _lib.encode(tag, "tag"),
                   _history(history), ctypes.byref(count))
        return count.value

    def forget_scope(self, scope: str) -> int:
        """Removes every fact of `scope`, every version."""
        lib = _lib.lib()
        count = ctypes.c_int64()
        self._call(lib.engram_forget_scope, _lib.encode(scope, "scope"), ctypes.byref(count))
        return count.value

    # ---- Files, backfill, config -------------------------------------------

    def export(self, path: PathLike, *, scopes: Sequence[str] = ()) -> int:
        """Writes every fact of `scopes` (all when empty), every version, as
        JSONL (created 0600); returns the count."""
        lib = _lib.lib()
        array = (ctypes.c_char_p * max(len(scopes), 1))(*(_lib.encode(s, "scope")
                                                          for s in scopes))
        count = ctypes.c_size_t()
        self._call(lib.engram_export, array, len(scopes), _lib.encode(os.fspath(path), "path"),
                   ctypes.byref(count))
        return count.value

    def import_file(self, path: PathLike, *, skip_bad: bool = False) -> BatchReport:
        """Stores every record of a JSONL export or a CSV file with a header,
        in one transaction. A bad record fails it all (named as PATH:LINE)
        unless skip_bad, which stores the good ones and counts the others."""
        lib = _lib.lib()
        added, merged, skipped = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        self._call(lib.engram_import, _lib.encode(os.fspath(path), "path"), int(skip_bad),
                   ctypes.byref(added), ctypes.byref(merged), ctypes.byref(skipped))
        return BatchReport(added.value, merged.value, skipped.value)

    def backfill(self, limit: int = 0) -> BackfillReport:
        """Embeds facts that lack a vector (at most `limit`; 0: all)."""
        lib = _lib.lib()
        _check_count(limit, "limit", minimum=0)
        embedded, remaining = ctypes.c_size_t(), ctypes.c_size_t()
        self._call(lib.engram_backfill, limit, ctypes.byref(embedded), ctypes.byref(remaining))
        return BackfillReport(embedded.value, remaining.value)

    def config(self) -> Dict[str, Any]:
        """{"settings": every effective setting ({key: {"value", "source",
        "origin"}}, as `engram config --json` prints them), "store": the
        store's counts (as GET /v1/config shows them)}."""
        return json.loads(_lib.take_string(self._take(_lib.lib().engram_config_json)))

    # ---- Helpers -------------------------------------------------------------

    @contextlib.contextmanager
    def _new_fact(self, content: str, tags: Iterable[str] = (), kind: Optional[str] = None,
                  source: Optional[str] = None, confidence: Optional[float] = None,
                  metadata: Optional[Mapping[str, Any]] = None,
                  expires_at: Optional[Time] = None, scope: Optional[str] = None):
        lib = _lib.lib()
        if isinstance(tags, str):
            raise InvalidArgumentError("tags: must be a list of strings, not one string")
        with _Handle(lambda: lib.engram_new_fact_create(_lib.encode(content, "content")),
                     lib.engram_new_fact_destroy) as fact:
            f = fact.value
            lib.engram_new_fact_set_scope(f, self._scope(scope))
            for tag in tags:
                lib.engram_new_fact_add_tag(f, _lib.encode(tag, "tag"))
            if kind is not None:
                lib.engram_new_fact_set_kind(f, _lib.encode(kind, "kind"))
            if source is not None:
                lib.engram_new_fact_set_source(f, _lib.encode(source, "source"))
            if confidence is not None:
                lib.engram_new_fact_set_confidence(f, float(confidence))
            if metadata is not None:
                try:
                    text = json.dumps(dict(metadata), ensure_ascii=False, allow_nan=False)
                except (TypeError, ValueError) as e:
                    raise InvalidArgumentError(f"metadata: not JSON: {e}") from None
                lib.engram_new_fact_set_metadata(f, _lib.encode(text, "metadata"))
            if expires_at is not None:
                lib.engram_new_fact_set_expires_at(f, to_millis(expires_at, "expires_at"))
            yield fact


def _check_count(value: int, what: str, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{what}: must be an int, not {type(value).__name__}")
    if value < minimum:
        raise InvalidArgumentError(f"{what}: {value} is below {minimum}")


def _history(history: str) -> int:
    if history not in _HISTORY:
        raise InvalidArgumentError(
            f"history: '{history}' is not one of {', '.join(_HISTORY)}")
    return _HISTORY[history]


@contextlib.contextmanager
def _filter(tags, all_tags, kind, metadata, since, until, as_of):
    """An engram_filter_t for the keyword filters, or None when none is set."""
    if all(v is None for v in (tags, all_tags, kind, metadata, since, until, as_of)):
        yield None
        return
    lib = _lib.lib()
    for name, value in (("tags", tags), ("all_tags", all_tags)):
        if isinstance(value, str):
            raise InvalidArgumentError(f"{name}: must be a list of strings, not one string")
    with _Handle(lib.engram_filter_create, lib.engram_filter_destroy) as handle:
        f = handle.value
        for tag in tags or ():
            lib.engram_filter_add_any_tag(f, _lib.encode(tag, "tag"))
        for tag in all_tags or ():
            lib.engram_filter_add_all_tag(f, _lib.encode(tag, "tag"))
        if kind is not None:
            lib.engram_filter_set_kind(f, _lib.encode(kind, "kind"))
        for key, value in (metadata or {}).items():
            lib.engram_filter_add_metadata(f, _lib.encode(key, "metadata key"),
                                           _lib.encode(_text(value), f"metadata {key}"))
        if since is not None:
            lib.engram_filter_set_since(f, to_millis(since, "since"))
        if until is not None:
            lib.engram_filter_set_until(f, to_millis(until, "until"))
        if as_of is not None:
            lib.engram_filter_set_as_of(f, to_millis(as_of, "as_of"))
        yield f


def _take_fact(out: ctypes.c_void_p) -> Fact:
    try:
        return Fact._from_handle(out)
    finally:
        _lib.lib().engram_fact_destroy(out)


def _take_facts(out: ctypes.c_void_p) -> List[Fact]:
    lib = _lib.lib()
    try:
        return [Fact._from_handle(lib.engram_facts_at(out, i))
                for i in range(lib.engram_facts_count(out))]
    finally:
        lib.engram_facts_destroy(out)
