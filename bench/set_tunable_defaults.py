#!/usr/bin/env python3
"""Moves chosen values to the front of a kernel's CUDA tunable lists in a
kgate.json (the first value is the default `kgate run` builds with):

    bench/set_tunable_defaults.py MANIFEST KERNEL NAME=VALUE ...

The manifest keeps its comments: only the kernel's "tunables" object is
rewritten. A NAME the manifest does not declare is added with that one value
(a macro the source reads, for an experiment)."""
import json
import sys


def main():
    path, kernel, settings = sys.argv[1], sys.argv[2], sys.argv[3:]
    text = open(path).read()
    start = text.index('"name": "%s"' % kernel)
    tunables = text.index('"tunables":', text.index('"cuda"', start))
    open_brace = text.index("{", tunables)
    depth = 0
    for end in range(open_brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    values = json.loads(text[open_brace:end + 1])
    for setting in settings:
        name, value = setting.split("=")
        value = int(value)
        values[name] = [value] + [v for v in values.get(name, []) if v != value]
    open(path, "w").write(text[:open_brace] + json.dumps(values) + text[end + 1:])


if __name__ == "__main__":
    main()
