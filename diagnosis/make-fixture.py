#!/usr/bin/env python3
"""Turn a case directory written by `culprit diagnose --out DIR` into a test fixture.

    python3 diagnosis/make-fixture.py CASE_DIR NAME TOP_RULE CULPRIT "what the service did"

writes diagnosis/src/test/resources/cases/NAME: the case without its recording (culprit.jfr),
its findings and report (the tests re-derive those), with at most 10 allocation sites, and its
cpu profile trimmed as docs/CASEFILE.md describes, plus expected.json. Never point it at a
fixture directory as CASE_DIR: run `culprit diagnose --case` on a copy.
"""
import json
import os
import shutil
import sys

# Frames between the thread's root and the application that no rule reads from a profile:
# the container's and the web framework's dispatch, Spring's proxies and repository plumbing, and reflection.
DROP = ("org.apache.catalina.", "org.apache.coyote.", "org.apache.tomcat.", "org.springframework.web.",
        "org.springframework.cglib.", "jdk.internal.reflect.", "java.lang.reflect.Method.", "jdk.proxy",
        "org.springframework.aop.", "org.springframework.transaction.", "org.springframework.data.repository.",
        "org.springframework.data.jpa.repository.support.", "org.springframework.dao.")
# The heaviest stacks that make up this share of the samples are kept; the rest become one line.
# KEEP_SHARE=0.6 in the environment for profiles of deep, scattered stacks (a compiler's, say).
KEEP_SHARE = float(os.environ.get("KEEP_SHARE", "0.8"))
# CUT_BELOW=N in the environment keeps at most N frames below the deepest frame of the culprit's
# package (stacks that then end alike merge): for a library whose thousands of deep, distinct stacks
# would otherwise be dropped by KEEP_SHARE, taking the method's share down with them. The leaf
# frames the rules report are then these cut ends.
CUT_BELOW = int(os.environ.get("CUT_BELOW", "0"))
SKIP = {"culprit.jfr", "findings.json", "report.html"}


def trim_profile(src, dst, package):
    stacks = {}
    for line in open(src):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = [f for f in stack.split(";") if not f.startswith(DROP)]
        if CUT_BELOW:
            mine = [i for i, f in enumerate(frames) if f.startswith(package)]
            if mine:
                frames = frames[:mine[-1] + 1 + CUT_BELOW]
        key = ";".join(frames)
        stacks[key] = stacks.get(key, 0) + int(count)
    total = sum(stacks.values())
    kept, rest = 0, 0
    with open(dst, "w") as out:
        for stack, count in sorted(stacks.items(), key=lambda kv: -kv[1]):
            if kept < KEEP_SHARE * total:
                out.write(f"{stack} {count}\n")
                kept += count
            else:
                rest += count
        if rest:
            out.write(f"(trimmed) {rest}\n")


def main(case, name, top, culprit, what):
    here = os.path.dirname(os.path.abspath(__file__))
    dst = os.path.join(here, "src", "test", "resources", "cases", name)
    if os.path.exists(dst):
        sys.exit(f"{dst} exists")
    shutil.copytree(case, dst, ignore=lambda d, names: [n for n in names if n in SKIP])
    profile = os.path.join(case, "profiles", "cpu.collapsed")
    if os.path.exists(profile):
        trim_profile(profile, os.path.join(dst, "profiles", "cpu.collapsed"), culprit.rsplit(".", 2)[0] + ".")
    sites = os.path.join(dst, "tables", "alloc-sites.json")
    if os.path.exists(sites):
        t = json.load(open(sites))
        t["rows"] = t["rows"][:10]
        json.dump(t, open(sites, "w"), indent=1)
    with open(os.path.join(dst, "expected.json"), "w") as out:
        json.dump({"top": top, "culprit": culprit,
                   "case": "not a lab scenario: " + what + ", recorded by culprit diagnose"
                   + (f" (its cpu profile trimmed to {KEEP_SHARE * 100:.0f} % of samples"
                      + (f", its stacks cut {CUT_BELOW} frames below {culprit.rsplit('.', 2)[0]}" if CUT_BELOW else "") + ")"
                      if os.path.exists(profile) else "")},
                  out, indent=1)
        out.write("\n")
    print(dst)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
