// Fuzz target (b): DLPack import, legacy (TVMFFITensorFromDLPack) and
// versioned (TVMFFITensorFromDLPackVersioned), from fuzzed structs.
//
// Properties: the producer's deleter runs exactly once on every path (failed
// import, or success then export and release); a failure is -1 with a
// ValueError; an imported tensor reports the producer's shape, dtype, device
// and data; `data` is never dereferenced (it points into a PROT_NONE mapping,
// so any read or write faults).
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>
#include <tvm/ffi/c_api.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_util.h"

namespace {

constexpr size_t kGuardBytes = 1 << 16;

// An address range that faults on any access.
char* GuardRegion() {
  static char* base = [] {
    void* p = mmap(nullptr, kGuardBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) fuzz::Fail("mmap of the guard region failed");
    return static_cast<char*>(p);
  }();
  return base;
}

struct Producer {
  int deleted = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

void LegacyDeleter(DLManagedTensor* self) {
  ++static_cast<Producer*>(self->manager_ctx)->deleted;
}
void VersionedDeleter(DLManagedTensorVersioned* self) {
  ++static_cast<Producer*>(self->manager_ctx)->deleted;
}

void FillTensor(FuzzedDataProvider& in, Producer* p, DLTensor* t) {
  std::memset(t, 0, sizeof(*t));
  // ndim: mostly small, sometimes anything (negative, huge).
  int32_t ndim =
      in.ConsumeBool() ? in.ConsumeIntegralInRange<int32_t>(0, 6) : in.ConsumeIntegral<int32_t>();
  size_t room = ndim > 0 ? static_cast<size_t>(ndim > 80 ? 80 : ndim) : 0;
  p->shape.resize(room);
  for (auto& e : p->shape) {
    e = in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(0, 8) : in.ConsumeIntegral<int64_t>();
  }
  bool with_strides = in.ConsumeBool();
  p->strides.resize(with_strides ? room : 0);
  for (auto& e : p->strides) {
    e = in.ConsumeBool() ? in.ConsumeIntegralInRange<int64_t>(-4, 64)
                         : in.ConsumeIntegral<int64_t>();
  }
  // The struct must describe its arrays truthfully: ndim beyond what we made
  // is only passed when the runtime must refuse it before reading (> 64).
  t->ndim = ndim > 80 ? ndim : (ndim > 0 ? static_cast<int32_t>(room) : ndim);
  bool null_shape = in.ConsumeIntegralInRange<int>(0, 15) == 0;
  t->shape = null_shape || room == 0 ? nullptr : p->shape.data();
  t->strides = with_strides && room > 0 ? p->strides.data() : nullptr;
  t->data = in.ConsumeBool()
                ? nullptr
                : GuardRegion() + in.ConsumeIntegralInRange<size_t>(0, kGuardBytes - 1);
  t->byte_offset = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 256)
                                    : in.ConsumeIntegral<uint64_t>();
  t->dtype.code = in.ConsumeIntegral<uint8_t>();
  t->dtype.bits = in.ConsumeIntegral<uint8_t>();
  t->dtype.lanes = in.ConsumeIntegral<uint16_t>();
  t->device.device_type = static_cast<DLDeviceType>(in.ConsumeIntegral<int32_t>());
  t->device.device_id = in.ConsumeIntegral<int32_t>();
}

// An imported tensor must describe exactly what the producer gave.
void CheckImported(TVMFFIObjectHandle h, const DLTensor& src) {
  if (TVMFFIObjectGetTypeIndex(h) != kTVMFFITensor) fuzz::Fail("import did not make a Tensor");
  const DLTensor* t = TVMFFITensorGetDLTensorPtr(h);
  if (t->ndim != src.ndim || t->data != src.data || t->byte_offset != src.byte_offset ||
      t->dtype.code != src.dtype.code || t->dtype.bits != src.dtype.bits ||
      t->dtype.lanes != src.dtype.lanes || t->device.device_type != src.device.device_type ||
      t->device.device_id != src.device.device_id) {
    fuzz::Fail("imported tensor differs from the producer's");
  }
  for (int32_t i = 0; i < t->ndim; ++i) {
    if (t->shape[i] != src.shape[i]) fuzz::Fail("imported shape differs");
    if (src.strides != nullptr && t->strides[i] != src.strides[i]) fuzz::Fail("strides differ");
  }
}

// Export both ways and release the exports; each holds its own reference. A
// read-only tensor (its versioned flags say so) has no legacy export: legacy
// DLPack cannot carry the flag, so that export must be refused.
void ExportAndRelease(TVMFFIObjectHandle h, const DLTensor& src) {
  DLManagedTensorVersioned* versioned = nullptr;
  if (TVMFFITensorToDLPackVersioned(h, &versioned) != 0) {
    fuzz::Fail("ToDLPackVersioned of an imported tensor failed");
  }
  if (versioned->dl_tensor.ndim != src.ndim) fuzz::Fail("versioned export differs");
  const bool read_only = (versioned->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  versioned->deleter(versioned);
  DLManagedTensor* legacy = nullptr;
  if (read_only) {
    if (TVMFFITensorToDLPack(h, &legacy) == 0) fuzz::Fail("legacy export of a read-only tensor");
    fuzz::ExpectRaised("ValueError", "TVMFFITensorToDLPack");
    return;
  }
  if (TVMFFITensorToDLPack(h, &legacy) != 0) fuzz::Fail("ToDLPack of an imported tensor failed");
  if (legacy->dl_tensor.ndim != src.ndim || legacy->dl_tensor.data != src.data) {
    fuzz::Fail("legacy export differs");
  }
  legacy->deleter(legacy);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  bool versioned = in.ConsumeBool();
  bool with_deleter = in.ConsumeIntegralInRange<int>(0, 7) != 0;
  bool null_out = in.ConsumeIntegralInRange<int>(0, 15) == 0;
  int32_t align = in.ConsumeBool() ? (1 << in.ConsumeIntegralInRange<int>(0, 8))
                                   : in.ConsumeIntegral<int32_t>();
  int32_t contiguous = in.ConsumeIntegralInRange<int32_t>(0, 1);
  Producer p;
  DLManagedTensor legacy;
  DLManagedTensorVersioned ver;
  std::memset(&legacy, 0, sizeof(legacy));
  std::memset(&ver, 0, sizeof(ver));
  DLTensor* t = versioned ? &ver.dl_tensor : &legacy.dl_tensor;
  if (versioned) {
    ver.version.major = in.ConsumeBool() ? DLPACK_MAJOR_VERSION : in.ConsumeIntegral<uint32_t>();
    ver.version.minor = in.ConsumeIntegral<uint32_t>();
    ver.flags = in.ConsumeIntegral<uint64_t>();
  }
  FillTensor(in, &p, t);
  legacy.manager_ctx = &p;
  ver.manager_ctx = &p;
  legacy.deleter = with_deleter ? LegacyDeleter : nullptr;
  ver.deleter = with_deleter ? VersionedDeleter : nullptr;

  TVMFFIObjectHandle out = nullptr;
  int rc = versioned
               ? TVMFFITensorFromDLPackVersioned(&ver, align, contiguous, null_out ? nullptr : &out)
               : TVMFFITensorFromDLPack(&legacy, align, contiguous, null_out ? nullptr : &out);
  if (rc != 0) {
    fuzz::ExpectRaised("ValueError",
                       versioned ? "TVMFFITensorFromDLPackVersioned" : "TVMFFITensorFromDLPack");
    if (out != nullptr) fuzz::Fail("a failed import wrote *out");
  } else {
    if (null_out) fuzz::Fail("import with a NULL out succeeded");
    if (p.deleted != 0) fuzz::Fail("the deleter ran while the Tensor is alive");
    CheckImported(out, *t);
    ExportAndRelease(out, *t);
    if (p.deleted != 0) fuzz::Fail("the deleter ran while the Tensor is alive (after export)");
    TVMFFIObjectDecRef(out);
  }
  if (with_deleter && p.deleted != 1) {
    fuzz::Fail("the producer's deleter ran " + std::to_string(p.deleted) + " times");
  }
  return 0;
}
