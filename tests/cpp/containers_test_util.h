/*
 * Helpers shared by the container tests (test_array/map/variant/tuple/stl.cc).
 */
#ifndef TVMFFI_TESTS_CONTAINERS_TEST_UTIL_H_
#define TVMFFI_TESTS_CONTAINERS_TEST_UTIL_H_

#include <tvm/ffi/tvm_ffi.h>
#include <catch2/catch_test_macros.hpp>

#include <optional>
#include <string>
#include <utility>

namespace containers_test {

/*! \brief Run f, which must throw a tvm::ffi::Error; return (kind, message). */
template <typename F>
std::pair<std::string, std::string> ErrorOf(F&& f) {
  try {
    f();
  } catch (const tvm::ffi::Error& err) {
    return {err.kind(), err.message()};
  }
  FAIL("expected a tvm::ffi::Error, but nothing was thrown");
  return {};
}

/*! \brief The strong count of the object an ObjectRef holds. */
inline int UseCount(const tvm::ffi::ObjectRef& ref) {
  return ref.use_count();
}

/*! \brief An object type for identity / reference-count checks. */
class CounterObj : public tvm::ffi::Object {
 public:
  explicit CounterObj(int* live) : live_(live) { ++*live_; }
  ~CounterObj() { --*live_; }
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("containers_test.Counter", CounterObj, tvm::ffi::Object);

 private:
  int* live_;
};

class Counter : public tvm::ffi::ObjectRef {
 public:
  explicit Counter(int* live) : ObjectRef(tvm::ffi::make_object<CounterObj>(live)) {}
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Counter, tvm::ffi::ObjectRef, CounterObj);
};

}  // namespace containers_test

#endif  // TVMFFI_TESTS_CONTAINERS_TEST_UTIL_H_
