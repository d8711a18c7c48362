/*
 * tvmffi: the umbrella header of the C++ layer.
 *
 * Includes the C ABI (c_api.h, extra/c_env_api.h), the core C++ headers, the
 * containers, tensors and modules. Like upstream's, it leaves out the opt-in
 * conveniences: extra/stl.h (std::vector, std::map, ... as typed-function
 * arguments) and extra/env.h. It brings <iostream>, because code written for
 * upstream's umbrella uses std::cout with no include of its own. A kernel that
 * wants a lean compile includes container/tensor.h and function.h instead.
 */
#ifndef TVM_FFI_TVM_FFI_H_
#define TVM_FFI_TVM_FFI_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_details.h>
#include <tvm/ffi/cast.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/rvalue_ref.h>
#include <tvm/ffi/string.h>
#include <tvm/ffi/type_traits.h>

// Containers.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/container/variant.h>

// Tensors and shapes (tensor topic).
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>

// Modules: loading kernel libraries (module topic).
#include <tvm/ffi/extra/module.h>

#include <iostream>

#endif  // TVM_FFI_TVM_FFI_H_
