#!/usr/bin/env python3
"""The process make-bench dumps: builds the kind of heap real programs have.

Source text split into lines and tokens, a token index, records with strings
and floats, and integer lists; then writes its PID to READY_FILE and waits
until it is ended (make-bench ends it after the dump).

usage: bench_workload.py TEXT_BYTES READY_FILE
"""
import os
import random
import sys
import time

TEXT_ROOTS = ("/usr/include", "/usr/share/doc", "/usr/lib/python3")


def load_text(budget):
    """Lines and a token index of up to `budget` bytes of text files."""
    lines, index, loaded = [], {}, 0
    for top in TEXT_ROOTS:
        for folder, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                try:
                    with open(os.path.join(folder, name), errors="replace") as f:
                        text = f.read(1 << 20)
                except OSError:
                    continue
                lines.extend(text.splitlines())
                for token in text.split():
                    index[token] = index.get(token, 0) + 1
                loaded += len(text)
                if loaded >= budget:
                    return lines, index
    return lines, index


def main():
    if len(sys.argv) != 3 or not sys.argv[1].isdigit():
        print(__doc__, file=sys.stdout if "--help" in sys.argv else sys.stderr)
        return 0 if "--help" in sys.argv or "-h" in sys.argv else 2
    random.seed(1)
    lines, index = load_text(int(sys.argv[1]))
    records = [
        {"id": i, "name": "record-%06d" % i, "score": random.random(),
         "tags": random.sample(lines, 2) if len(lines) > 2 else []}
        for i in range(150000)
    ]
    numbers = list(range(0, 4000000, 3))
    with open(sys.argv[2], "w") as ready:
        ready.write("%d\n" % os.getpid())
    while True:  # keep every object above alive until the dump is done
        time.sleep(1)
        assert lines is not None and index and records and numbers


if __name__ == "__main__":
    sys.exit(main())
