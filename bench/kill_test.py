#!/usr/bin/env python3
"""SIGKILL test of `engram serve` under concurrent adds, on loopback.

WRITERS threads (default 4) add facts over HTTP as fast as the server takes
them and remember every add the server acknowledged (201 with the fact's id). Meanwhile
the server is killed with SIGKILL KILLS times (default 30), each after a random
0.2-1.5 s of work, and restarted on the same port and store. Then the writers
stop, the server is stopped with SIGTERM, and the store is checked: every
acknowledged fact must be there (`engram export`), and SQLite's integrity
check must pass. Bounded: at most MAX_SECONDS (default 600) in all.

Usage: bench/kill_test.py [BUILD_DIR]   (default ./build; needs the engram
target and the converted model, `make build`). Prints one JSON object and
writes bench/RESULTS-kill.md. Exit status 1 when anything acknowledged is lost.
"""
import http.client
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

from serve_process import ServeProcess

KILLS = int(os.environ.get("KILLS", "30"))
WRITERS = int(os.environ.get("WRITERS", "4"))
MAX_SECONDS = float(os.environ.get("MAX_SECONDS", "600"))
SEED = int(os.environ.get("SEED", "20261202"))


def writer(index, port, stop, acked, attempts, lock):
    n = 0
    conn = None
    while not stop.is_set():
        n += 1
        content = f"kill test writer {index} fact {n}: the value is {random.random():.12f}"
        body = json.dumps({"content": content, "tags": ["kill-test"]})
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("POST", "/v1/facts", body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            data = reply.read()
            with lock:
                attempts[0] += 1
            if reply.status == 201:
                fact_id = json.loads(data)["facts"][0]["id"]
                with lock:
                    acked[content] = fact_id
        except (OSError, http.client.HTTPException, ValueError, KeyError):
            # Not acknowledged: the server died before answering.
            conn = None
            time.sleep(0.01)


def main():
    build = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build")
    engram = os.path.join(build, "engram")
    if not os.access(engram, os.X_OK):
        raise SystemExit(f"kill_test: {engram} is missing; run `make build`")
    random.seed(SEED)
    work = tempfile.mkdtemp(prefix="engram-kill-")
    env = dict(os.environ, ENGRAM_CONFIG=os.path.join(work, "none.toml"),
               ENGRAM_HOME=os.path.join(work, "home"))
    home_models = os.path.join(os.environ.get("ENGRAM_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "engram"),
        "models")
    env["ENGRAM_EMBED_MODELS_DIR"] = home_models
    db = os.path.join(work, "home", "memory.db")
    server = ServeProcess("kill_test: the server", engram, env, os.path.join(work, "serve.log"))
    port = server.port
    deadline = time.monotonic() + MAX_SECONDS
    server.start(deadline)

    stop = threading.Event()
    acked, attempts, lock = {}, [0], threading.Lock()
    threads = [threading.Thread(target=writer, args=(i, port, stop, acked, attempts, lock))
               for i in range(WRITERS)]
    for t in threads:
        t.start()
    kills = 0
    started = time.monotonic()
    while kills < KILLS and time.monotonic() < deadline:
        time.sleep(random.uniform(0.2, 1.5))
        server.kill()
        kills += 1
        server.start(deadline)
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()
    seconds = time.monotonic() - started
    exit_code = server.stop()

    export = subprocess.run([engram, "export"], env=env, capture_output=True, text=True,
                            check=True).stdout.splitlines()
    stored = {json.loads(line)["content"] for line in export}
    lost = [c for c in acked if c not in stored]
    with sqlite3.connect(db) as check:
        integrity = check.execute("PRAGMA integrity_check").fetchone()[0]
    report = {
        "kills": kills, "writers": WRITERS, "seconds": round(seconds, 1),
        "requests": attempts[0], "acknowledged": len(acked), "stored": len(export),
        "lost": len(lost), "integrity_check": integrity,
        "sigterm_exit": exit_code,
    }
    print(json.dumps(report))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS-kill.md"),
              "w") as out:
        out.write(
            f"Written by `bench/kill_test.py` at commit {commit} on {os.cpu_count()} cores: "
            f"`engram serve` with the local model on loopback, {WRITERS} threads adding facts "
            f"over HTTP for {report['seconds']} s while the server was killed with SIGKILL "
            f"{kills} times (each after 0.2-1.5 s, seed {SEED}) and restarted on the same "
            "store.\n\n"
            "| kills | add requests answered | acknowledged | in the store | lost | "
            "integrity_check |\n|---|---|---|---|---|---|\n"
            f"| {kills} | {attempts[0]:,} | {len(acked):,} | {len(export):,} | {len(lost)} | "
            f"{integrity} |\n\n"
            "An add is acknowledged when the server answered 201 with the fact's id; a request "
            "cut off by a kill is not, and its fact may or may not be stored (the store holds "
            "what was committed).\n")
    subprocess.run(["rm", "-rf", work], check=False)
    if lost or integrity != "ok" or exit_code != 0:
        print(f"kill_test: lost {len(lost)}, integrity {integrity}, SIGTERM exit {exit_code}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
