"""Upstream's call contract: the GIL is released while a function runs, callbacks
take it again, and Ctrl-C reaches a long call through TVMFFIEnvCheckSignals."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import tvmffi
import tvmffi.cpp

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")

_SRC = r"""
#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <exception>
#include <thread>

namespace ffi = tvm::ffi;

// Sleeps `ms` milliseconds: a long call that needs no CPU.
int64_t sleep_ms(int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ms;
}

// Sleeps up to `ms` milliseconds in 2 ms steps, asking for signals between
// steps (with `raise_first`, after raising SIGINT on this thread).
int64_t sleep_checking_signals(int64_t ms, bool raise_first) {
  if (raise_first) std::raise(SIGINT);
  int64_t slept = 0;
  for (; slept < ms; slept += 2) {
    if (TVMFFIEnvCheckSignals() != 0) throw ffi::EnvErrorAlreadySet();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return slept;
}

// A flag another call sets: wait_flag returns whether it was set within
// `timeout_ms` (the setter runs on another Python thread meanwhile).
std::atomic<bool> g_flag{false};
void set_flag() { g_flag.store(true); }
bool wait_flag(int64_t timeout_ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!g_flag.load()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  g_flag.store(false);
  return true;
}

// f(x) called on a thread of its own, which Python never saw.
ffi::Any call_on_thread(ffi::Function f, ffi::Any x) {
  ffi::Any out;
  std::exception_ptr err;
  std::thread t([&] {
    try {
      out = f(x);
    } catch (...) {
      err = std::current_exception();
    }
  });
  t.join();
  if (err) std::rethrow_exception(err);
  return out;
}
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory: pytest.TempPathFactory) -> tvmffi.Module:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TVM_FFI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return tvmffi.cpp.load_inline(
            "call_contract",
            cpp_sources=_SRC,
            functions=[
                "sleep_ms",
                "sleep_checking_signals",
                "set_flag",
                "wait_flag",
                "call_on_thread",
            ],
        )


def test_release_gil_is_on_by_default_and_settable(mod: tvmffi.Module) -> None:
    f = mod.get_function("sleep_ms")
    assert f.release_gil is True
    f.release_gil = False
    assert f.release_gil is False
    assert mod.get_function("sleep_ms").release_gil is True  # per Function object
    f.release_gil = True
    assert tvmffi.Function(lambda: 1).release_gil is True


def test_environment_switch_sets_the_default() -> None:
    code = (
        "import tvmffi; f = tvmffi.get_global_func('ffi.String');"
        "print(f.release_gil, tvmffi.Function(print).release_gil)"
    )
    for value, want in (("0", "False False"), ("1", "True True"), (None, "True True")):
        env = dict(os.environ)
        env.pop("TVM_FFI_RELEASE_GIL_BY_DEFAULT", None)
        if value is not None:
            env["TVM_FFI_RELEASE_GIL_BY_DEFAULT"] = value
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.split() == want.split(), (value, out.stderr)


def test_another_python_thread_runs_during_a_call(mod: tvmffi.Module) -> None:
    # wait_flag returns True only if set_flag ran, on another Python thread,
    # while wait_flag was running: impossible were the GIL held.
    setter = threading.Thread(target=lambda: (time.sleep(0.05), mod.set_flag()))
    setter.start()
    assert mod.wait_flag(20_000) is True
    setter.join()


def test_held_gil_when_asked(mod: tvmffi.Module) -> None:
    wait = mod.get_function("wait_flag")
    wait.release_gil = False
    started = threading.Event()
    # The setter sleeps first (GIL free) so that wait_flag holds the GIL by the
    # time it wakes, even on a loaded machine.
    setter = threading.Thread(target=lambda: (started.set(), time.sleep(0.5), mod.set_flag()))
    setter.start()
    started.wait()
    assert wait(1500) is False  # set_flag waits for the GIL that wait_flag holds
    setter.join()
    assert mod.wait_flag(0) is True  # it ran once the GIL was free
    mod.set_flag()
    mod.wait_flag(0)


def _throughput(fn: tvmffi.Function, threads: int, calls: int) -> float:
    """Calls per second of `threads` Python threads making `calls` calls in all."""

    def work() -> None:
        for _ in range(calls // threads):
            fn(200)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    start = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return calls / (time.perf_counter() - start)


def test_two_threads_finish_in_the_time_of_one(mod: tvmffi.Module) -> None:
    # A 200 ms kernel that sleeps: the ratio measures the GIL, not the cores.
    fn = mod.sleep_ms
    one, two = _throughput(fn, 1, 4), _throughput(fn, 2, 4)
    assert two >= 1.7 * one, (one, two)
    held = mod.get_function("sleep_ms")
    held.release_gil = False
    one, two = _throughput(held, 1, 4), _throughput(held, 2, 4)
    assert two < 1.3 * one, (one, two)  # the GIL held: one call at a time


def test_callback_on_a_thread_python_never_saw(mod: tvmffi.Module) -> None:
    seen = []

    def cb(x: int) -> int:
        seen.append(threading.get_ident())
        return x * 2

    assert mod.call_on_thread(cb, 21) == 42
    assert seen and seen[0] != threading.get_ident()
    with pytest.raises(ValueError, match="from the thread"):
        mod.call_on_thread(lambda x: (_ for _ in ()).throw(ValueError("from the thread")), 1)


def test_callback_calling_back_into_the_library_does_not_deadlock(mod: tvmffi.Module) -> None:
    # Python -> C++ (no GIL) -> new thread -> Python -> C++ (no GIL) -> new
    # thread -> Python, while another Python thread keeps calling too.
    def inner(x: int) -> int:
        return mod.sleep_ms(x)

    def outer(x: int) -> int:
        return mod.call_on_thread(inner, x) + 1

    stop = threading.Event()
    other = threading.Thread(target=lambda: [mod.sleep_ms(1) for _ in iter(stop.is_set, True)])
    other.start()
    result = []
    runner = threading.Thread(target=lambda: result.append(mod.call_on_thread(outer, 5)))
    runner.daemon = True
    runner.start()
    runner.join(60)
    stop.set()
    other.join(60)
    assert not runner.is_alive(), "deadlock: the nested call never returned"
    assert result == [6]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_sigint_raised_inside_the_call_is_keyboard_interrupt(mod: tvmffi.Module) -> None:
    for release in (True, False):
        fn = mod.get_function("sleep_checking_signals")
        fn.release_gil = release
        with pytest.raises(KeyboardInterrupt):
            fn(60_000, True)
    assert mod.sleep_checking_signals(4, False) == 4  # nothing left pending


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_from_outside_interrupts_a_long_call_promptly(mod: tvmffi.Module) -> None:
    # SIGINT to the process from another Python thread (it runs: the GIL is
    # free) while the main thread is inside a 60 s call.
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            mod.sleep_checking_signals(60_000, False)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30  # well before the call's 60 s
