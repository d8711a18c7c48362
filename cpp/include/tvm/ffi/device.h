/*
 * tvmffi C++ layer: DLDevice helpers (comparison, "cuda:0" formatting).
 */
#ifndef TVM_FFI_DEVICE_H_
#define TVM_FFI_DEVICE_H_

#include <tvm/ffi/base_detail.h>

#include <string>

namespace tvm {
namespace ffi {

/*! \return The short name of a DLPack device type ("cpu", "cuda", ...), or nullptr if unknown. */
inline const char* DLDeviceTypeToString(int32_t device_type) noexcept {
  // Numeric cases: not every dlpack.h version names every enumerator.
  switch (device_type) {
    case 1:
      return "cpu";
    case 2:
      return "cuda";
    case 3:
      return "cuda_host";
    case 4:
      return "opencl";
    case 7:
      return "vulkan";
    case 8:
      return "metal";
    case 9:
      return "vpi";
    case 10:
      return "rocm";
    case 11:
      return "rocm_host";
    case 12:
      return "ext_dev";
    case 13:
      return "cuda_managed";
    case 14:
      return "oneapi";
    case 15:
      return "webgpu";
    case 16:
      return "hexagon";
    case 17:
      return "maia";
    case 18:
      return "trn";
    default:
      return nullptr;
  }
}

/*! \return The device as text, e.g. "cuda:0"; unknown types print as "device(99):0". */
inline std::string DLDeviceToString(DLDevice device) {
  const char* name = DLDeviceTypeToString(static_cast<int32_t>(device.device_type));
  std::string out = name != nullptr
                        ? std::string(name)
                        : "device(" + std::to_string(static_cast<int>(device.device_type)) + ")";
  out += ':';
  out += std::to_string(device.device_id);
  return out;
}

}  // namespace ffi
}  // namespace tvm

/*! \brief Devices are equal when type and id match. */
inline bool operator==(const DLDevice& lhs, const DLDevice& rhs) noexcept {
  return lhs.device_type == rhs.device_type && lhs.device_id == rhs.device_id;
}
inline bool operator!=(const DLDevice& lhs, const DLDevice& rhs) noexcept {
  return !(lhs == rhs);
}

/*!
 * \brief `stream << device` for any std::ostream-like stream (anything with
 *        write(const char*, n)); this header does not include <ostream>. A
 *        template, so it is only instantiated where the stream type is complete.
 */
template <typename Stream, typename T, std::enable_if_t<std::is_same_v<T, DLDevice>, int> = 0>
inline auto operator<<(Stream& os, const T& device)
    -> decltype(os.write(static_cast<const char*>(nullptr), 0)) {
  std::string text = ::tvm::ffi::DLDeviceToString(device);
  return os.write(text.data(), static_cast<std::ptrdiff_t>(text.size()));
}

#endif  // TVM_FFI_DEVICE_H_
