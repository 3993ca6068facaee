"""engram's Python package against the real libengram and a real store."""
import datetime as dt
import os
import stat
import subprocess
import sys
import threading

import pytest

import engram
from conftest import model_settings

FAMILY = [
    ("Maya is allergic to peanuts", ["family", "health"]),
    ("Maya plays the violin on Saturdays", ["family"]),
    ("The car is due for its MOT in March", ["car"]),
]


def fill(m):
    return [m.add(text, tags=tags) for text, tags in FAMILY]


def test_add_returns_the_stored_fact(memory):
    fact = memory.add("Deploys go out on Tuesdays", tags=["Deploy", "ops"], kind="preference",
                      source="wiki", confidence=0.75, metadata={"owner": "ana", "n": 2})
    assert isinstance(fact, engram.Fact)
    assert len(fact.id) == 24
    assert fact.scope == "default"
    assert fact.content == "Deploys go out on Tuesdays"
    assert fact.tags == ("deploy", "ops")
    assert fact.kind == "preference"
    assert fact.source == "wiki"
    assert fact.confidence == 0.75
    assert fact.metadata == {"owner": "ana", "n": 2}
    assert fact.created_at.tzinfo is dt.timezone.utc
    assert abs(fact.created_at - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(minutes=5)
    assert fact.is_current and fact.superseded_by is None and fact.expires_at is None
    assert memory.add("Deploys go out on Tuesdays", tags=["release"]).tags == (
        "deploy", "ops", "release")  # merged, tags united


def test_search_ranks_with_scores_and_filters(memory):
    fill(memory)
    hits = memory.search("what can't Maya eat?", k=2)
    assert isinstance(hits, engram.SearchResult)
    assert len(hits) == 2
    assert hits.semantic and not hits.no_match and not hits.temporal_fallback
    assert hits[0].fact.content == "Maya is allergic to peanuts"
    assert hits[0].fact.tags == ("family", "health")
    assert 0 < hits[1].score <= hits[0].score <= 1
    assert hits[0].explanation is None
    only_car = memory.search("Maya", tags=["car"])
    assert only_car.no_match and list(only_car) == []
    assert [h.fact.content for h in memory.search("Maya violin", all_tags=["family"], k=1)] == [
        "Maya plays the violin on Saturdays"]
    assert memory.search("Maya", kind="lesson").no_match


def test_search_explains(memory):
    fill(memory)
    hit = memory.search("peanut allergy", explain=True, record_access=False)[0]
    why = hit.explanation
    assert isinstance(why, engram.Explanation)
    assert why.semantic is not None and why.semantic.raw > 0.3 and why.semantic.rank >= 1
    assert why.lexical is not None and "peanut" in why.matched_terms
    assert why.temporal is not None
    assert abs(why.semantic.weight + why.lexical.weight + why.temporal.weight - 1) < 1e-6
    assert memory.get(hit.fact.id).access_count == 0  # record_access=False


def test_modes_and_weights(memory):
    fill(memory)
    lexical = memory.search("violin", mode="lexical")
    assert not lexical.semantic and len(lexical) == 1
    by_words = memory.search("Maya", weights=(0.0, 1.0, 0.0), k=3)
    assert len(by_words) == 2
    with pytest.raises(engram.InvalidArgumentError, match="fuzzy"):
        memory.search("Maya", mode="fuzzy")
    with pytest.raises(engram.InvalidArgumentError, match="weights"):
        memory.search("Maya", weights=(1.0, 0.0))


def test_update_keeps_history(memory):
    old = memory.add("Standup is at 9:30", tags=["work"])
    new = memory.update(old.id[:8], "Standup is at 10:00", tags=["work"])
    assert new.id != old.id and new.is_current
    versions = memory.history(new.id)
    assert [v.content for v in versions] == ["Standup is at 9:30", "Standup is at 10:00"]
    assert versions[0].superseded_by == new.id and versions[0].valid_until is not None
    assert [f.content for f in memory.list()] == ["Standup is at 10:00"]
    assert len(memory.list(include_superseded=True)) == 2
    past = memory.list(as_of=old.created_at, include_superseded=True)
    assert [f.id for f in past] == [old.id]
    with pytest.raises(engram.FailedPreconditionError):
        memory.update(old.id, "Standup is at 11:00")
    with pytest.raises(engram.NotFoundError):
        memory.update("abababab", "x")


def test_get_list_and_scopes(memory):
    facts = fill(memory)
    other = memory.add("Team lunch is on Fridays", scope="team")
    assert memory.get(facts[0].id[:6]) == memory.get(facts[0].id)
    with pytest.raises(engram.NotFoundError) as e:
        memory.get(other.id)  # another scope
    assert isinstance(e.value, engram.Error) and isinstance(e.value, LookupError)
    assert memory.get(other.id, scope="team").content == "Team lunch is on Fridays"
    assert len(memory.list()) == 3
    assert len(memory.list(scopes=["default", "team"])) == 4
    assert len(memory.list(limit=1, offset=1)) == 1
    assert [f.content for f in memory.list(tags=["car"])] == ["The car is due for its MOT in March"]
    newest = memory.list(since=facts[2].created_at)
    assert facts[2].id in [f.id for f in newest]
    assert memory.list(until=facts[0].created_at) == []
    assert memory.list(metadata={"owner": "nobody"}) == []


def test_forget(memory):
    a, b, c = fill(memory)
    with pytest.raises(engram.NotFoundError, match="abababab"):
        memory.forget(a.id, "abababab")
    assert len(memory.list()) == 3  # all or nothing
    assert memory.forget(a.id) == 1
    newer = memory.update(b.id, "Maya plays the cello on Saturdays", tags=["family"])
    with pytest.raises(engram.FailedPreconditionError):
        memory.forget(newer.id)
    assert memory.forget(newer.id, history="restore") == 1
    assert memory.get(b.id).is_current
    with pytest.raises(engram.InvalidArgumentError, match="history"):
        memory.forget(b.id, history="maybe")
    assert memory.forget_tag("car") == 1
    assert memory.forget_scope("default") == 1
    assert memory.list() == []
    with pytest.raises(engram.NotFoundError):
        memory.forget_scope("default")


def test_add_many_is_all_or_nothing(memory):
    report = memory.add_many(["one fact about the garden", {"content": "the shed is green",
                                                             "tags": ["garden"]},
                              "one fact about the garden"])
    assert report == engram.BatchReport(added=2, merged=1)
    with pytest.raises(engram.InvalidArgumentError, match="fact 1"):
        memory.add_many(["a fine fact", {"content": "bad confidence", "confidence": 2}])
    with pytest.raises(engram.InvalidArgumentError, match="fact 0"):
        memory.add_many([{"tags": ["no content"]}])
    with pytest.raises(engram.InvalidArgumentError, match="fact 0"):
        memory.add_many([{"content": "x", "colour": "red"}])
    assert len(memory.list()) == 2


def test_export_and_import(memory, tmp_path):
    fill(memory)
    memory.update(memory.list()[0].id, "The car is due for its MOT in April", tags=["car"])
    path = tmp_path / "backup.jsonl"
    assert memory.export(path) == 4
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with engram.Memory(tmp_path / "copy.db", settings=model_settings()) as copy:
        assert copy.import_file(path) == engram.BatchReport(added=4, merged=0, skipped=0)
        assert len(copy.list(include_superseded=True)) == 4
        csv = tmp_path / "facts.csv"
        csv.write_text("content,tags\nThe boiler was serviced in May,home\n,home\n")
        with pytest.raises(engram.InvalidArgumentError, match="facts.csv:3"):
            copy.import_file(csv)
        assert copy.import_file(csv, skip_bad=True) == engram.BatchReport(1, 0, 1)
        with pytest.raises(engram.NotFoundError):
            copy.import_file(tmp_path / "absent.jsonl")
        assert copy.backfill() == engram.BackfillReport(embedded=0, remaining=0)


def test_config_and_versions(memory):
    config = memory.config()
    assert config["settings"]["fusion.w_lexical"]["value"] == "0.51"
    assert config["store"]["facts"] == 0
    assert engram.library_version() == engram.__version__


def test_bad_input_is_an_engram_error(memory, store_path, tmp_path):
    cases = [
        lambda: memory.add(""),
        lambda: memory.add("x", confidence=1.5),
        lambda: memory.add("half an emoji \ud83d"),
        lambda: memory.add("nul \0 inside"),
        lambda: memory.add("x", tags="family"),
        lambda: memory.add("x", metadata={"when": object()}),
        lambda: memory.add(42),
        lambda: memory.search("x", k=0),
        lambda: memory.search("x", k="5"),
        lambda: memory.search("x", since=dt.datetime(2024, 1, 1)),  # naive
        lambda: memory.list(limit=-1),
        lambda: memory.forget(),
        lambda: engram.Memory(store_path, settings={"bm25.k9": 1}),
        lambda: engram.Memory(store_path, settings={"bm25.b": 2}),
        lambda: engram.Memory(tmp_path / "missing.db", create=False),
        lambda: engram.Memory(tmp_path),  # a directory
    ]
    for i, case in enumerate(cases):
        with pytest.raises(engram.Error) as e:
            case()
        assert str(e.value), f"case {i}: no message"
    assert memory.list() == []  # nothing half-written
    assert not (tmp_path / "missing.db").exists()
    with pytest.raises(engram.InvalidArgumentError, match="bm25.k9"):
        engram.Memory(store_path, settings={"bm25.k9": 1})


def test_closed_memory_refuses_calls(store_path):
    m = engram.Memory(store_path, settings=model_settings())
    m.add("a fact")
    m.close()
    m.close()  # idempotent
    with pytest.raises(engram.FailedPreconditionError, match="closed"):
        m.search("fact")


def test_keyword_only_says_so(tmp_path):
    with engram.Memory(tmp_path / "k.db", settings={"embed.models_dir": str(tmp_path)}) as m:
        assert any("use-lite-en.bin" in w for w in m.warnings)
        m.add("the build server is called hopper")
        hits = m.search("build server")
        assert not hits.semantic and hits[0].fact.content == "the build server is called hopper"
        with pytest.raises(engram.FailedPreconditionError):
            m.backfill()


WORKERS = ["ana", "bruno", "carla", "dmitri", "elena", "farid", "greta", "hugo"]
ITEMS = ["umbrella", "passport", "guitar", "lantern", "compass", "kettle", "bicycle", "camera",
         "telescope", "hammock"]


def test_threads_share_one_memory(store_path):
    # The facts of one worker look like versions of one another ("ana keeps
    # the X in the attic"), and a newer version is ranked above the older
    # one a search finds: this test is about threads, so facts are not
    # linked as versions here.
    memory = engram.Memory(store_path,
                           settings={**model_settings(), "versions.link_on_write": False})
    errors = []

    def work(n):
        try:
            for item in ITEMS:
                memory.add(f"{WORKERS[n]} keeps the {item} in the attic", tags=[f"t{n}"])
                hits = memory.search(f"where is the {item}", k=3, record_access=False)
                assert item in hits[0].fact.content
        except Exception as e:  # reported below, with the thread
            errors.append((n, e))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(memory.list(limit=0)) == 80
    assert len(memory.list(tags=["t3"], limit=0)) == 10
    memory.close()


def test_close_waits_for_calls_in_flight(store_path):
    m = engram.Memory(store_path, settings=model_settings())
    m.add_many([f"fact number {i} about the weather" for i in range(50)])
    results = []

    def search():
        for _ in range(20):
            try:
                results.append(len(m.search("weather", k=5)))
            except engram.FailedPreconditionError:
                results.append("closed")

    t = threading.Thread(target=search)
    t.start()
    m.close()
    t.join()
    assert all(r in (5, "closed") for r in results) and len(results) == 20


def test_readme_example_runs(tmp_path):
    """The Python example of the top-level README, run as it is written."""
    readme = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start = text.index("```python\n", text.index("## Using engram from Python")) + len("```python\n")
    code = text[start:text.index("```", start)]
    # The model where a user's engram finds it: the user's data directory.
    models = tmp_path / "data" / "engram" / "models"
    models.mkdir(parents=True)
    (models / "use-lite-en.bin").symlink_to(
        os.path.join(os.environ["ENGRAM_TEST_MODELS_DIR"], "use-lite-en.bin"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_LIBRARY=os.environ["ENGRAM_LIBRARY"], HOME=str(tmp_path),
               XDG_DATA_HOME=str(tmp_path / "data"))
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "Maya is allergic to peanuts ('family',)" in lines[0], run.stdout
    assert lines[1] == "['Standup is at 9:30', 'Standup is at 10:00']", run.stdout
