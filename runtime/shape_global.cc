/*
 * The global function "ffi.Shape": (int, int, ...) -> ffi.Shape, so that C
 * callers can build a Shape without the C++ headers.
 *
 * A Shape object made here is the C++ layer's (shape.h MakeEmptyShape): the
 * ShapeObj, then the extents inline; the cell points at them.
 * Negative values are accepted (as upstream: -1 marks an unknown extent);
 * tensors refuse them when they are made (see TVMFFIShapeCell).
 */
#include <tvm/ffi/container/shape.h>

#include "internal.h"
#include "registration.h"

namespace tvmffi {
namespace rt {
namespace {

int ShapeConstructor(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  try {
    if (num_args < 0) Throw("ValueError", "ffi.Shape: negative argument count ", num_args);
    if (num_args > 0 && args == nullptr) Throw("ValueError", "ffi.Shape: `args` is NULL");
    for (int32_t i = 0; i < num_args; ++i) {
      if (args[i].type_index != kTVMFFIInt) {
        Throw("TypeError", "ffi.Shape: argument #", i, " must be an int, got `",
              TypeIndexToKey(args[i].type_index), "`");
      }
    }
    size_t n = static_cast<size_t>(num_args);
    int64_t* data = nullptr;
    ::tvm::ffi::ObjectPtr<::tvm::ffi::ShapeObj> shape =
        ::tvm::ffi::detail::MakeEmptyShape(n, &data);
    for (size_t i = 0; i < n; ++i) data[i] = args[i].v_int64;
    ::tvm::ffi::detail::SetAnyObject(
        result, ::tvm::ffi::detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(shape)));
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

[[maybe_unused]] const bool kShapeGlobalRegistered =
    RegisterBuiltinGlobal("ffi.Shape", ShapeConstructor);

}  // namespace
}  // namespace rt
}  // namespace tvmffi
