/*
 * Linked only into a test copy of the runtime (tvmffi_interop_dup): a
 * built-in registered twice through the runtime's one registration path. The
 * second registration must be recorded and reported, not fatal, and the first
 * must stay in place.
 */
#include "registration.h"

namespace {

int ReturnsFirst(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = 1;
  return 0;
}

int ReturnsSecond(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = 2;
  return 0;
}

[[maybe_unused]] const bool kRegistered = [] {
  tvmffi::rt::RegisterBuiltinGlobal("interop.dup", ReturnsFirst);
  tvmffi::rt::RegisterBuiltinGlobal("interop.dup", ReturnsSecond);
  return true;
}();

}  // namespace
