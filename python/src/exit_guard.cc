// Library threads that enter Python while the interpreter exits (issue #43).
// Once Py_FinalizeEx marks the runtime as finalizing, a thread that waits for
// the GIL is ended with pthread_exit: a forced unwind through the library's
// frames, which a library's `catch (...)` that does not rethrow turns into
// "FATAL: exception not rethrown" (the process aborts). So no thread may be
// waiting for the GIL on our account by then: an atexit handler (run before
// finalizing begins) marks the interpreter as exiting and lets the threads
// already inside Python finish (up to kDrainSeconds); from then on a callback
// fails with an ordinary RuntimeError and a deleter leaks its Python object,
// neither touching the GIL.

#include <atomic>
#include <chrono>
#include <thread>

#include "core.h"

namespace tvmffi_py {

namespace {
std::atomic<int> g_in_python{0};
std::atomic<bool> g_exiting{false};
constexpr double kDrainSeconds = 2.0;

void OnExit() {
  g_exiting.store(true);
  Py_BEGIN_ALLOW_THREADS;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(kDrainSeconds);
  // Bounded: a callback that never returns costs at most kDrainSeconds.
  while (g_in_python.load() > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Py_END_ALLOW_THREADS;
}
}  // namespace

bool EnterPython(PyGILState_STATE* g) {
  g_in_python.fetch_add(1);  // before the check: OnExit sees it, or it sees OnExit's flag
  if (g_exiting.load() || !Py_IsInitialized()) {
    g_in_python.fetch_sub(1);
    return false;
  }
  *g = PyGILState_Ensure();
  return true;
}

void LeavePython(PyGILState_STATE g) {
  PyGILState_Release(g);
  g_in_python.fetch_sub(1);
}

void InstallExitGuard() {
  nb::module_::import_("atexit").attr("register")(nb::cpp_function(&OnExit));
}

}  // namespace tvmffi_py
