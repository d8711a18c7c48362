// Thread cancellation through the runtime (issue #43, class 4): glibc cancels
// a thread by unwinding it with abi::__forced_unwind; every catch-all on the
// way (the runtime's C entries, the C++ headers' safe-call wrappers) must let
// it through, or the process aborts with "FATAL: exception not rethrown".
// Each case cancels a thread blocked at a cancellation point inside a call and
// joins it: the thread ends as cancelled and the process goes on.
#include <pthread.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <cstring>
#include <functional>

#if defined(__SANITIZE_ADDRESS__)
#define TVMFFI_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TVMFFI_TEST_ASAN 1
#endif
#endif
#ifdef TVMFFI_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace {
using namespace tvm::ffi;

// AddressSanitizer does not see a forced unwind start (glibc's unwinder is
// not instrumented), so the redzones of the frames it leaves stay poisoned
// and the next throw reports them. Cleared as the unwind passes the blocking
// frame, as a throw from instrumented code would (a test-side limit of ASan,
// not of the runtime).
struct AsanUnwindGuard {
#ifdef TVMFFI_TEST_ASAN
  ~AsanUnwindGuard() {
    __asan_handle_no_return();
  }
#endif
};

// A pipe nobody writes to: read() blocks, and is a cancellation point.
struct Blocker {
  int fds[2] = {-1, -1};
  std::atomic<bool> inside{false};
  Blocker() { REQUIRE(pipe(fds) == 0); }
  ~Blocker() {
    close(fds[0]);
    close(fds[1]);
  }
  void Block() {
    AsanUnwindGuard guard;
    inside.store(true);
    char c;
    for (;;) (void)!read(fds[0], &c, 1);
  }
};

struct Job {
  std::function<void()> body;
};

void* RunJob(void* arg) {
  static_cast<Job*>(arg)->body();
  return nullptr;
}

// Runs `body` on a new thread, cancels it once `blocker` says it is blocked
// inside, and returns whether the thread ended as cancelled.
bool CancelledInside(Blocker* blocker, std::function<void()> body) {
  Job job{std::move(body)};
  pthread_t thread;
  REQUIRE(pthread_create(&thread, nullptr, RunJob, &job) == 0);
  while (!blocker->inside.load()) usleep(1000);
  usleep(1000);  // let it reach read()
  REQUIRE(pthread_cancel(thread) == 0);
  void* ret = nullptr;
  REQUIRE(pthread_join(thread, &ret) == 0);
  return ret == PTHREAD_CANCELED;
}

int BlockingC(void* self, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  static_cast<Blocker*>(self)->Block();
  return 0;
}

TVMFFIObjectHandle MakeCFunction(Blocker* blocker) {
  TVMFFIObjectHandle f = nullptr;
  REQUIRE(TVMFFIFunctionCreate(blocker, BlockingC, nullptr, &f) == 0);
  return f;
}

int CallC(TVMFFIObjectHandle f) {
  TVMFFIAny result;
  std::memset(&result, 0, sizeof(result));
  return TVMFFIFunctionCall(f, nullptr, 0, &result);
}

}  // namespace

TEST_CASE("Cancel: a C callback blocked inside TVMFFIFunctionCall", "[hostile][cancel]") {
  Blocker blocker;
  TVMFFIObjectHandle f = MakeCFunction(&blocker);
  CHECK(CancelledInside(&blocker, [f] { (void)CallC(f); }));
  TVMFFIObjectDecRef(f);
}

TEST_CASE("Cancel: a C callback called through its cell's safe_call", "[hostile][cancel]") {
  Blocker blocker;
  TVMFFIObjectHandle f = MakeCFunction(&blocker);
  CHECK(CancelledInside(&blocker, [f] {
    TVMFFIAny result;
    std::memset(&result, 0, sizeof(result));
    (void)TVMFFIFunctionGetCellPtr(f)->safe_call(f, nullptr, 0, &result);
  }));
  TVMFFIObjectDecRef(f);
}

TEST_CASE("Cancel: a C++ typed function through the C ABI", "[hostile][cancel]") {
  Blocker blocker;
  Function f = Function::FromTyped([&blocker](int64_t x) -> int64_t {
    blocker.Block();
    return x;
  });
  TVMFFIObjectHandle h = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(f);
  CHECK(CancelledInside(&blocker, [h] {
    TVMFFIAny arg;
    std::memset(&arg, 0, sizeof(arg));
    arg.type_index = kTVMFFIInt;
    arg.v_int64 = 1;
    TVMFFIAny result;
    std::memset(&result, 0, sizeof(result));
    (void)TVMFFIFunctionCall(h, &arg, 1, &result);
  }));
}

TEST_CASE("Cancel: a C++ packed function called from C++", "[hostile][cancel]") {
  Blocker blocker;
  Function f = Function::FromPacked([&blocker](PackedArgs, Any*) { blocker.Block(); });
  CHECK(CancelledInside(&blocker, [f] { f(); }));
}

TEST_CASE("Cancel: nested calls, C into C++ into C", "[hostile][cancel]") {
  Blocker blocker;
  TVMFFIObjectHandle inner = MakeCFunction(&blocker);
  Function middle = Function::FromTyped([inner]() { return CallC(inner); });
  TVMFFIObjectHandle mid = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(middle);
  CHECK(CancelledInside(&blocker, [mid] { (void)CallC(mid); }));
  TVMFFIObjectDecRef(inner);
}

TEST_CASE("Cancel: a Function argument called by a typed function", "[hostile][cancel]") {
  Blocker blocker;
  Function inner = Function::FromPacked([&blocker](PackedArgs, Any*) { blocker.Block(); });
  Function apply = Function::FromTyped([](Function g) { return g(); });
  CHECK(CancelledInside(&blocker, [apply, inner] { (void)apply(inner); }));
  // The process is still whole: calls keep working on this thread.
  Function id = Function::FromTyped([](int64_t x) { return x; });
  CHECK(id(41).cast<int64_t>() == 41);
}
