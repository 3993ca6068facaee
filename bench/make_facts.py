#!/usr/bin/env python3
"""Writes engram JSONL inputs for the benchmarks from a BEIR corpus.

  make_facts.py corpus.jsonl docs OUT      one fact per document (title + text)
  make_facts.py corpus.jsonl sentences N OUT   the first N sentences as facts

Sentences are split on '. ' and kept when 40..300 characters long; each
gets a creation time spread over the last two years so recency varies.
"""
import datetime
import json
import sys


def main():
    corpus, mode = sys.argv[1], sys.argv[2]
    out_path = sys.argv[-1]
    limit = int(sys.argv[3]) if mode == "sentences" else None
    written = 0
    base = 1700000000  # 2023-11-14
    with open(corpus, encoding="utf-8") as src, open(out_path, "w", encoding="utf-8") as out:
        for line in src:
            row = json.loads(line)
            if mode == "docs":
                text = (row.get("title") or "").strip()
                body = (row.get("text") or "").strip()
                text = f"{text}\n{body}" if text else body
                if not text:
                    continue
                out.write(json.dumps({"content": text}, ensure_ascii=False) + "\n")
                written += 1
                continue
            for sentence in (row.get("text") or "").split(". "):
                sentence = sentence.strip()
                if not 40 <= len(sentence) <= 300:
                    continue
                created = base + (written * 6311) % (2 * 365 * 86400)
                when = datetime.datetime.fromtimestamp(created, datetime.timezone.utc)
                fact = {"content": sentence, "created_at": when.strftime("%Y-%m-%dT%H:%M:%SZ")}
                out.write(json.dumps(fact, ensure_ascii=False) + "\n")
                written += 1
                if written >= limit:
                    return
    if limit and written < limit:
        sys.exit(f"only {written} sentences available, wanted {limit}")


if __name__ == "__main__":
    main()
