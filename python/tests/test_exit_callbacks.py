"""A library thread calling a Python callback while the interpreter exits (issue #43).

Once finalizing begins, CPython ends a thread that waits for the GIL with
pthread_exit, a forced unwind; a library whose thread catches every
exception without rethrowing turns it into "FATAL: exception not rethrown"
and the process aborts. tvmffi marks the interpreter as exiting from an
atexit handler and lets such calls fail with a RuntimeError instead. Before
the fix, every run of the child below aborted (8 of 8).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tvmffi

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")

_CHILD = textwrap.dedent(
    r'''
    import sys, time, tvmffi, tvmffi.cpp
    src = """
    #include <tvm/ffi/function.h>
    #include <thread>
    // A library thread that calls back until a call fails; it swallows every
    // exception (glibc's forced unwind included: a careless library).
    void spawn(tvm::ffi::Function f) {
      std::thread([f]() {
        for (;;) {
          try {
            f();
          } catch (...) {
            return;
          }
        }
      }).detach();
    }
    """
    mod = tvmffi.cpp.load_inline("exit_spawn", cpp_sources=src, functions=["spawn"],
                                 build_directory=sys.argv[1])
    calls = [0]
    def callback():
        calls[0] += 1
    for _ in range(4):
        mod.spawn(callback)
    while calls[0] < 100:
        time.sleep(0.01)
    print("called back", flush=True)
    '''
)


def test_library_thread_calls_back_while_interpreter_exits(tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(tvmffi.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")]
    )
    for _ in range(3):
        r = subprocess.run(
            [sys.executable, str(script), str(tmp_path / "build")],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        assert "called back" in r.stdout
