/*
 * tvmffi: a command-line tool for kernel authors.
 *
 *   tvmffi inspect LIB.so            exported functions (signatures from metadata)
 *                                    and the library's ABI needs
 *   tvmffi call LIB.so FUNC ARGS...  call a function and print the result
 *
 * Exit status: 0 on success; 1 when the library or the call fails (the
 * message says why); 2 for a usage error.
 */
#include <dlfcn.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/env.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "arg_parser.h"
#include "elf_reader.h"
#include "tvmffi_standard_symbols.h"

namespace ffi = tvm::ffi;

namespace {

const char* kUsage =
    "usage:\n"
    "  tvmffi inspect LIB.so            list exported functions and the ABI the library needs\n"
    "  tvmffi call LIB.so FUNC ARGS...  call FUNC and print the result\n"
    "  tvmffi --version\n"
    "\n"
    "Arguments of `call`:\n"
    "  42, -7              int             1.5, 2e-3, inf     float\n"
    "  true, false         bool            none               None\n"
    "  f32[1,2,3]          a CPU tensor of float32 (also f64, i8..i64, u8..u64, bool)\n"
    "  f32[[1,2],[3,4]]    a 2-D tensor (nest brackets for more dimensions)\n"
    "  str:TEXT            the string TEXT; any other word is a string as well\n"
    "Tensors passed as arguments are printed again after the call (outputs).\n";

int Fail(const char* cmd, const std::string& msg, int code = 1) {
  std::fprintf(stderr, "tvmffi %s: error: %s\n", cmd, msg.c_str());
  return code;
}

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// ---------------------------------------------------------------------------
// Formatting values
// ---------------------------------------------------------------------------

std::string ShortDType(DLDataType t) {
  const char* p = nullptr;
  switch (t.code) {
    case kDLFloat:
      p = "f";
      break;
    case kDLInt:
      p = "i";
      break;
    case kDLUInt:
      p = "u";
      break;
    case kDLBfloat:
      p = "bf";
      break;
    case kDLBool:
      return "bool";
    default:
      break;
  }
  if (p != nullptr && t.lanes == 1) return p + std::to_string(t.bits);
  TVMFFIAny s;
  if (TVMFFIDataTypeToString(&t, &s) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    return "dtype(" + std::to_string(t.code) + "," + std::to_string(t.bits) + ")";
  }
  std::string out;
  if (s.type_index == kTVMFFISmallStr) {
    out.assign(s.v_bytes, s.small_str_len);
  } else {
    TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(s.v_obj);
    out.assign(b->data, b->size);
    TVMFFIObjectDecRef(s.v_obj);
  }
  return out;
}

std::string DeviceName(DLDevice d) {
  const char* n;
  switch (d.device_type) {
    case kDLCPU:
      n = "cpu";
      break;
    case kDLCUDA:
      n = "cuda";
      break;
    case kDLCUDAHost:
      n = "cuda_host";
      break;
    case kDLROCM:
      n = "rocm";
      break;
    default:
      n = "device";
      break;
  }
  return std::string(n) + ":" + std::to_string(d.device_id);
}

// Shortest "%.*g" that reads back as the same double; always shows it is a float.
std::string FormatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string Quote(const char* data, size_t size) {
  std::string s = "\"";
  for (size_t i = 0; i < size; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    if (c == '"' || c == '\\') {
      s.push_back('\\');
      s.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      s += "\\n";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      s += buf;
    } else {
      s.push_back(static_cast<char>(c));
    }
  }
  return s + "\"";
}

// Element i as a double; *ok is false for a dtype this tool cannot print.
// With base NULL it only checks the dtype.
double ElementAsDouble(const void* base, DLDataType t, int64_t i, bool* ok) {
  *ok = true;
  if (t.lanes != 1) {
    *ok = false;
    return 0;
  }
  const char* p = static_cast<const char*>(base);
#define TVMFFI_CLI_ELEM(CODE, BITS, CT) \
  if (t.code == CODE && t.bits == BITS) \
    return p == nullptr ? 0.0 : static_cast<double>(reinterpret_cast<const CT*>(p)[i]);
  TVMFFI_CLI_ELEM(kDLFloat, 32, float)
  TVMFFI_CLI_ELEM(kDLFloat, 64, double)
  TVMFFI_CLI_ELEM(kDLInt, 8, int8_t)
  TVMFFI_CLI_ELEM(kDLInt, 16, int16_t)
  TVMFFI_CLI_ELEM(kDLInt, 32, int32_t)
  TVMFFI_CLI_ELEM(kDLInt, 64, int64_t)
  TVMFFI_CLI_ELEM(kDLUInt, 8, uint8_t)
  TVMFFI_CLI_ELEM(kDLUInt, 16, uint16_t)
  TVMFFI_CLI_ELEM(kDLUInt, 32, uint32_t)
  TVMFFI_CLI_ELEM(kDLUInt, 64, uint64_t)
  TVMFFI_CLI_ELEM(kDLBool, 8, uint8_t)
#undef TVMFFI_CLI_ELEM
  *ok = false;
  return 0;
}

std::string FormatElement(double v, DLDataType t) {
  if (t.code == kDLBool) return v != 0 ? "true" : "false";
  if (t.code == kDLFloat) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", v);
  return buf;
}

// Prints a compact CPU tensor as nested lists; anything else as a summary.
std::string FormatTensor(const DLTensor& t) {
  std::string shape;
  int64_t numel = 1;
  for (int32_t i = 0; i < t.ndim; ++i) {
    shape += (i == 0 ? "" : ", ") + std::to_string(t.shape[i]);
    numel *= t.shape[i];
  }
  std::string summary =
      "<tensor " + ShortDType(t.dtype) + " shape=(" + shape + ") on " + DeviceName(t.device) + ">";
  bool ok = true;
  ElementAsDouble(nullptr, t.dtype, 0, &ok);
  const int64_t kMaxElements = 256;
  if (t.device.device_type != kDLCPU || !ok || numel > kMaxElements || t.data == nullptr ||
      !ffi::IsContiguous(t)) {
    return summary;
  }
  const char* base = static_cast<const char*>(t.data) + t.byte_offset;
  if (t.ndim == 0)
    return ShortDType(t.dtype) + "(" +
           FormatElement(ElementAsDouble(base, t.dtype, 0, &ok), t.dtype) + ")";
  // Nested brackets, row-major.
  std::string out = ShortDType(t.dtype);
  std::vector<int64_t> idx(t.ndim, 0);
  for (int64_t flat = 0; flat < numel || (numel == 0 && flat == 0); ++flat) {
    if (numel == 0) {
      for (int32_t d = 0; d < t.ndim; ++d) out += "[";
      for (int32_t d = 0; d < t.ndim; ++d) out += "]";
      break;
    }
    // Open brackets for every dimension whose index is at 0 (from the innermost run).
    int32_t open = 0;
    for (int32_t d = t.ndim - 1; d >= 0 && idx[d] == 0; --d) ++open;
    if (flat != 0) out += ", ";
    for (int32_t k = 0; k < open; ++k) out += "[";
    out += FormatElement(ElementAsDouble(base, t.dtype, flat, &ok), t.dtype);
    // Advance the multi-index and close finished dimensions.
    for (int32_t d = t.ndim - 1; d >= 0; --d) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
      out += "]";
    }
  }
  return out;
}

std::string TypeKey(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIObjectDecRef(err);
    return "type#" + std::to_string(type_index);
  }
  return std::string(info->type_key.data, info->type_key.size);
}

std::string FormatValue(const TVMFFIAny& v, int depth = 0) {
  switch (v.type_index) {
    case kTVMFFINone:
      return "None";
    case kTVMFFIInt:
      return std::to_string(v.v_int64);
    case kTVMFFIBool:
      return v.v_int64 ? "true" : "false";
    case kTVMFFIFloat:
      return FormatFloat(v.v_float64);
    case kTVMFFIOpaquePtr: {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "<void* %p>", v.v_ptr);
      return buf;
    }
    case kTVMFFIDataType:
      return ShortDType(v.v_dtype);
    case kTVMFFIDevice:
      return DeviceName(v.v_device);
    case kTVMFFIDLTensorPtr:
      return FormatTensor(*static_cast<DLTensor*>(v.v_ptr));
    case kTVMFFIRawStr:
      return Quote(v.v_c_str, std::strlen(v.v_c_str));
    case kTVMFFISmallStr:
      return Quote(v.v_bytes, v.small_str_len);
    case kTVMFFISmallBytes:
      return "b" + Quote(v.v_bytes, v.small_str_len);
    default:
      break;
  }
  if (v.type_index < kTVMFFIStaticObjectBegin) return "<" + TypeKey(v.type_index) + ">";
  switch (v.type_index) {
    case kTVMFFIStr: {
      TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(v.v_obj);
      return Quote(b->data, b->size);
    }
    case kTVMFFIBytes: {
      TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(v.v_obj);
      return "b" + Quote(b->data, b->size);
    }
    case kTVMFFIError: {
      TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(v.v_obj);
      return std::string(c->kind.data, c->kind.size) + "(" +
             Quote(c->message.data, c->message.size) + ")";
    }
    case kTVMFFITensor:
      return FormatTensor(*TVMFFITensorGetDLTensorPtr(v.v_obj));
    case kTVMFFIShape: {
      TVMFFIShapeCell* s = TVMFFIShapeGetCellPtr(v.v_obj);
      std::string out = "Shape(";
      for (size_t i = 0; i < s->size; ++i) out += (i ? ", " : "") + std::to_string(s->data[i]);
      return out + ")";
    }
    case kTVMFFIArray:
    case kTVMFFIList: {
      if (depth > 8) return "[...]";
      TVMFFISeqCell* s = TVMFFISeqGetCellPtr(v.v_obj);
      const TVMFFIAny* items = static_cast<const TVMFFIAny*>(s->data);
      std::string out = "[";
      for (int64_t i = 0; i < s->size; ++i) {
        if (i == 32) {
          out += ", ...";
          break;
        }
        out += (i ? ", " : "") + FormatValue(items[i], depth + 1);
      }
      return out + "]";
    }
    default:
      return "<" + TypeKey(v.type_index) + ">";
  }
}

// ---------------------------------------------------------------------------
// inspect
// ---------------------------------------------------------------------------

// "name(T0, T1) -> R" from the metadata JSON a library exports.
std::string SignatureFromMetadata(const std::string& name, const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return name + "  (unreadable metadata: " + e.what() + ")";
  }
  if (!doc.is_object()) return name + "  (metadata is not a JSON object)";
  auto args = doc.find("args");
  auto ret = doc.find("ret");
  if (args == doc.end() || !args->is_array() || ret == doc.end() || !ret->is_string()) {
    auto schema = doc.find("type_schema");
    if (schema != doc.end() && schema->is_string()) {
      return name + "  type_schema: " + schema->get<std::string>();
    }
    return name + "  (metadata without a signature)";
  }
  std::string sig = name + "(";
  for (size_t i = 0; i < args->size(); ++i) {
    const nlohmann::json& arg = (*args)[i];
    auto type = arg.is_object() ? arg.find("type") : arg.end();
    bool known = arg.is_object() && type != arg.end() && type->is_string();
    sig += (i ? ", " : "") + (known ? type->get<std::string>() : std::string("?"));
  }
  return sig + ") -> " + ret->get<std::string>();
}

// Whether `name` is one of the standard TVM-FFI 0.1 C symbols
// (runtime/standard_symbols.txt, sorted).
bool IsStandardSymbol(const std::string& name) {
  auto less = [](const char* a, const std::string& b) { return b.compare(a) > 0; };
  const char* const* end = kStandardSymbols + kNumStandardSymbols;
  const char* const* it = std::lower_bound(kStandardSymbols, end, name, less);
  return it != end && name == *it;
}

// A symbol of the C++ runtime (libstdc++ / libsupc++): versioned GLIBCXX_* or
// CXXABI_*, or, unversioned, a mangled name or a C++ ABI entry. Versioned libc
// symbols (__cxa_atexit, __cxa_finalize come from glibc) do not count.
bool IsCxxRuntimeSymbol(const tvmffi::elf::DynSymbol& s) {
  if (StartsWith(s.version, "GLIBCXX") || StartsWith(s.version, "CXXABI")) return true;
  if (!s.version.empty()) return false;
  return StartsWith(s.name, "_Z") ||
         (StartsWith(s.name, "__cxa_") && s.name != "__cxa_finalize" && s.name != "__cxa_atexit") ||
         s.name == "__gxx_personality_v0";
}

int Inspect(const std::string& path) {
  const char* cmd = "inspect";
  tvmffi::elf::ElfInfo info;
  std::string err, head;
  switch (tvmffi::elf::ReadElf(path, &info, &err, &head)) {
    case tvmffi::elf::Status::kOk:
      break;
    case tvmffi::elf::Status::kNotFound:
      return Fail(cmd, "cannot open \"" + path + "\": no such file");
    case tvmffi::elf::Status::kNotRegular:
      return Fail(cmd, "\"" + path + "\" " + err);
    case tvmffi::elf::Status::kIoError:
      return Fail(cmd, "cannot read \"" + path + "\": " + err);
    case tvmffi::elf::Status::kNotElf: {
      std::string what = tvmffi::elf::GuessForeignFormat(
          reinterpret_cast<const unsigned char*>(head.data()), head.size());
      return Fail(cmd, "\"" + path + "\" is not a shared library (" + err +
                           (what.empty() ? std::string() : "; it looks like " + what) + ")");
    }
    case tvmffi::elf::Status::kUnsupported:
    case tvmffi::elf::Status::kMalformed:
      return Fail(cmd, "\"" + path + "\": unsupported or damaged ELF file: " + err);
  }
  std::printf("%s\n", path.c_str());
  std::printf("  file:    ELF %d-bit %s, %s\n", info.elf_class == ELFCLASS64 ? 64 : 32,
              tvmffi::elf::TypeName(info.elf_type), tvmffi::elf::MachineName(info.machine));
  if (!info.soname.empty()) std::printf("  soname:  %s\n", info.soname.c_str());
  if (!info.needed.empty()) {
    std::string needs;
    for (const std::string& n : info.needed) needs += (needs.empty() ? "" : ", ") + n;
    std::printf("  needs:   %s\n", needs.c_str());
  }
  if (info.elf_type != ET_DYN) {
    return Fail(cmd, "\"" + path + "\" is an ELF " + tvmffi::elf::TypeName(info.elf_type) +
                         ", not a shared library");
  }
  bool foreign = info.machine != tvmffi::elf::HostMachine() ||
                 info.elf_class != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32);

  // Functions, with signatures from the metadata when the library loads here.
  std::vector<std::string> names = tvmffi::elf::ExportedFunctionNames(info);
  std::printf("\nFunctions (%zu):\n", names.size());
  ffi::Optional<ffi::Module> mod;
  std::string load_error;
  if (!names.empty() && !foreign) {
    try {
      mod = ffi::Module::LoadFromFile(path);
    } catch (const ffi::Error& e) {
      load_error = e.kind() + ": " + e.message();
    }
  }
  // TVM_FFI_DLL_EXPORT_SHAPE: the functions with a shape function (read from the ELF file).
  std::set<std::string> shape_symbols;
  for (const tvmffi::elf::DynSymbol& s : info.symbols) {
    if (s.defined && StartsWith(s.name, "__tvm_ffi__shape_")) shape_symbols.insert(s.name);
  }
  for (const std::string& n : names) {
    std::string line = n + "  (no metadata)";
    std::string doc, writes;
    if (mod.has_value()) {
      try {
        if (ffi::Optional<ffi::String> m = (*mod)->GetFunctionMetadata(n)) {
          line = SignatureFromMetadata(n, std::string(*m));
        }
        if (ffi::Optional<ffi::String> d = (*mod)->GetFunctionDoc(n)) doc = std::string(*d);
        // TVM_FFI_DLL_EXPORT_WRITES: which arguments it writes (nothing printed when undeclared).
        if (ffi::Optional<ffi::Array<int64_t>> w = (*mod)->GetFunctionWrites(n)) {
          for (int64_t i : *w) writes += (writes.empty() ? "" : ", ") + std::to_string(i);
          writes = writes.empty()
                       ? std::string("writes none of its arguments")
                       : (w->size() == 1 ? "writes argument " : "writes arguments ") + writes;
        }
      } catch (const ffi::Error& e) {
        line = n + "  (metadata failed: " + e.kind() + ": " + e.message() + ")";
      }
    } else if (!foreign && load_error.empty()) {
      line = n;
    }
    std::printf("  %s\n", line.c_str());
    if (!writes.empty()) std::printf("      %s\n", writes.c_str());
    if (shape_symbols.count("__tvm_ffi__shape_" + n) != 0) {
      std::printf("      result shapes: __tvm_ffi__shape_%s\n", n.c_str());
    }
    if (!doc.empty()) {
      size_t nl = doc.find('\n');
      std::printf("      %s\n", doc.substr(0, nl).c_str());
    }
  }

  // What the library needs from the outside world.
  std::vector<std::string> ffi_imports, missing;
  std::vector<const tvmffi::elf::DynSymbol*> cxx, tvm_cxx;
  std::set<std::string> cxx_versions;
  for (const tvmffi::elf::DynSymbol& s : info.symbols) {
    if (s.defined) continue;
    if (StartsWith(s.name, "TVMFFI")) {
      ffi_imports.push_back(s.name);
      if (dlsym(RTLD_DEFAULT, s.name.c_str()) == nullptr) missing.push_back(s.name);
    } else if (StartsWith(s.name, "_ZN3tvm3ffi") || StartsWith(s.name, "_ZNK3tvm3ffi")) {
      tvm_cxx.push_back(&s);
    } else if (IsCxxRuntimeSymbol(s)) {
      cxx.push_back(&s);
      if (!s.version.empty()) cxx_versions.insert(s.version);
    }
  }
  std::sort(ffi_imports.begin(), ffi_imports.end());
  std::printf("\nABI needs:\n");
  std::string list;
  for (const std::string& n : ffi_imports) list += (list.empty() ? "" : ", ") + n;
  std::printf("  TVM-FFI C functions (%zu): %s\n", ffi_imports.size(),
              ffi_imports.empty() ? "none" : list.c_str());
  if (!ffi_imports.empty()) {
    bool links_runtime = false;
    for (const std::string& n : info.needed) {
      links_runtime |= StartsWith(n, "libtvmffi.so") || StartsWith(n, "libtvm_ffi.so");
    }
    if (!links_runtime) {
      std::printf(
          "    note: libtvmffi.so is not among its dependencies; the process must load it first\n");
    }
    if (missing.empty()) {
      std::printf("    all provided by this libtvmffi\n");
    } else {
      std::string m;
      for (const std::string& n : missing) m += (m.empty() ? "" : ", ") + n;
      std::printf("    NOT provided by this libtvmffi: %s\n", m.c_str());
    }
  }
  std::string extensions;
  for (const std::string& n : ffi_imports) {
    if (!IsStandardSymbol(n)) extensions += (extensions.empty() ? "" : ", ") + n;
  }
  if (names.empty()) {
    // Nothing to call: portability is not a question for a non-TVM-FFI library.
    std::printf("  portable: not applicable, the library exports no TVM-FFI function\n");
  } else if (extensions.empty()) {
    std::printf("  portable: yes, imports only standard TVM-FFI 0.1 symbols\n");
  } else {
    std::printf("  portable: no, needs extensions beyond the standard TVM-FFI 0.1 symbols: %s\n",
                extensions.c_str());
  }
  if (cxx.empty()) {
    std::printf("  C++ runtime: none (the library imports only C symbols)\n");
  } else {
    std::string vers;
    for (const std::string& v : cxx_versions) vers += (vers.empty() ? "" : ", ") + v;
    // The shortest names make the most readable examples.
    std::sort(cxx.begin(), cxx.end(), [](const auto* x, const auto* y) {
      return x->name.size() != y->name.size() ? x->name.size() < y->name.size() : x->name < y->name;
    });
    std::string examples;
    for (size_t i = 0; i < cxx.size() && i < 3; ++i) {
      examples += (i ? ", " : "") + cxx[i]->name;
    }
    std::printf("  C++ runtime: yes, %zu symbols%s%s%s (e.g. %s)\n", cxx.size(),
                vers.empty() ? "" : " [", vers.c_str(), vers.empty() ? "" : "]", examples.c_str());
  }
  if (!tvm_cxx.empty()) {
    std::printf("  tvm::ffi C++ symbols: %zu (e.g. %s); libtvmffi exports none of them\n",
                tvm_cxx.size(), tvm_cxx[0]->name.c_str());
  }

  if (names.empty()) {
    return Fail(cmd,
                "\"" + path + "\" exports no TVM-FFI functions (no `__tvm_ffi_<name>` symbol)");
  }
  if (foreign) {
    return Fail(cmd, "\"" + path + "\" is built for " + tvmffi::elf::MachineName(info.machine) +
                         " and cannot be loaded on " +
                         tvmffi::elf::MachineName(tvmffi::elf::HostMachine()));
  }
  if (!load_error.empty()) return Fail(cmd, "cannot load \"" + path + "\": " + load_error);
  if (!missing.empty()) return Fail(cmd, "the library needs TVM-FFI functions this runtime lacks");
  return 0;
}

// ---------------------------------------------------------------------------
// call
// ---------------------------------------------------------------------------

int Call(const std::string& path, const std::string& func, const std::vector<std::string>& toks) {
  const char* cmd = "call";
  std::vector<ffi::Any> args(toks.size());
  for (size_t i = 0; i < toks.size(); ++i) {
    std::string err;
    try {
      if (!tvmffi::cli::ParseArg(toks[i], &args[i], &err)) {
        return Fail(cmd, "argument " + std::to_string(i) + ": " + err, 2);
      }
    } catch (const ffi::Error& e) {
      return Fail(cmd, "argument " + std::to_string(i) + ": " + e.kind() + ": " + e.message());
    }
  }
  // The tool is the host: tensors a kernel allocates with FromEnvAlloc come from here.
  TVMFFIEnvSetDLPackManagedTensorAllocator(ffi::CPUTensorAllocator, 1, nullptr);
  try {
    ffi::Module mod = ffi::Module::LoadFromFile(path);
    ffi::Function f = mod->GetFunctionRequired(func);
    std::vector<ffi::AnyView> views(args.begin(), args.end());
    ffi::Any result;
    f.CallPacked(views.data(), static_cast<int32_t>(views.size()), &result);
    std::printf("%s\n", FormatValue(*ffi::detail::AnyUnsafe::TVMFFIAnyPtrFromAny(result)).c_str());
    for (size_t i = 0; i < args.size(); ++i) {
      const TVMFFIAny* raw = ffi::detail::AnyUnsafe::TVMFFIAnyPtrFromAny(args[i]);
      if (raw->type_index == kTVMFFITensor) {
        std::printf("  arg %zu: %s\n", i, FormatValue(*raw).c_str());
      }
    }
  } catch (const ffi::Error& e) {
    return Fail(cmd, e.kind() + ": " + e.message());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.empty() || a[0] == "-h" || a[0] == "--help" || a[0] == "help") {
    std::fputs(kUsage, a.empty() ? stderr : stdout);
    return a.empty() ? 2 : 0;
  }
  if (a[0] == "--version") {
    TVMFFIVersion v;
    TVMFFIGetVersion(&v);
    std::printf("tvmffi %u.%u.%u (TVM-FFI C ABI)\n", v.major, v.minor, v.patch);
    return 0;
  }
  if (a[0] == "inspect") {
    if (a.size() != 2)
      return Fail("inspect", "expected exactly one library path\n" + std::string(kUsage), 2);
    return Inspect(a[1]);
  }
  if (a[0] == "call") {
    if (a.size() < 3)
      return Fail("call", "expected LIB.so FUNC [ARGS...]\n" + std::string(kUsage), 2);
    return Call(a[1], a[2], std::vector<std::string>(a.begin() + 3, a.end()));
  }
  return Fail(a[0].c_str(), "unknown command `" + a[0] + "`\n" + std::string(kUsage), 2);
}
