// Raising and catching errors in C++.
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <cstdio>

namespace ffi = tvm::ffi;

int64_t Divide(int64_t a, int64_t b) {
  TVM_FFI_CHECK(b != 0, ValueError) << "cannot divide " << a << " by zero";  // a user error
  TVM_FFI_ICHECK(a >= 0) << "negative dividends are not supported";          // a bug: InternalError
  return a / b;
}

void NotYet() {
  TVM_FFI_THROW(NotImplementedError) << "not yet";
}

int main() {
  ffi::Function divide = ffi::Function::FromTyped(Divide, "divide");
  try {
    divide(1, 0);
  } catch (const ffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());
    // ValueError: Check failed: (b != 0) is false: cannot divide 1 by zero
    std::printf("innermost frame:\n%.*s\n", static_cast<int>(e.backtrace().find('\n')),
                e.backtrace().c_str());  // File ".../errors.cc", line 10, in int64_t Divide(...)
  }
  try {
    divide(1, "zero");  // converting the arguments fails before Divide runs
  } catch (const ffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());
    // TypeError: Mismatched type on argument #1 when calling: `divide(0: int, 1: int) -> int`. ...
  }
  try {
    NotYet();
  } catch (const std::exception& e) {  // ffi::Error is a std::exception
    std::printf("%s\n", e.what());     // the traceback, then "NotImplementedError: not yet"
  }
  return 0;
}
