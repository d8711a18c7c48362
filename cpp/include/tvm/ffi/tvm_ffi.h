/*
 * tvmffi: the umbrella header of the C++ layer.
 *
 * Includes the C ABI (c_api.h, extra/c_env_api.h), the core C++ headers, the
 * containers, tensors, enums and reflection (registry, accessors, access
 * paths, creators, overloads, enum definitions): the set upstream's umbrella
 * has. Like upstream's, it leaves out extra/module.h (include it to load
 * libraries) and the opt-in conveniences: extra/stl.h (std::vector,
 * std::map, ... as typed-function arguments) and extra/env.h.
 *
 * Source compatibility with apache/tvm-ffi: upstream's quickstart and guides
 * use std::cout after including only this header, so it brings <iostream>
 * and <sstream>. It does not bring <functional>, <iomanip>, <map>,
 * <unordered_map>, <memory> or <algorithm>, which upstream's brings by
 * accident of its implementation: code that uses std::function, std::setw,
 * std::map, std::shared_ptr or std::sort includes their headers itself.
 * The headers a kernel includes one by one (function.h, container/tensor.h,
 * extra/c_env_api.h, extra/cuda/...) stay leaner still.
 */
#ifndef TVM_FFI_TVM_FFI_H_
#define TVM_FFI_TVM_FFI_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/cast.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/endian.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/function_detail.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/overload.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/rvalue_ref.h>
#include <tvm/ffi/string.h>
#include <tvm/ffi/type_traits.h>

// Containers.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/container/variant.h>

// Tensors and shapes (tensor topic).
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>

// What upstream's umbrella brings from the standard library that code written
// for it uses with no include of its own: std::cout, std::stringstream.
#include <iostream>
#include <sstream>

#endif  // TVM_FFI_TVM_FFI_H_
