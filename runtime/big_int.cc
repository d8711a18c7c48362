/*
 * The runtime's part of BigInt (tvm/ffi/big_int.h): the type attributes that
 * make ffi.BigInt a value (Map keys and AnyEqual by value, ToJSONGraph /
 * FromJSONGraph as decimal text), and the C functions that move an integer's
 * words in and out (c_api.h, TVMFFIBigIntFromByteArray and
 * TVMFFIBigIntGetContentByteArray). Structural equality, hashing, ordering
 * and printing of BigInt live with the other built-in types (reflection.cc,
 * dataclass.cc).
 */
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>

#include "internal.h"
#include "registration.h"

namespace tvm {
namespace ffi {
namespace {

int64_t BigIntAnyHash(const Any& value) {
  return detail::int_ops::BitcastToInt64(value.cast<BigInt>().hash());
}

bool BigIntAnyEqual(const Any& lhs, const Any& rhs) {
  return lhs.cast<BigInt>() == rhs.cast<BigInt>();
}

String BigIntToJSON(const BigInt& value) {
  std::ostringstream os;
  os << value;
  return String(os.str());
}

// One decimal integer, [+-]digits, nothing before or after (upstream's rule).
BigInt BigIntFromJSON(AnyView data) {
  std::optional<String> text = data.try_cast<String>();
  if (!text.has_value()) {
    TVM_FFI_THROW(ValueError) << "ffi.BigInt: the JSON data must be a decimal string, not `"
                              << data.GetTypeKey() << "`";
  }
  std::istringstream is(std::string(text->data(), text->size()));
  BigInt result;
  is >> std::noskipws >> result;
  if (is.fail() || is.peek() != std::char_traits<char>::eof()) {
    TVM_FFI_THROW(ValueError) << "ffi.BigInt: `" << *text << "` is not a decimal integer";
  }
  return result;
}

void RegisterBigIntType() noexcept {
  try {
    namespace refl = reflection;
    // Functions, not function pointers: the one hook form that AnyHash/AnyEqual
    // of every header version call the same way (upstream 0.1.15's pointer form
    // returns a TVMFFIAny, older ones an int64), so a library built against
    // either side's headers finds BigInt Map keys by value.
    refl::TypeAttrDef<detail::BigIntObj>()
        .attr(refl::type_attr::kAnyHash, Function::FromTyped(BigIntAnyHash))
        .attr(refl::type_attr::kAnyEqual, Function::FromTyped(BigIntAnyEqual));
    refl::TypeAttrDef<detail::BigIntObj>()
        .def(refl::type_attr::kDataToJson,
             Function::FromTyped([](BigInt value) { return BigIntToJSON(value); }))
        .def(refl::type_attr::kDataFromJson,
             Function::FromTyped([](AnyView data) { return BigIntFromJSON(data); }));
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register ffi.BigInt: %s", e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

[[maybe_unused]] const bool kBigIntTypeRegistered = (RegisterBigIntType(), true);

}  // namespace
}  // namespace ffi
}  // namespace tvm

using namespace tvmffi::rt;
using ::tvm::ffi::BigInt;
using ::tvm::ffi::detail::BigIntUnsafe;

extern "C" {

int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(out, "TVMFFIBigIntFromByteArray", "out");
  ::tvm::ffi::detail::SetAnyNone(out);
  CheckByteArray(input, "TVMFFIBigIntFromByteArray", "input");
  if (input->size % sizeof(int64_t) != 0) {
    Throw("ValueError", "TVMFFIBigIntFromByteArray: argument `input` must hold whole 64-bit words",
          ", but has ", input->size, " bytes");
  }
  size_t n = input->size / sizeof(int64_t);
  BigInt value;
  if (n <= 1) {
    int64_t word = 0;
    if (n == 1) std::memcpy(&word, input->data, sizeof(word));
    value = BigInt(word);
  } else {
    // Alloc refuses sizes past BigInt::kMaxBits (OverflowError) before allocating.
    auto ptr = BigIntUnsafe::Alloc(n);
    std::memcpy(BigIntUnsafe::GetMutableData(ptr), input->data, input->size);
    value = BigIntUnsafe::Normalize(std::move(ptr));
  }
  ::tvm::ffi::TypeTraits<BigInt>::MoveToAny(std::move(value), out);
  TVM_FFI_SAFE_CALL_END();
}

TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value) {
  if (value == nullptr) {
    SetRaised("ValueError", "TVMFFIBigIntGetContentByteArray: argument `value` is NULL");
    return TVMFFIByteArray{nullptr, 0};
  }
  if ((value->type_index != kTVMFFIInt && value->type_index != kTVMFFIBigInt) ||
      (value->type_index == kTVMFFIBigInt && value->v_obj == nullptr)) {
    try {
      SetRaised("TypeError",
                "TVMFFIBigIntGetContentByteArray: argument `value` must be an int, not `" +
                    ::tvm::ffi::detail::TypeIndexToTypeKey(value->type_index) + "`");
    } catch (...) {
      ::tvm::ffi::detail::RethrowIfForcedUnwind();
      SetRaised("TypeError", "TVMFFIBigIntGetContentByteArray: argument `value` is not an int");
    }
    return TVMFFIByteArray{nullptr, 0};
  }
  BigInt::ArrayView words = BigIntUnsafe::GetArrayView(value);
  return TVMFFIByteArray{reinterpret_cast<const char*>(&words[0]), words.size() * sizeof(int64_t)};
}

}  // extern "C"
