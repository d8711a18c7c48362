/*
 * tvmffi C++ layer: the DLDataType of a C++ element type at compile time
 * (upstream 0.1.15's <tvm/ffi/extra/dtype.h>).
 *
 *   static_assert(dtype_trait<float>::value.bits == 32);
 *   TVM_FFI_CHECK(x.dtype() == dtype_trait<__half>::value, TypeError) << "x must be float16";
 *
 * dtype_trait<T>::value is a constexpr DLDataType for the standard integer
 * types (by signedness and size), float, double, bool, and the half, bfloat16,
 * fp8 and fp4 types of CUDA and HIP (declared here, so the toolkit's headers
 * are not needed). Any other T has no `value`: using it does not compile.
 */
#ifndef TVM_FFI_EXTRA_DTYPE_H_
#define TVM_FFI_EXTRA_DTYPE_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <type_traits>

// The device types, declared only: a specialisation needs their names, not their layouts.
struct __half;  // CUDA and HIP
struct __nv_bfloat16;
struct __nv_fp8_e4m3;
struct __nv_fp8_e5m2;
struct __nv_fp8_e8m0;
struct __nv_fp4_e2m1;
struct __nv_fp4x2_e2m1;
struct __hip_bfloat16;
struct hip_bfloat16;
struct __hip_fp8_e4m3;
struct __hip_fp8_e4m3_fnuz;
struct __hip_fp8_e5m2;
struct __hip_fp8_e5m2_fnuz;
struct __hip_fp4_e2m1;
struct __hip_fp4x2_e2m1;

namespace tvm {
namespace ffi {

/*! \brief `value`: the DLDataType of element type T (specialised below; none for other T). */
template <typename T>
struct dtype_trait {};

namespace detail {
namespace dtypes {

/*! \brief The scalar DLDataType of `code` and `bits`. */
template <uint8_t code, uint8_t bits, uint16_t lanes = 1>
struct fixed_trait {
  static constexpr DLDataType value = {code, bits, lanes};
};

/*! \brief An integer type: int or uint by its signedness, its size in bits. */
template <typename T>
struct integer_trait : fixed_trait<static_cast<uint8_t>(std::is_signed_v<T> ? kDLInt : kDLUInt),
                                   static_cast<uint8_t>(sizeof(T) * 8)> {};

/*! \brief A binary floating-point type of its size in bits. */
template <typename T>
struct float_trait
    : fixed_trait<static_cast<uint8_t>(kDLFloat), static_cast<uint8_t>(sizeof(T) * 8)> {};

}  // namespace dtypes
}  // namespace detail

/// \cond Doxygen_Suppress
#define TVM_FFI_DTYPE_TRAIT_(T, ...) \
  template <>                        \
  struct dtype_trait<T> : __VA_ARGS__ {}
#define TVM_FFI_DTYPE_FIXED_(T, CODE, BITS, LANES) \
  TVM_FFI_DTYPE_TRAIT_(T, detail::dtypes::fixed_trait<static_cast<uint8_t>(CODE), BITS, LANES>)

TVM_FFI_DTYPE_TRAIT_(signed char, detail::dtypes::integer_trait<signed char>);
TVM_FFI_DTYPE_TRAIT_(unsigned char, detail::dtypes::integer_trait<unsigned char>);
TVM_FFI_DTYPE_TRAIT_(short, detail::dtypes::integer_trait<short>);
TVM_FFI_DTYPE_TRAIT_(unsigned short, detail::dtypes::integer_trait<unsigned short>);
TVM_FFI_DTYPE_TRAIT_(int, detail::dtypes::integer_trait<int>);
TVM_FFI_DTYPE_TRAIT_(unsigned int, detail::dtypes::integer_trait<unsigned int>);
TVM_FFI_DTYPE_TRAIT_(long, detail::dtypes::integer_trait<long>);
TVM_FFI_DTYPE_TRAIT_(unsigned long, detail::dtypes::integer_trait<unsigned long>);
TVM_FFI_DTYPE_TRAIT_(long long, detail::dtypes::integer_trait<long long>);
TVM_FFI_DTYPE_TRAIT_(unsigned long long, detail::dtypes::integer_trait<unsigned long long>);
TVM_FFI_DTYPE_TRAIT_(float, detail::dtypes::float_trait<float>);
TVM_FFI_DTYPE_TRAIT_(double, detail::dtypes::float_trait<double>);
TVM_FFI_DTYPE_FIXED_(bool, kDLBool, 8, 1);

TVM_FFI_DTYPE_FIXED_(__half, kDLFloat, 16, 1);
TVM_FFI_DTYPE_FIXED_(__nv_bfloat16, kDLBfloat, 16, 1);
TVM_FFI_DTYPE_FIXED_(__nv_fp8_e4m3, kDLFloat8_e4m3fn, 8, 1);
TVM_FFI_DTYPE_FIXED_(__nv_fp8_e5m2, kDLFloat8_e5m2, 8, 1);
TVM_FFI_DTYPE_FIXED_(__nv_fp8_e8m0, kDLFloat8_e8m0fnu, 8, 1);
TVM_FFI_DTYPE_FIXED_(__nv_fp4_e2m1, kDLFloat4_e2m1fn, 4, 1);
TVM_FFI_DTYPE_FIXED_(__nv_fp4x2_e2m1, kDLFloat4_e2m1fn, 4, 2);  // two fp4 in one byte

TVM_FFI_DTYPE_FIXED_(__hip_bfloat16, kDLBfloat, 16, 1);
TVM_FFI_DTYPE_FIXED_(hip_bfloat16, kDLBfloat, 16, 1);
TVM_FFI_DTYPE_FIXED_(__hip_fp8_e4m3, kDLFloat8_e4m3fn, 8, 1);
TVM_FFI_DTYPE_FIXED_(__hip_fp8_e4m3_fnuz, kDLFloat8_e4m3fnuz, 8, 1);
TVM_FFI_DTYPE_FIXED_(__hip_fp8_e5m2, kDLFloat8_e5m2, 8, 1);
TVM_FFI_DTYPE_FIXED_(__hip_fp8_e5m2_fnuz, kDLFloat8_e5m2fnuz, 8, 1);
TVM_FFI_DTYPE_FIXED_(__hip_fp4_e2m1, kDLFloat4_e2m1fn, 4, 1);
TVM_FFI_DTYPE_FIXED_(__hip_fp4x2_e2m1, kDLFloat4_e2m1fn, 4, 2);

#undef TVM_FFI_DTYPE_FIXED_
#undef TVM_FFI_DTYPE_TRAIT_
/// \endcond

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_DTYPE_H_
