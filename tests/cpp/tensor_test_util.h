// Helpers shared by the tensor-topic tests (test_tensor, test_shape, test_env).
#ifndef TVMFFI_TESTS_TENSOR_TEST_UTIL_H_
#define TVMFFI_TESTS_TENSOR_TEST_UTIL_H_

#include <tvm/ffi/error.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <optional>
#include <string>
#include <utility>

namespace tensor_test {

/*! \brief The tvm::ffi::Error thrown by f, or nullopt when it throws none. */
template <typename F>
std::optional<tvm::ffi::Error> CaptureError(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const tvm::ffi::Error& e) {
    return e;
  }
  return std::nullopt;
}

/*! \brief The strong count of an object handle. */
inline uint32_t StrongCount(const void* handle) {
  return static_cast<uint32_t>(
      __atomic_load_n(&static_cast<const TVMFFIObject*>(handle)->combined_ref_count,
                      __ATOMIC_ACQUIRE) &
      0xFFFFFFFFu);
}

}  // namespace tensor_test

/*!
 * \brief Require that `expr` throws a tvm::ffi::Error of `kind` whose message
 *        contains `substr`.
 */
#define REQUIRE_FFI_ERROR(expr, expected_kind, substr)                                   \
  do {                                                                                   \
    auto tensor_test_err_ = ::tensor_test::CaptureError([&] { (void)(expr); });          \
    REQUIRE(tensor_test_err_.has_value());                                               \
    CHECK(tensor_test_err_->kind() == (expected_kind));                                  \
    CHECK_THAT(tensor_test_err_->message(), Catch::Matchers::ContainsSubstring(substr)); \
  } while (0)

#endif  // TVMFFI_TESTS_TENSOR_TEST_UTIL_H_
