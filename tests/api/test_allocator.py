"""Freed memory is kept for the next call (s2sad/allocator.py): the repeated calls of a
gradient take no page faults after the first, the user's choices are respected, and
the values are those computed without it.  Each case runs in a fresh process: the
policy is per process and decided once."""

import json
import os
import platform
import subprocess
import sys
import textwrap

import pytest

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc",
                           reason="the policy acts on glibc's malloc only")

PROGRAM = textwrap.dedent("""
    import json, resource, sys
    import numpy as np
    import s2sad

    def loss(x, w):                  # temporaries of 2 MB each, made and freed per call
        h = np.tanh(x * w)
        return np.sum(np.sin(h) * h + np.exp(-h * h))

    before = s2sad.memory_policy()
    if sys.argv[1] == "off":
        s2sad.keep_freed_memory(False)
    g = s2sad.grad(loss, wrt=1)
    x = np.linspace(0.0, 1.0, 250_000)
    w = np.cos(x)
    first = g(x, w)
    for _ in range(3):               # the heap grows to what a call needs
        g(x, w)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        again = g(x, w)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / 10
    print(json.dumps({"before": before, "policy": s2sad.memory_policy(),
                      "faults": faults, "same": bool(np.array_equal(first, again)),
                      "grad": float(np.sum(again))}))
""")


def run(tmp_path, mode="on", **env):
    full = {k: v for k, v in os.environ.items()
            if not k.startswith("MALLOC_") and k not in ("S2SAD_KEEP_FREED_MEMORY",
                                                          "GLIBC_TUNABLES")}
    full.update(env)
    program = tmp_path / f"program_{len(list(tmp_path.iterdir()))}.py"
    program.write_text(PROGRAM)                 # s2sad reads the function's source
    done = subprocess.run([sys.executable, str(program), mode], env=full,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    return json.loads(out.splitlines()[-1])


@glibc
def test_repeated_calls_take_no_page_faults_once_freed_memory_is_kept(tmp_path):
    kept, left = run(tmp_path), run(tmp_path, S2SAD_KEEP_FREED_MEMORY="0")
    assert kept["before"].startswith("not decided yet")
    assert kept["policy"].startswith("freed memory kept"), kept
    assert left["policy"] == "left as it is: S2SAD_KEEP_FREED_MEMORY=0"
    # each call's 2 MB temporaries: ~500 pages each under glibc's defaults
    assert left["faults"] > 1000, left
    assert kept["faults"] < 50, kept
    assert kept["same"] and left["same"]
    assert kept["grad"] == left["grad"]       # the same operations on the same values


@glibc
@pytest.mark.parametrize("env, why", [
    ({"MALLOC_TRIM_THRESHOLD_": "1000000"}, "MALLOC_TRIM_THRESHOLD_ is set"),
    ({"MALLOC_MMAP_THRESHOLD_": "1000000"}, "MALLOC_MMAP_THRESHOLD_ is set"),
    ({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"}, "GLIBC_TUNABLES sets"),
])
def test_the_users_own_malloc_settings_are_left_alone(tmp_path, env, why):
    got = run(tmp_path, **env)
    assert got["policy"].startswith("left as it is") and why in got["policy"], got


@glibc
def test_keep_freed_memory_false_before_the_first_call_leaves_the_allocator(tmp_path):
    got = run(tmp_path, "off")
    assert got["policy"] == "left as it is: keep_freed_memory(False)"
    assert got["faults"] > 1000, got


def test_the_policy_is_said_in_words_in_this_process():
    import s2sad
    assert isinstance(s2sad.memory_policy(), str) and s2sad.memory_policy()
