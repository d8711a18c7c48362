/*
 * The global function "ffi.Shape": (int, int, ...) -> ffi.Shape, so that C
 * callers can build a Shape without the C++ headers.
 *
 * A Shape object made here is the ABI header, a TVMFFIShapeCell, then the
 * extents inline; the cell points at them (the C++ ShapeObj reads only the cell).
 */
#include "internal.h"
#include "registration.h"

namespace tvmffi {
namespace rt {
namespace {

struct ShapeObject {
  TVMFFIObject header;
  TVMFFIShapeCell cell;
  // followed by cell.size int64_t extents
};
static_assert(offsetof(ShapeObject, cell) == sizeof(TVMFFIObject));
static_assert(sizeof(ShapeObject) % alignof(int64_t) == 0);

void ShapeDeleter(void* self, int flags) {
  // Nothing to destroy: the extents live in the same block.
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeObjectMemory(self);
}

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
    TVMFFIObject* obj =
        AllocObject(sizeof(ShapeObject) + n * sizeof(int64_t), kTVMFFIShape, ShapeDeleter);
    auto* shape = reinterpret_cast<ShapeObject*>(obj);
    auto* data = reinterpret_cast<int64_t*>(shape + 1);
    for (size_t i = 0; i < n; ++i) data[i] = args[i].v_int64;
    shape->cell.data = data;
    shape->cell.size = n;
    result->type_index = kTVMFFIShape;
    result->zero_padding = 0;
    result->v_obj = obj;
    return 0;
  } catch (...) {
    return HandleCurrentException();
  }
}

[[maybe_unused]] const bool kShapeGlobalRegistered =
    RegisterBuiltinGlobal("ffi.Shape", ShapeConstructor);

}  // namespace
}  // namespace rt
}  // namespace tvmffi
