#!/usr/bin/env python3
"""Checks that the program runtime's folders include only the folders below them.

The layering of src/core/program (CONTRIBUTING.md, "Architecture"): each folder may include
itself and the folders listed for it; registry/ also names the headers its rows declare
(builders, type rules, the element-wise enums). Prints every include that breaks the rule and
exits 1 if there is one.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "src" / "core" / "program"

ALLOWED = {
    "ir": {"registry"},  # op_id.hpp expands ops.def, which is data
    "registry": {"ir", "exec", "verify", "ops"},  # the declarations its rows name
    "text": {"ir", "registry"},
    "verify": {"ir", "registry"},
    "passes": {"ir", "registry"},
    "kernels": set(),
    "spmd": set(),  # the process grid and its rendezvous: no program stage below it
    "element": {"ir", "kernels", "ops"},
    "exec": {"ir", "registry", "text", "verify", "passes", "element", "kernels", "spmd", "ops"},
    "ops": {"ir", "registry", "text", "verify", "element", "kernels", "spmd", "exec", "ops"},
}

# What element/ and exec/ may read of ops/: the element-wise kernels only.
OPS_FAMILIES_BELOW = {"element": {"elementwise"}, "exec": {"elementwise"}}

INCLUDE = re.compile(r'#include "program/([a-z_]+)/([a-z_]+)?')


def problems():
    for path in sorted(ROOT.rglob("*")):
        if path.suffix not in {".cpp", ".hpp", ".def"}:
            continue
        folder = path.relative_to(ROOT).parts[0]
        allowed = ALLOWED.get(folder)
        if allowed is None:
            yield f"{path}: folder '{folder}' has no layering rule in {__file__}"
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.search(line)
            if not match:
                continue
            target, family = match.group(1), match.group(2)
            if target == folder and folder != "ops":
                continue
            if target not in allowed:
                yield f"{path}:{number}: {folder}/ includes {target}/"
            elif target == "ops" and folder in OPS_FAMILIES_BELOW:
                if family not in OPS_FAMILIES_BELOW[folder]:
                    yield f"{path}:{number}: {folder}/ includes ops/{family}/"


def main():
    found = list(problems())
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
