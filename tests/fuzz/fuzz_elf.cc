// Fuzz target (c): the module loader's ELF pre-check, on fuzzed files.
//
// The input is written to a file in a private temporary directory and handed
// to CheckFile below, which must return normally (accept or refuse with a
// clear error) for every file.
//
//  - fuzz_elf_precheck (default): the pre-check alone: the ELF reader the
//    loader runs before dlopen (runtime/elf_check.cc) and the export scan.
//    It never dlopens the fuzzed file.
//  - fuzz_module_load (TVMFFI_FUZZ_ELF_VIA_LOADER): ffi.ModuleLoadFromFile,
//    which dlopens whatever passes the pre-check, constructors included. Not
//    run by CI until the loader refuses damaged libraries (issue #14, items 1
//    and 6: SIGBUS inside dlopen on a truncated library).
//
// Once runtime/elf_check.{h,cc} (wip/reliab) is merged, fuzz_elf_precheck
// fuzzes that pre-check instead, on its own: tests/fuzz/CMakeLists.txt then
// compiles elf_check.cc into the target and defines TVMFFI_FUZZ_HAVE_ELF_CHECK.
#include <tvm/ffi/c_api.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "elf_reader.h"
#include "fuzz_util.h"
#if TVMFFI_FUZZ_HAVE_ELF_CHECK
#include "elf_check.h"
#include "internal.h"
#endif

namespace {

const std::string& TempPath() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/tvmffi_fuzz_elf_XXXXXX";
    if (mkdtemp(&dir[0]) == nullptr) fuzz::Fail("mkdtemp failed");
    return dir + "/input.so";
  }();
  return path;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  // A new inode each time: a library dlopened earlier keeps its own mapping.
  unlink(path.c_str());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) fuzz::Fail("cannot write " + path);
  if (size > 0 && std::fwrite(data, 1, size, f) != size) fuzz::Fail("short write to " + path);
  std::fclose(f);
}

#if TVMFFI_FUZZ_ELF_VIA_LOADER
// ffi.ModuleLoadFromFile(path): 0, or -1 with a RuntimeError.
void CheckFile(const std::string& path) {
  static TVMFFIObjectHandle load = [] {
    TVMFFIByteArray name{"ffi.ModuleLoadFromFile", 22};
    TVMFFIObjectHandle f = nullptr;
    if (TVMFFIFunctionGetGlobal(&name, &f) != 0 || f == nullptr) fuzz::Fail("no loader");
    return f;
  }();
  TVMFFIAny arg;
  arg.type_index = kTVMFFIRawStr;
  arg.zero_padding = 0;
  arg.v_c_str = path.c_str();
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  if (TVMFFIFunctionCall(load, &arg, 1, &result) != 0) {
    fuzz::ExpectRaised("RuntimeError", "ffi.ModuleLoadFromFile");
  } else if (result.type_index >= kTVMFFIStaticObjectBegin) {
    TVMFFIObjectDecRef(result.v_obj);
  }
}
#elif TVMFFI_FUZZ_HAVE_ELF_CHECK
// The loader's own pre-check: the export list, or a RuntimeError.
void CheckFile(const std::string& path) {
  try {
    std::vector<std::string> names = tvmffi::rt::CheckLibraryFile(path, "fuzz");
    if (names.empty()) fuzz::Fail("the pre-check accepted a file with no TVM-FFI export");
  } catch (const tvm::ffi::Error& e) {
    if (e.kind() != "RuntimeError" || e.message().find(path) == std::string::npos) {
      fuzz::Fail("the pre-check refused with `" + e.kind() + ": " + e.message() + "`");
    }
  }
}
#else
// The pre-check as the loader runs it: read the ELF file, then list the
// TVM-FFI exports. Every status is an answer; none may crash.
void CheckFile(const std::string& path) {
  tvmffi::elf::ElfInfo info;
  std::string err, head;
  tvmffi::elf::Status st = tvmffi::elf::ReadElf(path, &info, &err, &head);
  if (st == tvmffi::elf::Status::kOk) {
    std::vector<std::string> names = tvmffi::elf::ExportedFunctionNames(info);
    for (const std::string& n : names) {
      if (n.empty()) fuzz::Fail("an exported function with an empty name");
    }
    (void)tvmffi::elf::TypeName(info.elf_type);
    (void)tvmffi::elf::MachineName(info.machine);
  } else if (st == tvmffi::elf::Status::kNotElf) {
    (void)tvmffi::elf::GuessForeignFormat(reinterpret_cast<const unsigned char*>(head.data()),
                                          head.size());
  } else if (err.empty()) {
    fuzz::Fail("the ELF reader refused a file without saying why");
  }
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = TempPath();
  WriteFile(path, data, size);
  CheckFile(path);
  return 0;
}
