/*
 * `__tvm_ffi__library_bin`: the modules an exporter (TVM's export_library)
 * serialised into a shared library beside its own code, and the import tree
 * that links them. The loader rebuilds them when it first loads the library.
 *
 * The blob (all integers little-endian u64):
 *   nbytes, then nbytes of: indptr (a vector), child indices (a vector), then
 *   one entry per module: its kind (a string) and, unless the kind is "_lib",
 *   its bytes (a string). A vector or string is its length, then its items.
 * Module i imports modules child[indptr[i]] .. child[indptr[i+1]-1]. "_lib"
 * stands for the library's own module; every other kind is rebuilt by the
 * global `ffi.Module.load_from_bytes.<kind>` (registered by the runtime that
 * owns that kind, e.g. TVM's CUDA module).
 */
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include "internal.h"
#include "module_internal.h"

namespace tvmffi {
namespace rt {
namespace module_detail {
namespace {

// A bounded reader over the blob: every read is checked against its size,
// and a length is checked before anything is allocated for it.
class BinReader {
 public:
  BinReader(const unsigned char* data, uint64_t size, const std::string& where)
      : data_(data), size_(size), where_(where) {}

  uint64_t U64(const char* what) {
    if (size_ - pos_ < 8) Bad(what, "ends early");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += 8;
    return v;
  }
  std::vector<uint64_t> Vector(const char* what) {
    uint64_t n = U64(what);
    if (n > (size_ - pos_) / 8) Bad(what, "is longer than the blob");
    std::vector<uint64_t> out(n);
    for (uint64_t i = 0; i < n; ++i) out[i] = U64(what);
    return out;
  }
  std::string Text(const char* what) {
    uint64_t n = U64(what);
    if (n > size_ - pos_) Bad(what, "is longer than the blob");
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  [[noreturn]] void Bad(const char* what, const char* why) const {
    Throw("RuntimeError", where_, ": malformed `__tvm_ffi__library_bin`: ", what, " ", why,
          " (at byte ", pos_, " of ", size_, ")");
  }

 private:
  const unsigned char* data_;
  uint64_t size_;
  uint64_t pos_ = 0;
  const std::string& where_;
};

}  // namespace

void ImportLibraryBin(TVMFFIObject* lib, const void* bin, uint64_t symbol_size,
                      const std::string& where) {
  const auto* bytes = static_cast<const unsigned char*>(bin);
  uint64_t nbytes = 0;
  for (int i = 0; i < 8; ++i) nbytes |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  if (symbol_size != 0 && (symbol_size < 8 || nbytes > symbol_size - 8)) {
    Throw("RuntimeError", where, ": malformed `__tvm_ffi__library_bin`: it says ", nbytes,
          " bytes follow, but the symbol holds ", symbol_size, " in all");
  }
  BinReader in(bytes + 8, nbytes, where);
  std::vector<uint64_t> indptr = in.Vector("the import tree's row pointers");
  std::vector<uint64_t> child = in.Vector("the import tree's children");
  if (indptr.empty() || indptr.front() != 0 || indptr.back() != child.size()) {
    in.Bad("the import tree", "is not a row-pointer array over its children");
  }
  for (size_t i = 1; i < indptr.size(); ++i) {
    if (indptr[i] < indptr[i - 1]) in.Bad("the import tree's row pointers", "decrease");
  }
  const size_t n = indptr.size() - 1;
  std::vector<::tvm::ffi::Module> modules;
  modules.reserve(n);
  bool has_lib = false;
  for (size_t i = 0; i < n; ++i) {
    std::string kind = in.Text("a module kind");
    if (kind == "_lib") {
      has_lib = true;
      IncRef(lib);
      modules.push_back(
          ::tvm::ffi::detail::ObjectUnsafe::ObjectRefFromObjectPtr<::tvm::ffi::Module>(
              ::tvm::ffi::detail::ObjectUnsafe::ObjectPtrFromOwned<::tvm::ffi::Object>(lib)));
      continue;
    }
    std::string payload = in.Text("a module's bytes");
    std::string key = "ffi.Module.load_from_bytes." + kind;
    ::tvm::ffi::Optional<::tvm::ffi::Function> loader = ::tvm::ffi::Function::GetGlobal(key);
    if (!loader.has_value()) {
      Throw("RuntimeError", where, ": its `__tvm_ffi__library_bin` holds a module of kind `", kind,
            "`, but no loader `", key,
            "` is registered (load the runtime that provides that kind first)");
    }
    ::tvm::ffi::Any got = (*loader)(::tvm::ffi::Bytes(payload.data(), payload.size()));
    if (got.type_index() != kTVMFFIModule) {
      Throw("TypeError", where, ": `", key, "` returned `", TypeIndexToKey(got.type_index()),
            "`, expected ffi.Module");
    }
    modules.push_back(got.cast<::tvm::ffi::Module>());
  }
  // The loader hands out the library's own module: it must be the tree's root.
  if (!has_lib || n == 0 ||
      ::tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(modules[0]) != lib) {
    in.Bad("the import tree", "does not have the library itself (\"_lib\") as its root");
  }
  for (size_t i = 0; i < n; ++i) {
    for (uint64_t j = indptr[i]; j < indptr[i + 1]; ++j) {
      if (child[j] >= n) in.Bad("the import tree", "names a module past its end");
      AppendImport(::tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(modules[i]),
                   modules[child[j]]);
    }
  }
}

}  // namespace module_detail
}  // namespace rt
}  // namespace tvmffi
