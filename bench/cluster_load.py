#!/usr/bin/env python3
"""Three `engram serve` processes on one PostgreSQL under load, with failures.

Run by bench/cluster_load.sh, which makes the PostgreSQL cluster, the
database, the seeded facts and the model; this drives the rest:

  cluster_load.py ENGRAM STATE_FILE URL SCOPES FACTS.jsonl WORK_DIR

- three servers on loopback, each with a home of its own (its own vector
  caches and index files, as on three hosts), all on the database URL;
- CLIENTS (50) client threads, each of which sends to its own server (client
  i to server i mod 3) a mix of searches (60%), adds (25%) of new facts
  (the lines of FACTS.jsonl not seeded, in turn) and forgets (15%) of facts
  it added earlier, each in a scope drawn from the SCOPES seeded ones, with
  a think time of THINK_MS (400-1200 ms) between requests. A request that
  fails (refused, cut, timed out, 5xx) is counted by kind and sent again to
  the next server after 100 ms, for at most 30 s; only a 2xx answer
  acknowledges it;
- a probe thread that every second adds a fact through one server and
  searches for it by meaning through another until it is the top hit: the
  time for a write on one server to be visible on another;
- at KILL_AT seconds server 1 is killed with SIGKILL and started again 3 s
  later; at PG_RESTART_AT PostgreSQL is crashed (an immediate stop) and
  started again (scripts/pg_cluster.sh restart STATE immediate); the run
  stops at RUN_SECONDS (90).

Afterwards the servers are stopped with SIGTERM and the database is read
directly: every acknowledged add must be there exactly once, every
acknowledged forget absent, and `engram check` must pass. Then every server
is started again on its old home, and its caches are checked by meaning:
each of a sample of the kept facts found among the top 3 for its own text,
no forgotten fact returned. Prints one JSON object; writes
bench/RESULTS-cluster.md; exits 1 when anything acknowledged is wrong.
"""
import collections
import csv
import http.client
import io
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time

from serve_process import ServeProcess

CLIENTS = int(os.environ.get("CLIENTS", "50"))
RUN_SECONDS = float(os.environ.get("RUN_SECONDS", "90"))
KILL_AT = float(os.environ.get("KILL_AT", "25"))
PG_RESTART_AT = float(os.environ.get("PG_RESTART_AT", "55"))
THINK_MS = tuple(int(x) for x in os.environ.get("THINK_MS", "400-1200").split("-"))
SEED = int(os.environ.get("SEED", "20261206"))
RETRY_FOR = 30.0  # seconds a request is retried before it counts as failed
SERVERS = 3
AUDIT_SAMPLE = 60


class Stats:
    """What every thread records, under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.errors = collections.Counter()  # failed attempts by kind
        self.samples = {}  # kind -> the first answer or exception of that kind
        self.failed = collections.Counter()  # requests never acknowledged, by operation
        self.latency = collections.defaultdict(list)  # ms per acknowledged request
        self.added = {}  # (scope, id) -> content: acknowledged adds not forgotten
        self.forgotten = {}  # (scope, id) -> content: acknowledged forgets
        self.uncertain = 0  # forgets never acknowledged: the fact may or may not be there
        self.merged = 0  # adds merged into a near-duplicate fact, which kept its own text
        self.visible_ms = []
        self.probe_skipped = 0

    def error(self, kind, sample):
        with self.lock:
            self.errors[kind] += 1
            self.samples.setdefault(kind, sample)


def error_kind(exc):
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timed out"
    return "connection cut"  # reset, closed before the answer, broken pipe


class Client:
    """Sends a request to a preferred server and, when it fails, to the
    next one: what a load balancer in front of the servers would do."""

    def __init__(self, servers, preferred, stats):
        self.servers, self.at, self.stats = servers, preferred, stats
        self.conns = {}

    def call(self, method, path, body=None):
        """(status, parsed body, ms) of the first 2xx or 4xx answer; None
        when every attempt within RETRY_FOR failed."""
        started = time.monotonic()
        payload = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        while time.monotonic() - started < RETRY_FOR:
            server = self.servers[self.at]
            try:
                conn = self.conns.get(server.port)
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
                    self.conns[server.port] = conn
                conn.request(method, path, payload, headers)
                reply = conn.getresponse()
                data = reply.read()
                if reply.status < 500:
                    return reply.status, json.loads(data), (time.monotonic() - started) * 1e3
                self.stats.error(f"HTTP {reply.status}", data.decode(errors="replace")[:300])
            except (OSError, http.client.HTTPException) as exc:
                self.stats.error(error_kind(exc), repr(exc)[:300])
                self.conns.pop(server.port, None)
            self.at = (self.at + 1) % len(self.servers)
            time.sleep(0.1)
        return None


def client_loop(index, servers, scopes, facts, next_fact, stats, stop, rng):
    client = Client(servers, index % len(servers), stats)
    mine = []  # (scope, id) this client added and has not forgotten
    while not stop.is_set():
        time.sleep(rng.uniform(*THINK_MS) / 1e3)
        draw = rng.random()
        if draw < 0.15 and mine:
            op = "forget"
            scope, fact_id = mine.pop(rng.randrange(len(mine)))
            reply = client.call("DELETE", f"/v1/facts/{fact_id}?scope={scope}")
        elif draw < 0.40:
            op = "add"
            with stats.lock:
                i = next_fact[0]
                next_fact[0] += 1
            if i >= len(facts):
                continue
            scope, content = scopes[i % len(scopes)], facts[i]
            reply = client.call("POST", "/v1/facts", {"scope": scope, "content": content})
        else:
            op = "search"
            scope = rng.choice(scopes)
            query = facts[rng.randrange(len(facts))][:120]
            reply = client.call("POST", "/v1/search", {"query": query, "scope": scope, "k": 5})
        if reply is None or not 200 <= reply[0] < 300:
            with stats.lock:
                stats.failed[op] += 1
                if reply is not None:
                    stats.errors[f"HTTP {reply[0]}"] += 1
                if op == "forget":
                    stats.added.pop((scope, fact_id), None)
                    stats.uncertain += 1
            continue
        status, body, ms = reply
        with stats.lock:
            stats.latency[op].append(ms)
            if op == "add":
                entry = body["facts"][0]
                key = (entry["scope"], entry["id"])
                if "near_duplicate" in entry:
                    stats.merged += 1
                else:
                    # Created, or created by an attempt cut off before its
                    # answer: the text is stored under its own id either way.
                    stats.added[key] = content
                    mine.append(key)
            elif op == "forget":
                stats.forgotten[(scope, fact_id)] = stats.added.pop((scope, fact_id))


def probe_loop(servers, facts, stats, stop):
    """Adds through server a, searches by meaning through server b."""
    n = 0
    while not stop.is_set():
        time.sleep(1.0)
        n += 1
        a, b = n % len(servers), (n + 1) % len(servers)
        writer = Client(servers, a, stats)
        reader = Client(servers, b, stats)
        content = facts[-n]
        added = writer.call("POST", "/v1/facts", {"scope": "probe", "content": content})
        if added is None or added[0] >= 300 or writer.at != a or \
                not added[1]["facts"][0]["created"]:
            with stats.lock:
                stats.probe_skipped += 1
            continue
        fact_id = added[1]["facts"][0]["id"]
        acknowledged = time.monotonic()
        seen = None
        while time.monotonic() - acknowledged < 10:
            found = reader.call("POST", "/v1/search", {"query": content, "scope": "probe",
                                                       "k": 1, "mode": "semantic",
                                                       "record": False})
            if reader.at != b:
                break  # server b failed meanwhile: not a measure of b
            if found and found[0] == 200 and found[1]["hits"] and \
                    found[1]["hits"][0]["fact"]["id"] == fact_id:
                seen = (time.monotonic() - acknowledged) * 1e3
                break
            time.sleep(0.002)
        with stats.lock:
            if seen is None:
                stats.probe_skipped += 1
            else:
                stats.visible_ms.append(seen)


def percentile(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def psql(url, sql):
    """What `sql` writes, unaligned and without headers, as text."""
    return subprocess.run(["psql", url, "-XAtc", sql], capture_output=True, text=True,
                          check=True).stdout.rstrip("\n")


def database_facts(url):
    """(scope, id) -> content of every fact, read with psql."""
    out = psql(url, "COPY (SELECT scope, id, content FROM facts) TO STDOUT WITH (FORMAT csv)")
    return {(scope, fact_id): content for scope, fact_id, content in csv.reader(io.StringIO(out))}


def audit_caches(servers, stats, rng):
    """Searches every server by meaning for a sample of the kept facts and
    for every forgotten one; (sample size, kept facts not among the top 3,
    forgotten facts returned)."""
    kept = rng.sample(sorted(stats.added.items()), min(AUDIT_SAMPLE, len(stats.added)))
    misses, returned_forgotten = 0, 0

    def top(client, scope, content, k):
        reply = client.call("POST", "/v1/search", {"query": content, "scope": scope, "k": k,
                                                   "mode": "semantic", "record": False,
                                                   "include_superseded": True})
        return [h["fact"]["id"] for h in reply[1]["hits"]] if reply and reply[0] == 200 else []

    for server in servers:
        client = Client([server], 0, stats)
        for (scope, fact_id), content in kept:
            misses += fact_id not in top(client, scope, content, 3)
        for (scope, fact_id), content in sorted(stats.forgotten.items()):
            returned_forgotten += fact_id in top(client, scope, content, 10)
    return len(kept), misses, returned_forgotten


def write_results(report, url):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    version = psql(url, "SHOW server_version").split()[0]
    a = report["audit"]
    v = report["visibility_ms"]
    lines = [
        f"Written by `bench/cluster_load.sh` at commit {commit} on {os.cpu_count()} cores: "
        f"{report['servers']} `engram serve` processes with the local model, each with its own "
        f"vector caches, on one PostgreSQL {version} (fsync and synchronous commit on), all on "
        f"loopback; {report['clients']} clients, each sending to its own server a mix of "
        f"searches (60%), adds (25%) and forgets of its own facts (15%) over {report['scopes']} "
        f"seeded scopes, {THINK_MS[0]}-{THINK_MS[1]} ms apart, for {report['seconds']} s "
        f"(seed {SEED}). A failed request is sent again to the next server after 100 ms, as a "
        "load balancer would, for at most 30 s; latencies count from the first attempt.",
        "",
        "Events: " + "; ".join(report["events"]) + ".",
        "",
        "| operation | acknowledged | p50 ms | p95 ms | never acknowledged |",
        "|---|---|---|---|---|",
    ]
    for op in ("search", "add", "forget"):
        o = report["operations"].get(op, {"acknowledged": 0, "p50_ms": 0, "p95_ms": 0})
        lines.append(f"| {op} | {o['acknowledged']:,} | {o['p50_ms']} | {o['p95_ms']} | "
                     f"{report['never_acknowledged'].get(op, 0)} |")
    lines += ["", "Failed attempts, by kind (each was sent again):", "",
              "| kind | attempts |", "|---|---|"]
    for kind, count in sorted(report["failed_attempts"].items()):
        lines.append(f"| {kind} | {count:,} |")
    if not report["failed_attempts"]:
        lines.append("| none | 0 |")
    lines += [
        "",
        f"A write on one server visible on another: every second a fact was added through one "
        f"server and searched for by meaning (its own text, k = 1) through the next until it "
        f"was the top hit, {v['probes']} times: p50 {v['p50']} ms, p95 {v['p95']} ms, max "
        f"{v['max']} ms from the add's answer ({v['skipped']} probes skipped because a server "
        "or the database was down during them).",
        "",
        "Afterwards, the database read directly (psql) and every server started again on its "
        f"own home and searched by meaning for a sample of {a['cache_sample_per_server']} kept "
        "facts (each expected among the top 3 for its own text) and for every forgotten one:",
        "",
        "| facts stored | acknowledged adds | missing | stored more than once | acknowledged "
        "forgets | still present | `engram check` | kept facts not found | forgotten facts "
        "returned |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {a['facts_stored']:,} | {a['acknowledged_adds_kept']:,} | {a['missing']} | "
        f"{a['stored_more_than_once']} | {a['acknowledged_forgets']:,} | "
        f"{a['forgotten_but_present']} | {a['engram_check'] if a['engram_check'] == 'ok' else 'failed'} | "
        f"{a['cache_misses']} | {a['forgotten_returned']} |",
        "",
        f"Acknowledged adds are those answered 2xx and not forgotten later; {a['merged_into_near_duplicates']} "
        "adds were merged into a near-duplicate fact (which keeps its own text) and "
        f"{a['forgets_never_acknowledged']} forgets were never acknowledged, so their facts may "
        "or may not be there: neither is counted. A request cut off by a failure may still have "
        "been committed; sent again, an add of the same text finds it stored and answers with "
        "its id.",
        "",
        f"The {report['servers']} servers held {report['database']['connections_of_the_servers']} "
        "connections to the database at the end of the load (`store.readers` 8 each, plus the "
        "engine's own and the access-count writer's), and the database took "
        f"{report['database']['bytes'] / 2**20:.1f} MiB for {a['facts_stored']:,} facts with "
        "their vectors and indexes, about "
        f"{report['database']['bytes_per_fact']:,} bytes a fact (PostgreSQL's fixed catalogue "
        "included).",
    ]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS-cluster.md"),
              "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def main():
    engram, state, url, scope_count, facts_path, work = sys.argv[1:7]
    scopes = [f"tenant-{i:02d}" for i in range(int(scope_count))]
    facts = [json.loads(line)["content"] for line in open(facts_path, encoding="utf-8")]
    rng = random.Random(SEED)
    env = dict(os.environ, ENGRAM_STORE_URL=url)
    servers = [ServeProcess(f"cluster_load: server {i}", engram,
                            dict(env, ENGRAM_HOME=os.path.join(work, f"home{i}")),
                            os.path.join(work, f"serve{i}.log"))
               for i in range(SERVERS)]
    for s in servers:
        s.start(time.monotonic() + 60)

    stats = Stats()
    stop = threading.Event()
    next_fact = [0]
    threads = [threading.Thread(target=client_loop,
                                args=(i, servers, scopes, facts, next_fact, stats, stop,
                                      random.Random(SEED + i)))
               for i in range(CLIENTS)]
    threads.append(threading.Thread(target=probe_loop, args=(servers, facts, stats, stop)))
    started = time.monotonic()
    for t in threads:
        t.start()
    events = []

    def at(second):
        time.sleep(max(0.0, started + second - time.monotonic()))

    at(KILL_AT)
    servers[1].kill()
    events.append(f"{time.monotonic() - started:.1f} s: server 1 killed (SIGKILL)")
    time.sleep(3)
    servers[1].start(time.monotonic() + 60)
    events.append(f"{time.monotonic() - started:.1f} s: server 1 serving again")
    at(PG_RESTART_AT)
    down = time.monotonic()
    subprocess.run([os.path.join(os.path.dirname(__file__), "..", "scripts", "pg_cluster.sh"),
                    "restart", state, "immediate"], check=True)
    events.append(f"{down - started:.1f} s: PostgreSQL crashed (immediate stop) and started "
                  f"again in {time.monotonic() - down:.1f} s")
    at(RUN_SECONDS)
    stop.set()
    for t in threads:
        t.join()
    seconds = time.monotonic() - started
    connections = int(psql(url, "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                "current_database() AND application_name = 'engram'"))
    exits = [s.stop() for s in servers]
    database_bytes = int(psql(url, "SELECT pg_database_size(current_database())"))

    # The database, read directly.
    rows = database_facts(url)
    # (scope, id) is the key, so an add is there once or not at all; sent
    # twice, it could only be stored twice under another id, so each text
    # is counted in its scope.
    missing = [k for k in stats.added if k not in rows]
    by_content = collections.Counter((scope, c) for (scope, _), c in rows.items())
    twice = [k for k, c in stats.added.items() if by_content[(k[0], c)] != 1]
    present_forgotten = [k for k in stats.forgotten if k in rows]
    stored = len(rows)
    check = subprocess.run([engram, "check"], env=dict(env, ENGRAM_HOME=servers[0].env["ENGRAM_HOME"]),
                           capture_output=True, text=True)

    # Every server again on its old home: its caches by meaning.
    for s in servers:
        s.start(time.monotonic() + 60)
    sample, misses, returned_forgotten = audit_caches(servers, stats, rng)
    for s in servers:
        s.stop()

    ops = {op: {"acknowledged": len(ms), "p50_ms": round(percentile(ms, 0.5), 1),
                "p95_ms": round(percentile(ms, 0.95), 1)} for op, ms in stats.latency.items()}
    report = {
        "servers": SERVERS, "clients": CLIENTS, "scopes": len(scopes),
        "seconds": round(seconds, 1), "events": events,
        "operations": ops, "never_acknowledged": dict(stats.failed),
        "failed_attempts": dict(stats.errors),
        "first_of_each_kind": stats.samples,
        "visibility_ms": {"probes": len(stats.visible_ms),
                          "skipped": stats.probe_skipped,
                          "p50": round(percentile(stats.visible_ms, 0.5), 1),
                          "p95": round(percentile(stats.visible_ms, 0.95), 1),
                          "max": round(max(stats.visible_ms, default=0.0), 1)},
        "audit": {"facts_stored": stored, "acknowledged_adds_kept": len(stats.added),
                  "merged_into_near_duplicates": stats.merged,
                  "forgets_never_acknowledged": stats.uncertain,
                  "missing": len(missing), "stored_more_than_once": len(twice),
                  "acknowledged_forgets": len(stats.forgotten),
                  "forgotten_but_present": len(present_forgotten),
                  "engram_check": "ok" if check.returncode == 0 else check.stdout + check.stderr,
                  "cache_sample_per_server": sample,
                  "cache_misses": misses, "forgotten_returned": returned_forgotten},
        "sigterm_exits": exits,
        "database": {"connections_of_the_servers": connections,
                     "bytes": database_bytes,
                     "bytes_per_fact": round(database_bytes / max(1, stored))},
    }
    print(json.dumps(report))
    write_results(report, url)
    bad = (missing or twice or present_forgotten or check.returncode != 0 or
           misses or returned_forgotten or any(exits))
    if bad:
        print("cluster_load: the audit failed; see the report above", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
