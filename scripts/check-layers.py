#!/usr/bin/env python3
"""Fails when a module of the engine crate imports a module of its own or a higher layer.

The engine (crates/engine/src) is a stack of layers; a file may name `crate::X` only when
X's layer is strictly below its own (or X is its own top-level module). The table below is
the rule; ARCHITECTURE.md draws it. Comments are ignored; test modules are not.

    python3 scripts/check-layers.py            # check the engine
    python3 scripts/check-layers.py --self-test # show that an upward import is caught
"""
import os
import re
import sys
import tempfile

# Bottom to top. Modules on one line share a layer and may not import each other.
LAYERS = [
    ["math", "avx2"],
    ["handles"],
    ["error"],
    ["body", "diagnostics"],
    ["dynamics"],
    ["rows"],
    ["joint", "contact"],
    ["collision"],
    ["solver"],
    ["poststab", "sleep"],
    ["step"],
    ["world"],
    ["snapshot", "scenes", "prelude", "batch"],
]

# Names at the crate root that are not modules of the crate (re-exported crates).
EXTERNAL_ROOTS = {"parry", "lcp"}

LAYER_OF = {name: level for level, names in enumerate(LAYERS) for name in names}


def strip_comments(text):
    """Removes // comments (doc comments included) and /* */ blocks, keeping strings."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and i + 2 < n and (text[i + 2] == "'" or text[i + 1] == "\\"):
            # A char literal such as '{' or '\n' (lifetimes have no closing quote).
            j = text.find("'", i + 2 if text[i + 1] == "\\" else i + 1)
            out.append("' '")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def group_heads(text, start):
    """The first segment of each path in the `{...}` group opening at `start`."""
    heads, depth, token, at_head = [], 0, "", True
    for c in text[start:]:
        if c == "{":
            depth += 1
            at_head = depth == 1
            token = ""
            continue
        if c == "}":
            if depth == 1 and at_head and token:
                heads.append(token)
            depth -= 1
            if depth == 0:
                break
            continue
        if depth != 1:
            continue
        if c.isalnum() or c == "_":
            if at_head:
                token += c
        elif c == ":":
            if at_head and token:
                heads.append(token)
            at_head = False
        elif c == ",":
            if at_head and token:
                heads.append(token)
            at_head, token = True, ""
    return heads


def imported_modules(text):
    """Top-level crate modules a file names through `crate::`."""
    text = strip_comments(text)
    names = []
    for m in re.finditer(r"\bcrate::(\{|[A-Za-z_][A-Za-z0-9_]*)", text):
        if m.group(1) == "{":
            names.extend(group_heads(text, m.start(1)))
        else:
            names.append(m.group(1))
    return names


def module_of(rel):
    """The top-level module a source path (relative to src) belongs to, or None for lib.rs."""
    parts = rel.split(os.sep)
    if len(parts) == 1:
        stem = parts[0][:-3]
        return None if stem == "lib" else stem
    return parts[0]


def check(src):
    """Every violation in the tree under `src`, as printable lines."""
    problems = []
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            module = module_of(rel)
            if module is None:
                continue
            if module not in LAYER_OF:
                problems.append(f"{rel}: module `{module}` is in no layer (add it to LAYERS)")
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for target in sorted(set(imported_modules(text))):
                if target == module or target in EXTERNAL_ROOTS or target == "self":
                    continue
                if target not in LAYER_OF:
                    # A root re-export (a type); lib.rs re-exports only from lower layers
                    # is not checked, so name the module instead.
                    problems.append(f"{rel}: `crate::{target}` names no layered module (import it from its module)")
                elif LAYER_OF[target] >= LAYER_OF[module]:
                    problems.append(
                        f"{rel}: `{module}` (layer {LAYER_OF[module]}) imports `{target}` "
                        f"(layer {LAYER_OF[target]}); imports must point down"
                    )
    return problems


def self_test():
    """An upward import must fail the check, a downward one must pass."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "body"))
        with open(os.path.join(tmp, "lib.rs"), "w") as f:
            f.write("mod body;\n")
        good = "use crate::math::Vec3;\nuse crate::{error::BodyError, handles::BodyHandle};\n"
        with open(os.path.join(tmp, "body", "mod.rs"), "w") as f:
            f.write(good + "// crate::world in a comment is fine\n")
        assert check(tmp) == [], check(tmp)
        with open(os.path.join(tmp, "body", "mod.rs"), "w") as f:
            f.write(good + "use crate::{math::Vec3, world::World};\n")
        found = check(tmp)
        assert len(found) == 1 and "imports `world`" in found[0], found
        with open(os.path.join(tmp, "body", "mod.rs"), "w") as f:
            f.write("fn f() -> crate::step::Scratch { todo!() }\n")
        found = check(tmp)
        assert len(found) == 1 and "imports `step`" in found[0], found
    print("check-layers self-test: an upward import is caught")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return 0
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "crates", "engine", "src")
    problems = check(src)
    for line in problems:
        print(line)
    if problems:
        print(f"check-layers: {len(problems)} upward or unlayered imports")
        return 1
    print("check-layers: every import in crates/engine/src points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
