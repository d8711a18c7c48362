// Tests of tvm/ffi/extra/module.h and runtime/module.cc: loading kernel
// libraries, lookups, imports, metadata, errors and lifetimes. The libraries
// come from tests/module/, tests/c_abi/c_callee.c and kernels/cpu/ (paths are
// compile definitions, see tests/runtime/module.cmake).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/env.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace ffi = tvm::ffi;
namespace fs = std::filesystem;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

const char* kLibA = TVMFFI_TEST_LIB_A;
const char* kLibB = TVMFFI_TEST_LIB_B;
const char* kLibNoMeta = TVMFFI_TEST_LIB_NOMETA;
const char* kLibNoExport = TVMFFI_TEST_LIB_NOEXPORT;
const char* kLibStatic = TVMFFI_TEST_LIB_STATIC;
const char* kCCallee = TVMFFI_TEST_C_CALLEE;
const char* kCpuKernels = TVMFFI_TEST_CPU_KERNELS;

// The value the host registers for lib_nometa's `__tvmffi_test_context_hook`.
// Registered before any test runs: a library's symbols are written when it is
// first loaded, and the tests may run in any order.
int g_context_marker = 0;
const bool kContextRegistered = [] {
  return TVMFFIEnvModRegisterContextSymbol("__tvmffi_test_context_hook", &g_context_marker) == 0;
}();

// A scratch directory for files the tests write (removed at exit).
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    path = fs::temp_directory_path() / ("tvmffi_test_module_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};
const fs::path& Scratch() {
  static ScratchDir dir;
  return dir.path;
}

template <typename F>
ffi::Error CatchError(F&& f) {
  try {
    f();
  } catch (const ffi::Error& e) {
    return e;
  }
  FAIL("expected an ffi::Error");
  throw std::logic_error("unreachable");
}

TVMFFIObject* Handle(const ffi::ObjectRef& ref) {
  return ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(ref);
}

// Host memory for tensors the test makes (this binary's own deleter).
struct TestAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t) + 1); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

ffi::Tensor CpuTensor(std::vector<float> values, DLDataType dtype = DLDataType{kDLFloat, 32, 1}) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(TestAlloc(), {static_cast<int64_t>(values.size())},
                                           dtype, DLDevice{kDLCPU, 0});
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype.bits == 32) {
      static_cast<float*>(t.data_ptr())[i] = values[i];
    } else {
      static_cast<double*>(t.data_ptr())[i] = values[i];
    }
  }
  return t;
}

std::vector<float> Values(const ffi::Tensor& t) {
  const float* p = static_cast<const float*>(t.data_ptr());
  return std::vector<float>(p, p + t.numel());
}

}  // namespace

// ---------------------------------------------------------------------------
// Loading and calling
// ---------------------------------------------------------------------------

TEST_CASE("LoadFromFile loads a library and GetFunction calls into it", "[module]") {
  ffi::Module mod = ffi::Module::LoadFromFile(kCpuKernels);
  REQUIRE(std::string(mod->kind()) == "library");
  REQUIRE(mod->GetLibraryPath() == kCpuKernels);
  REQUIRE(mod->GetPropertyMask() == ffi::Module::kRunnable);

  ffi::Optional<ffi::Function> add_int = mod->GetFunction("add_int");
  REQUIRE(add_int.has_value());
  REQUIRE((*add_int)(40, 2).cast<int64_t>() == 42);
  REQUIRE(mod->GetFunctionRequired("greet")("module").cast<ffi::String>() == "Hello, module!");

  // One Function object per name.
  REQUIRE(Handle(*mod->GetFunction("add_int")) == Handle(*add_int));
  REQUIRE(mod->ImplementsFunction("add_one"));
  REQUIRE_FALSE(mod->ImplementsFunction("add_two"));

  ffi::Array<ffi::String> names = mod->ListFunctions();
  std::vector<std::string> got;
  for (const ffi::String& n : names) got.emplace_back(n);
  REQUIRE(got == std::vector<std::string>{"add", "add_bias", "add_int", "add_one", "fill",
                                          "fill_all", "greet", "nop3", "scale", "scale_alloc",
                                          "sum", "sum_all"});
}

TEST_CASE("Loading the same library 100 times yields one Module", "[module]") {
  ffi::Module first = ffi::Module::LoadFromFile(kLibA);
  ffi::Function add = first->GetFunctionRequired("add_int");
  const int base = first.use_count();
  std::vector<ffi::Module> loads;
  for (int i = 0; i < 100; ++i) {
    loads.push_back(ffi::Module::LoadFromFile(kLibA));
    REQUIRE(Handle(loads.back()) == Handle(first));
    ffi::Function f = loads.back()->GetFunctionRequired("add_int");
    REQUIRE(Handle(f) == Handle(add));
    REQUIRE(f(i, 1).cast<int64_t>() == i + 1);
  }
  REQUIRE(first.use_count() == base + 100);
  loads.clear();
  // No reference leaked by the loads (the loader keeps exactly its own one).
  REQUIRE(first.use_count() == base);
}

TEST_CASE("A library reached through two paths is the same Module", "[module]") {
  fs::path link = Scratch() / "lib_a_symlink.so";
  fs::create_symlink(fs::absolute(kLibA), link);
  ffi::Module direct = ffi::Module::LoadFromFile(kLibA);
  ffi::Module via_link = ffi::Module::LoadFromFile(link.string());
  REQUIRE(Handle(direct) == Handle(via_link));
  // The path is the one the library was first loaded from.
  REQUIRE(via_link->GetLibraryPath() == direct->GetLibraryPath());
}

TEST_CASE("Libraries with clashing function names stay apart", "[module]") {
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  ffi::Module b = ffi::Module::LoadFromFile(kLibB);
  REQUIRE(Handle(a) != Handle(b));
  REQUIRE(a->GetFunctionRequired("add_int")(2, 3).cast<int64_t>() == 5);
  REQUIRE(b->GetFunctionRequired("add_int")(2, 3).cast<int64_t>() == 6);
  REQUIRE(a->GetFunctionRequired("whoami")().cast<ffi::String>() == "lib_a");
  REQUIRE(b->GetFunctionRequired("whoami")().cast<ffi::String>() == "lib_b");

  // A copy of lib_a in another file is another library, with its own state.
  fs::path copy = Scratch() / "lib_a_copy.so";
  fs::copy_file(kLibA, copy, fs::copy_options::overwrite_existing);
  ffi::Module a2 = ffi::Module::LoadFromFile(copy.string());
  REQUIRE(Handle(a2) != Handle(a));
  REQUIRE(a2->GetFunctionRequired("whoami")().cast<ffi::String>() == "lib_a");
  ffi::Tensor t = a2->GetFunctionRequired("iota")(3).cast<ffi::Tensor>();
  REQUIRE(a2->GetFunctionRequired("live_tensors")().cast<int64_t>() == 1);
  REQUIRE(a->GetFunctionRequired("live_tensors")().cast<int64_t>() == 0);
}

TEST_CASE("Concurrent loads and lookups agree", "[module]") {
  std::vector<std::thread> threads;
  std::vector<TVMFFIObject*> mods(4), funcs(4);
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        ffi::Module m = ffi::Module::LoadFromFile(kLibB);
        ffi::Function f = m->GetFunctionRequired("whoami");
        if (f().cast<ffi::String>() != "lib_b") bad++;
        mods[t] = Handle(m);
        funcs[t] = Handle(f);
      }
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(bad.load() == 0);
  for (int t = 1; t < 4; ++t) {
    REQUIRE(mods[t] == mods[0]);
    REQUIRE(funcs[t] == funcs[0]);
  }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

TEST_CASE("Missing functions: empty Optional or AttributeError when required", "[module]") {
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  REQUIRE_FALSE(a->GetFunction("no_such_function").has_value());
  ffi::Error e = CatchError([&] { a->GetFunctionRequired("no_such_function"); });
  REQUIRE(e.kind() == "AttributeError");
  REQUIRE_THAT(e.message(), ContainsSubstring("has no function `no_such_function`"));
  REQUIRE_THAT(e.message(), ContainsSubstring(kLibA));
  REQUIRE_THAT(e.message(),
               ContainsSubstring("it exports: add_int, call_back, echo_optional, fail"));

  // The loader's own symbols are never functions.
  ffi::Module b = ffi::Module::LoadFromFile(kLibB);
  REQUIRE_FALSE(b->GetFunction("_library_ctx").has_value());
  REQUIRE_FALSE(b->ImplementsFunction("_library_ctx"));
  REQUIRE_FALSE(b->GetFunction("").has_value());
  ffi::Error reserved = CatchError([&] { b->GetFunctionRequired("_library_ctx"); });
  REQUIRE(reserved.kind() == "AttributeError");
  REQUIRE_THAT(reserved.message(), ContainsSubstring("reserved"));

  // A data symbol named like a function is not one.
  ffi::Module nometa = ffi::Module::LoadFromFile(kLibNoMeta);
  REQUIRE_FALSE(nometa->GetFunction("not_a_function").has_value());
  REQUIRE_FALSE(nometa->ImplementsFunction("not_a_function"));
  REQUIRE(nometa->GetFunctionRequired("twice")(21).cast<int64_t>() == 42);
}

TEST_CASE("Load errors name the file and the reason", "[module]") {
  SECTION("missing file") {
    ffi::Error e = CatchError([] { ffi::Module::LoadFromFile("/nonexistent/dir/libgone.so"); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("\"/nonexistent/dir/libgone.so\""));
    REQUIRE_THAT(e.message(), ContainsSubstring("no such file"));
    REQUIRE_THAT(e.message(), ContainsSubstring("No such file or directory"));
  }
  SECTION("empty path") {
    ffi::Error e = CatchError([] { ffi::Module::LoadFromFile(""); });
    REQUIRE(e.kind() == "ValueError");
    REQUIRE_THAT(e.message(), ContainsSubstring("empty"));
  }
  SECTION("a directory") {
    ffi::Error e = CatchError([] { ffi::Module::LoadFromFile(Scratch().string() + "/"); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("is a directory"));
  }
  SECTION("a text file") {
    fs::path p = Scratch() / "not_a_library.so";
    std::ofstream(p) << "this is not a shared library\n";
    ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(p.string()); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring(p.string()));
    REQUIRE_THAT(e.message(), ContainsSubstring("is not a shared library"));
    REQUIRE_THAT(e.message(), ContainsSubstring("text file"));
  }
  SECTION("an empty file") {
    fs::path p = Scratch() / "empty.so";
    std::ofstream(p).close();
    ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(p.string()); });
    REQUIRE_THAT(e.message(), ContainsSubstring("is not a shared library (the file is empty"));
  }
  SECTION("a static archive") {
    ffi::Error e = CatchError([] { ffi::Module::LoadFromFile(kLibStatic); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("static archive"));
  }
  SECTION("a Mach-O file") {
    fs::path p = Scratch() / "libmac.dylib";
    const unsigned char magic[8] = {0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1};
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(magic), 8);
    ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(p.string()); });
    REQUIRE_THAT(e.message(), ContainsSubstring("Mach-O"));
  }
  SECTION("a truncated ELF file: dlopen's own message") {
    fs::path p = Scratch() / "truncated.so";
    std::ifstream in(kLibA, std::ios::binary);
    std::vector<char> head(200);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(p, std::ios::binary)
        .write(head.data(), static_cast<std::streamsize>(head.size()));
    ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(p.string()); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring(p.string()));
  }
  SECTION("a library without TVM-FFI functions is refused unloaded") {
    ffi::Error e = CatchError([] { ffi::Module::LoadFromFile(kLibNoExport); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("exports no TVM-FFI functions"));
    REQUIRE_THAT(e.message(), ContainsSubstring(kLibNoExport));
    // Its constructor never ran.
    REQUIRE(std::getenv("TVMFFI_TEST_NOEXPORT_CONSTRUCTOR_RAN") == nullptr);
  }
}

// ---------------------------------------------------------------------------
// Damaged files (RELIABILITY.md, defects 1, 6, 11)
// ---------------------------------------------------------------------------

namespace {

std::vector<char> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The copy `name` in the scratch directory, holding `bytes`.
std::string WriteCopy(const std::string& name, const std::vector<char>& bytes, size_t size) {
  fs::path p = Scratch() / name;
  std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(size));
  return p.string();
}

// The ELF headers of a 64-bit library image, edited in place by the tests.
struct ElfImage {
  std::vector<char> bytes;
  Elf64_Ehdr* eh() { return reinterpret_cast<Elf64_Ehdr*>(bytes.data()); }
  Elf64_Phdr* ph(int i) { return reinterpret_cast<Elf64_Phdr*>(bytes.data() + eh()->e_phoff) + i; }
  Elf64_Phdr* FindPh(uint32_t type) {
    for (int i = 0; i < eh()->e_phnum; ++i) {
      if (ph(i)->p_type == type) return ph(i);
    }
    return nullptr;
  }
  // The dynamic entry `tag` (read through its file offset; the test libraries map 1:1 per segment).
  Elf64_Dyn* FindDyn(int64_t tag) {
    Elf64_Phdr* d = FindPh(PT_DYNAMIC);
    auto* dyn = reinterpret_cast<Elf64_Dyn*>(bytes.data() + d->p_offset);
    for (size_t i = 0; i < d->p_filesz / sizeof(Elf64_Dyn) && dyn[i].d_tag != DT_NULL; ++i) {
      if (dyn[i].d_tag == tag) return &dyn[i];
    }
    return nullptr;
  }
  // End of the file bytes the loader maps.
  uint64_t LoadEnd() {
    uint64_t end = 0;
    for (int i = 0; i < eh()->e_phnum; ++i) {
      if (ph(i)->p_type == PT_LOAD)
        end = std::max<uint64_t>(end, ph(i)->p_offset + ph(i)->p_filesz);
    }
    return end;
  }
  void BlankSectionHeaders() {
    eh()->e_shoff = 0;
    eh()->e_shnum = 0;
    eh()->e_shstrndx = 0;
  }
};

// Loads `path`; "" when it raised a RuntimeError naming the path, else what went wrong.
std::string ExpectRefused(const std::string& path) {
  try {
    ffi::Module::LoadFromFile(path);
  } catch (const ffi::Error& e) {
    if (e.kind() == "RuntimeError" && e.message().find(path) != std::string::npos) return "";
    return path + ": " + e.kind() + ": " + e.message();
  }
  return path + ": loaded";
}

}  // namespace

TEST_CASE("Truncated and corrupted libraries are refused, never crash the host", "[module]") {
  const std::vector<char> lib = ReadFile(kLibA);
  REQUIRE(lib.size() > 100 * 1024);
  ElfImage orig{lib};
  REQUIRE(orig.eh()->e_ident[EI_CLASS] == ELFCLASS64);
  std::vector<std::string> failures;
  int cases = 0;
  auto check = [&](const std::string& name, const std::vector<char>& bytes, size_t size) {
    std::string path = WriteCopy(name, bytes, size);
    std::string f = ExpectRefused(path);
    if (!f.empty()) failures.push_back(f);
    fs::remove(path);
    ++cases;
  };
  // Cut points from 2 KB to 100 KB (odd ones too): the section headers lie beyond every cut.
  for (size_t cut = 2048; cut <= 100 * 1024; cut += 1024 + 333 * (cut % 3)) {
    check("cut_" + std::to_string(cut) + ".so", lib, cut);
  }
  // The same with the section headers blanked: only the program headers tell.
  ElfImage blank{lib};
  blank.BlankSectionHeaders();
  for (size_t cut = 2048; cut < blank.LoadEnd(); cut += 1024 + 333 * (cut % 3)) {
    check("blankcut_" + std::to_string(cut) + ".so", blank.bytes, cut);
  }
  // Header fields that point outside the file.
  const uint64_t big = lib.size() + 4096;
  std::vector<std::pair<std::string, void (*)(ElfImage&, uint64_t)>> edits = {
      {"phoff", [](ElfImage& m, uint64_t b) { m.eh()->e_phoff = b; }},
      {"phnum", [](ElfImage& m, uint64_t) { m.eh()->e_phnum = 0xfff0; }},
      {"phentsize", [](ElfImage& m, uint64_t) { m.eh()->e_phentsize = 7; }},
      {"no_phdrs", [](ElfImage& m, uint64_t) { m.eh()->e_phnum = 0; }},
      {"shoff", [](ElfImage& m, uint64_t b) { m.eh()->e_shoff = b; }},
      {"shnum", [](ElfImage& m, uint64_t) { m.eh()->e_shnum = 0xfff0; }},
      {"shentsize", [](ElfImage& m, uint64_t) { m.eh()->e_shentsize = 1; }},
      {"load_offset", [](ElfImage& m, uint64_t b) { m.FindPh(PT_LOAD)->p_offset = b; }},
      {"load_filesz",
       [](ElfImage& m, uint64_t b) {
         Elf64_Phdr* p = m.FindPh(PT_LOAD);
         p->p_filesz = p->p_memsz = b;
       }},
      {"load_filesz_gt_memsz", [](ElfImage& m, uint64_t) { m.FindPh(PT_LOAD)->p_memsz = 1; }},
      {"dynamic_offset", [](ElfImage& m, uint64_t b) { m.FindPh(PT_DYNAMIC)->p_offset = b; }},
      {"dynamic_vaddr", [](ElfImage& m, uint64_t b) { m.FindPh(PT_DYNAMIC)->p_vaddr = b * 16; }},
      {"no_dynamic", [](ElfImage& m, uint64_t) { m.FindPh(PT_DYNAMIC)->p_type = PT_NULL; }},
      {"dynamic_unterminated",
       [](ElfImage& m, uint64_t) { m.FindPh(PT_DYNAMIC)->p_filesz = 2 * sizeof(Elf64_Dyn); }},
      {"strtab", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_STRTAB)->d_un.d_ptr = b * 16; }},
      {"strsz", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_STRSZ)->d_un.d_val = b; }},
      {"symtab", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_SYMTAB)->d_un.d_ptr = b * 16; }},
      {"gnu_hash", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_GNU_HASH)->d_un.d_ptr = b * 16; }},
      {"rela", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_RELA)->d_un.d_ptr = b * 16; }},
      {"relasz", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_RELASZ)->d_un.d_val = b; }},
      {"jmprel", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_JMPREL)->d_un.d_ptr = b * 16; }},
      {"init_array",
       [](ElfImage& m, uint64_t b) { m.FindDyn(DT_INIT_ARRAY)->d_un.d_ptr = b * 16; }},
      {"init", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_INIT)->d_un.d_ptr = b * 16; }},
      {"needed", [](ElfImage& m, uint64_t b) { m.FindDyn(DT_NEEDED)->d_un.d_val = b; }},
      {"syment", [](ElfImage& m, uint64_t) { m.FindDyn(DT_SYMENT)->d_un.d_val = 3; }},
      {"class32", [](ElfImage& m, uint64_t) { m.eh()->e_ident[EI_CLASS] = ELFCLASS32; }},
      {"bigendian", [](ElfImage& m, uint64_t) { m.eh()->e_ident[EI_DATA] = ELFDATA2MSB; }},
      {"machine", [](ElfImage& m, uint64_t) { m.eh()->e_machine = EM_S390; }},
      {"exec", [](ElfImage& m, uint64_t) { m.eh()->e_type = ET_EXEC; }},
  };
  for (int blanked = 0; blanked < 2; ++blanked) {
    for (const auto& edit : edits) {
      // Without a section header table (e_shoff 0) its other fields are not read by anyone.
      if (blanked && edit.first.compare(0, 2, "sh") == 0) continue;
      ElfImage m{lib};
      if (blanked) m.BlankSectionHeaders();
      edit.second(m, big);
      check(edit.first + (blanked ? "_blank" : "") + ".so", m.bytes, m.bytes.size());
    }
  }
  std::string all;
  for (const std::string& f : failures) all += f + "\n";
  INFO(cases << " damaged copies; failures:\n" << all);
  REQUIRE(failures.empty());
  REQUIRE(cases > 150);
}

TEST_CASE("Damage reports say what is wrong", "[module]") {
  const std::vector<char> lib = ReadFile(kLibA);
  ElfImage m{lib};
  m.BlankSectionHeaders();
  std::string p = WriteCopy("cut_report.so", m.bytes, 4096);
  ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(p); });
  REQUIRE(e.kind() == "RuntimeError");
  REQUIRE_THAT(e.message(),
               ContainsSubstring("\"" + p + "\" is a damaged or truncated shared library"));
  REQUIRE_THAT(e.message(), ContainsSubstring("beyond the end of the file"));
  REQUIRE_THAT(e.message(), ContainsSubstring("the file has 4096 bytes"));
}

TEST_CASE("A library whose section headers are blanked is still checked for exports", "[module]") {
  // No TVM-FFI exports, section headers blanked or pointing at garbage: refused unloaded.
  for (int variant = 0; variant < 2; ++variant) {
    ElfImage m{ReadFile(kLibNoExport)};
    if (variant == 0) {
      m.BlankSectionHeaders();
    } else {
      m.eh()->e_shoff = 64;  // inside the file, but the program headers, not sections
      m.eh()->e_shnum = 1;
    }
    std::string p =
        WriteCopy("noexport_blank" + std::to_string(variant) + ".so", m.bytes, m.bytes.size());
    ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(p); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("exports no TVM-FFI functions"));
    REQUIRE(std::getenv("TVMFFI_TEST_NOEXPORT_CONSTRUCTOR_RAN") == nullptr);
  }
  // A real library with blanked section headers loads, its exports found through PT_DYNAMIC.
  ElfImage c{ReadFile(kCCallee)};
  c.BlankSectionHeaders();
  std::string p = WriteCopy("c_callee_blank.so", c.bytes, c.bytes.size());
  ffi::Module mod = ffi::Module::LoadFromFile(p);
  ffi::Array<ffi::String> names = ffi::Function::GetGlobalRequired("ffi.ModuleListFunctions")(mod)
                                      .cast<ffi::Array<ffi::String>>();
  REQUIRE(std::find(names.begin(), names.end(), ffi::String("c_add_one")) != names.end());
}

TEST_CASE("A module path with an embedded NUL is refused, not cut short", "[module]") {
  std::string real = kLibA;
  for (std::string tail : {std::string("\0/nothing", 9), std::string("\0", 1)}) {
    ffi::String path(real + tail);
    ffi::Function by_ext = ffi::Function::GetGlobalRequired("ffi.Module.load_from_file.so");
    for (ffi::Function load :
         {ffi::Function::GetGlobalRequired("ffi.ModuleLoadFromFile"),
          ffi::Function::FromTyped([&](ffi::String p) { return by_ext(p, "so"); })}) {
      ffi::Error e = CatchError([&] { load(path); });
      REQUIRE(e.kind() == "ValueError");
      REQUIRE_THAT(e.message(), ContainsSubstring("NUL"));
      REQUIRE_THAT(e.message(), ContainsSubstring("argument 0 (path)"));
    }
  }
}

TEST_CASE("Module globals check their arguments", "[module]") {
  ffi::Function get = ffi::Function::GetGlobalRequired("ffi.ModuleGetFunction");
  // The typed machinery checks them: the function, the argument, expected and got.
  ffi::Error e1 = CatchError([&] { get(1, "x", false); });
  REQUIRE(e1.kind() == "TypeError");
  REQUIRE_THAT(e1.message(), ContainsSubstring("Mismatched type on argument #0 when calling: "
                                               "`ffi.ModuleGetFunction("));
  REQUIRE_THAT(e1.message(), ContainsSubstring("Expected `ffi.Module` but got `int`"));
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  ffi::Error e2 = CatchError([&] { get(a); });
  REQUIRE(e2.kind() == "TypeError");
  REQUIRE_THAT(e2.message(), ContainsSubstring("Mismatched number of arguments when calling: "
                                               "`ffi.ModuleGetFunction("));
  REQUIRE_THAT(e2.message(), ContainsSubstring("Expected 3 but got 1"));
  ffi::Error e3 = CatchError([&] { get(a, 42, false); });
  REQUIRE_THAT(e3.message(), ContainsSubstring("Mismatched type on argument #1"));
  REQUIRE_THAT(e3.message(), ContainsSubstring("Expected `str` but got `int`"));
  // query_imports accepts bool or int (C callers pass either).
  REQUIRE(get(a, "add_int", 1).cast<ffi::Optional<ffi::Function>>().has_value());

  ffi::Function load = ffi::Function::GetGlobalRequired("ffi.Module.load_from_file.so");
  REQUIRE(Handle(load(kLibA, "so").cast<ffi::Module>()) == Handle(a));
}

TEST_CASE("Loaders for other file extensions are dispatched by LoadFromFile", "[module]") {
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  ffi::Function::SetGlobal(
      "ffi.Module.load_from_file.tvmffitest",
      ffi::Function::FromTyped([a](ffi::String path, ffi::String format) -> ffi::Module {
        REQUIRE(format == "tvmffitest");
        REQUIRE_THAT(std::string(path), ContainsSubstring("x.tvmffitest"));
        return a;
      }),
      true);
  REQUIRE(Handle(ffi::Module::LoadFromFile("x.tvmffitest")) == Handle(a));
  ffi::Function::SetGlobal("ffi.Module.load_from_file.tvmffibad",
                           ffi::Function::FromTyped([](ffi::String, ffi::String) { return 1; }),
                           true);
  ffi::Error e = CatchError([] { ffi::Module::LoadFromFile("x.tvmffibad"); });
  REQUIRE(e.kind() == "TypeError");
  REQUIRE_THAT(e.message(), ContainsSubstring("expected ffi.Module"));
  ffi::Function::RemoveGlobal("ffi.Module.load_from_file.tvmffitest");
  ffi::Function::RemoveGlobal("ffi.Module.load_from_file.tvmffibad");
}

TEST_CASE("Errors raised inside a library reach the caller", "[module]") {
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  ffi::Function fail = a->GetFunctionRequired("fail");
  ffi::Error e = CatchError([&] { fail("because"); });
  REQUIRE(e.kind() == "ValueError");
  REQUIRE(e.message() == "lib_a refuses: because");
  // Argument conversion errors name the exported function.
  ffi::Error e2 = CatchError([&] { a->GetFunctionRequired("add_int")(1, "two"); });
  REQUIRE(e2.kind() == "TypeError");
  REQUIRE_THAT(e2.message(), ContainsSubstring("add_int(0: int, 1: int) -> int"));
  REQUIRE_THAT(e2.message(), ContainsSubstring("argument #1"));
  // Optional parameters take None.
  ffi::Function echo = a->GetFunctionRequired("echo_optional");
  REQUIRE(echo(nullptr, "n=").cast<ffi::String>() == "n=");
  REQUIRE(echo(7, "n=").cast<ffi::String>() == "n=7");
}

namespace {
// The kind of the error a failed TVMFFIFunctionCall left raised.
std::string CallThroughCAndTakeKind(const ffi::Function& f, std::vector<ffi::AnyView> args) {
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  int rc = TVMFFIFunctionCall(Handle(f), reinterpret_cast<TVMFFIAny*>(args.data()),
                              static_cast<int32_t>(args.size()), &result);
  REQUIRE(rc == -1);
  return ffi::detail::MoveFromSafeCallRaised().kind();
}
}  // namespace

TEST_CASE("An error keeps its kind across every boundary", "[module][error]") {
  // A runtime built-in that raises: KeyError through the C ABI and through C++.
  ffi::Function metadata = ffi::Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  REQUIRE(CallThroughCAndTakeKind(metadata, {ffi::AnyView("no.such.function")}) == "KeyError");
  REQUIRE(CatchError([&] { metadata("no.such.function"); }).kind() == "KeyError");

  // A C++ safe_call given to TVMFFIFunctionCreate that throws instead of
  // returning -1: the runtime's trampoline keeps the kind.
  TVMFFIObjectHandle raw = nullptr;
  REQUIRE(TVMFFIFunctionCreate(
              nullptr,
              [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) -> int {
                throw ffi::Error("IndexError", "thrown through the C trampoline");
              },
              nullptr, &raw) == 0);
  ffi::Function throwing = ffi::detail::ObjectUnsafe::ObjectRefFromObjectPtr<ffi::Function>(
      ffi::detail::ObjectUnsafe::ObjectPtrFromOwned<ffi::Object>(static_cast<TVMFFIObject*>(raw)));
  REQUIRE(CallThroughCAndTakeKind(throwing, {}) == "IndexError");
  REQUIRE(CatchError([&] { throwing(); }).kind() == "IndexError");

  // A kernel library's function that throws a custom kind.
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  ffi::Function raise = a->GetFunctionRequired("raise_kind");
  REQUIRE(CallThroughCAndTakeKind(raise, {ffi::AnyView("LibAError"), ffi::AnyView("y")}) ==
          "LibAError");
  ffi::Error e = CatchError([&] { raise("LibAError", "from lib_a"); });
  REQUIRE(e.kind() == "LibAError");
  REQUIRE(e.message() == "from lib_a");

  // Host -> kernel library -> host callback that throws -> kernel -> host.
  ffi::Function call_back = a->GetFunctionRequired("call_back");
  ffi::Function host = ffi::Function::FromTyped([](int64_t x) -> int64_t {
    if (x < 0) throw ffi::Error("HostError", "negative");
    return x * 2;
  });
  REQUIRE(call_back(host, 20).cast<int64_t>() == 41);
  ffi::Error nested = CatchError([&] { call_back(host, -1); });
  REQUIRE(nested.kind() == "HostError");
  REQUIRE(nested.message() == "negative");
  REQUIRE(CallThroughCAndTakeKind(call_back, {ffi::AnyView(host), ffi::AnyView(-1)}) ==
          "HostError");

  // A C callee raising through TVMFFIErrorSetRaisedFromCStrParts, read by C++.
  ffi::Module callee = ffi::Module::LoadFromFile(kCCallee);
  ffi::Function c_sum = callee->GetFunctionRequired("c_sum");
  REQUIRE(CatchError([&] { c_sum(1); }).kind() == "TypeError");
  REQUIRE(CallThroughCAndTakeKind(c_sum, {ffi::AnyView(1)}) == "TypeError");

  // Other exceptions leaving a C++ function at the C boundary: std::bad_alloc
  // is a MemoryError, any other std::exception an InternalError.
  ffi::Function oom =
      ffi::Function::FromPacked([](ffi::PackedArgs, ffi::Any*) { throw std::bad_alloc(); });
  REQUIRE(CallThroughCAndTakeKind(oom, {}) == "MemoryError");
  ffi::Function std_error = ffi::Function::FromPacked(
      [](ffi::PackedArgs, ffi::Any*) { throw std::runtime_error("plain std exception"); });
  REQUIRE(CallThroughCAndTakeKind(std_error, {}) == "InternalError");
  // ... and a kernel library sees them with those kinds when it calls the host.
  ffi::Function std_error_to_int = ffi::Function::FromTyped(
      [](int64_t) -> int64_t { throw std::runtime_error("plain std exception"); });
  ffi::Error internal = CatchError([&] { call_back(std_error_to_int, 1); });
  REQUIRE(internal.kind() == "InternalError");
  REQUIRE(internal.message() == "plain std exception");
}

// ---------------------------------------------------------------------------
// Lifetime
// ---------------------------------------------------------------------------

TEST_CASE("What a library made stays valid after its Module is dropped", "[module]") {
  ffi::Function iota, live, long_string, adder;
  ffi::Tensor t;
  ffi::String s;
  ffi::Array<ffi::String> names;
  int64_t live_before = 0;
  {
    ffi::Module mod = ffi::Module::LoadFromFile(kLibA);
    iota = mod->GetFunctionRequired("iota");
    live = mod->GetFunctionRequired("live_tensors");
    long_string = mod->GetFunctionRequired("long_string");
    live_before = live().cast<int64_t>();
    t = iota(5).cast<ffi::Tensor>();
    s = long_string(20).cast<ffi::String>();
    names = mod->GetFunctionRequired("names")(3).cast<ffi::Array<ffi::String>>();
    adder = mod->GetFunctionRequired("make_adder")(10).cast<ffi::Function>();
  }  // the caller's last Module reference is gone here

  // Objects made earlier are intact...
  REQUIRE(Values(t) == std::vector<float>{0, 1, 2, 3, 4});
  REQUIRE_THAT(std::string(s), StartsWith("made by lib_a: 0 1 2"));
  REQUIRE(names.size() == 3);
  REQUIRE(names[2] == "lib_a name number 2");
  // ...functions still run, including a closure made by the library...
  REQUIRE(adder(5).cast<int64_t>() == 15);
  ffi::Tensor t2 = iota(3).cast<ffi::Tensor>();
  REQUIRE(Values(t2) == std::vector<float>{0, 1, 2});
  REQUIRE(live().cast<int64_t>() == live_before + 2);
  // ...and freeing runs the library's own deleters.
  t = ffi::Tensor(nullptr);
  t2 = ffi::Tensor(nullptr);
  REQUIRE(live().cast<int64_t>() == live_before);
  s = ffi::String();
  names = ffi::Array<ffi::String>();
  adder = ffi::Function(nullptr);
  iota = ffi::Function(nullptr);
  REQUIRE(live().cast<int64_t>() == live_before);
}

TEST_CASE("Objects outlive the Module through the C API too", "[module]") {
  // Load, take a function, release the module handle, call, release all.
  TVMFFIByteArray load_name{"ffi.ModuleLoadFromFile", 22};
  TVMFFIObjectHandle load = nullptr;
  REQUIRE(TVMFFIFunctionGetGlobal(&load_name, &load) == 0);
  TVMFFIAny args[3];
  args[0].type_index = kTVMFFIRawStr;
  args[0].zero_padding = 0;
  args[0].v_c_str = kLibA;
  TVMFFIAny mod;
  mod.type_index = kTVMFFINone;
  REQUIRE(TVMFFIFunctionCall(load, args, 1, &mod) == 0);
  REQUIRE(mod.type_index == kTVMFFIModule);
  TVMFFIObjectHandle fn = nullptr;
  {
    ffi::Function get = ffi::Function::GetGlobalRequired("ffi.ModuleGetFunction");
    ffi::Any f = get(ffi::AnyView::CopyFromTVMFFIAny(mod), "long_string", false);
    fn = Handle(f.cast<ffi::Function>());
    TVMFFIObjectIncRef(fn);
  }
  TVMFFIObjectDecRef(mod.v_obj);
  args[0].type_index = kTVMFFIInt;
  args[0].v_int64 = 4;
  TVMFFIAny out;
  out.type_index = kTVMFFINone;
  REQUIRE(TVMFFIFunctionCall(fn, args, 1, &out) == 0);
  REQUIRE(out.type_index == kTVMFFIStr);
  TVMFFIByteArray* bytes = TVMFFIBytesGetByteArrayPtr(out.v_obj);
  REQUIRE(std::string(bytes->data, bytes->size) == "made by lib_a: 0 1 2 3");
  TVMFFIObjectDecRef(out.v_obj);
  TVMFFIObjectDecRef(fn);
  TVMFFIObjectDecRef(load);
}

// ---------------------------------------------------------------------------
// Imports
// ---------------------------------------------------------------------------

TEST_CASE("TVMFFIEnvModLookupFromImports between two libraries", "[module]") {
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  ffi::Module b = ffi::Module::LoadFromFile(kLibB);

  // The loader wrote the module handle into lib_b's __tvm_ffi__library_ctx.
  REQUIRE(b->GetFunctionRequired("library_ctx")().cast<void*>() == Handle(b));

  ffi::Function lookup = b->GetFunctionRequired("lookup_from_imports");
  ffi::Error missing = CatchError([&] { lookup("sub_int", 1, 2); });
  REQUIRE(missing.kind() == "AttributeError");
  REQUIRE_THAT(missing.message(),
               ContainsSubstring("Function `sub_int` is not found in the imports"));
  REQUIRE_THAT(missing.message(), ContainsSubstring(kLibB));

  if (b->imports().empty()) b->ImportModule(a);
  REQUIRE(b->imports().size() == 1);
  REQUIRE(Handle(b->imports()[0].cast<ffi::Module>()) == Handle(a));

  // lib_b's own add_int multiplies; the imported one (lib_a's) adds.
  REQUIRE(b->GetFunctionRequired("add_int")(2, 3).cast<int64_t>() == 6);
  REQUIRE(b->GetFunctionRequired("add_int_from_imports")(2, 3).cast<int64_t>() == 5);
  REQUIRE(b->GetFunctionRequired("add_int_from_imports")(20, 22).cast<int64_t>() == 42);
  REQUIRE(lookup("add_int", 1, 2).cast<int64_t>() == 3);

  // query_imports: own functions first, then the imports.
  REQUIRE_FALSE(b->GetFunction("iota").has_value());
  REQUIRE(b->GetFunction("iota", /*query_imports=*/true).has_value());
  REQUIRE(b->ImplementsFunction("iota", true));
  REQUIRE(b->GetFunction("add_int", true).value()(2, 3).cast<int64_t>() == 6);
  REQUIRE(b->GetFunctionDoc("add_int", true).value() == "Add two integers (lib_a).\nSecond line.");

  // Cycles are refused.
  ffi::Error cycle = CatchError([&] { a->ImportModule(b); });
  REQUIRE(cycle.kind() == "RuntimeError");
  REQUIRE_THAT(cycle.message(), ContainsSubstring("import cycle"));
  ffi::Error self = CatchError([&] { a->ImportModule(a); });
  REQUIRE_THAT(self.message(), ContainsSubstring("import cycle"));

  // Bad contexts are reported, not dereferenced blindly.
  TVMFFIObjectHandle out = nullptr;
  REQUIRE(TVMFFIEnvModLookupFromImports(nullptr, "add_int", &out) == -1);
  ffi::Error null_ctx = CatchError([] { ffi::detail::ThrowRaisedError(-1); });
  REQUIRE(null_ctx.kind() == "ValueError");
  ffi::Function not_a_module = a->GetFunctionRequired("whoami");
  REQUIRE(TVMFFIEnvModLookupFromImports(Handle(not_a_module), "add_int", &out) == -1);
  ffi::Error wrong_ctx = CatchError([] { ffi::detail::ThrowRaisedError(-1); });
  REQUIRE(wrong_ctx.kind() == "TypeError");
  REQUIRE_THAT(wrong_ctx.message(), ContainsSubstring("library_ctx must be an ffi.Module"));
}

TEST_CASE("The C callee uses its library context to call an import", "[module]") {
  ffi::Module callee = ffi::Module::LoadFromFile(kCCallee);
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  REQUIRE(callee->GetFunctionRequired("c_library_ctx")().cast<void*>() == Handle(callee));
  ffi::Function call_import = callee->GetFunctionRequired("c_add_int_from_imports");
  if (callee->imports().empty()) {
    ffi::Error e = CatchError([&] { call_import(1, 2); });
    REQUIRE(e.kind() == "AttributeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("`add_int`"));
    callee->ImportModule(a);
  }
  REQUIRE(call_import(2, 40).cast<int64_t>() == 42);
  ffi::Error e = CatchError([&] { call_import(1, "x"); });
  REQUIRE(e.kind() == "TypeError");
  REQUIRE(e.message() == "c_add_int_from_imports: both arguments must be int");
}

TEST_CASE("The C callee checks tensors it receives as DLTensor* or objects", "[module]") {
  ffi::EnvTensorAllocatorGuard allocator(ffi::CPUTensorAllocator);
  ffi::Module callee = ffi::Module::LoadFromFile(kCCallee);
  ffi::Function add_one = callee->GetFunctionRequired("c_add_one");
  ffi::Tensor x = CpuTensor({1, 2, 3});
  ffi::Tensor y = CpuTensor({0, 0, 0});
  add_one(x, y);  // as tensor objects
  REQUIRE(Values(y) == std::vector<float>{2, 3, 4});
  ffi::TensorView xv = x;
  ffi::TensorView yv = y;
  add_one(y, xv);  // TensorView goes in as a borrowed DLTensor*
  REQUIRE(Values(x) == std::vector<float>{3, 4, 5});
  (void)yv;
  REQUIRE(callee->GetFunctionRequired("c_sum")(x).cast<double>() == 12.0);

  ffi::Error e1 = CatchError([&] { add_one(x, 1); });
  REQUIRE(e1.kind() == "TypeError");
  REQUIRE(e1.message() ==
          "c_add_one: argument #1 (y) must be a tensor (DLTensor* or ffi.Tensor), got int");
  ffi::Error e2 = CatchError([&] { add_one(x); });
  REQUIRE(e2.message() == "c_add_one: expected 2 arguments, got 1");
  ffi::Error e3 = CatchError([&] { add_one(x, CpuTensor({0, 0})); });
  REQUIRE(e3.kind() == "ValueError");
  REQUIRE(e3.message() == "c_add_one: `x` and `y` must have the same shape");
  ffi::Error e4 = CatchError([&] {
    add_one(x, CpuTensor({0, 0, 0}, DLDataType{kDLFloat, 64, 1}));
  });
  REQUIRE(e4.kind() == "TypeError");
  REQUIRE(e4.message() == "c_add_one: `y` must be float32");
  // A C library has no metadata.
  REQUIRE_FALSE(callee->GetFunctionMetadata("c_add_one").has_value());
}

// ---------------------------------------------------------------------------
// Metadata and docs
// ---------------------------------------------------------------------------

TEST_CASE("Metadata JSON format and round trip", "[module]") {
  ffi::Module mod = ffi::Module::LoadFromFile(kCpuKernels);

  // The exact text for a simple signature (the format is a stable contract).
  ffi::Optional<ffi::String> add_int = mod->GetFunctionMetadata("add_int");
  REQUIRE(add_int.has_value());
  REQUIRE(std::string(*add_int) ==
          R"({"name":"add_int","args":[{"index":0,"type":"int"},{"index":1,"type":"int"}],)"
          R"("ret":"int","type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":)"
          R"([{\"type\":\"int\"}],\"params\":[{\"type\":\"int\"},{\"type\":\"int\"}]}}"})");

  struct Expect {
    const char* name;
    std::vector<std::string> args;
    std::string ret;
  };
  const std::vector<Expect> expected = {
      {"add_one", {"DLTensor*", "DLTensor*"}, "None"},
      {"scale", {"DLTensor*", "DLTensor*", "float"}, "None"},
      {"add", {"DLTensor*", "DLTensor*", "Optional<DLTensor*>"}, "None"},
      {"scale_alloc", {"DLTensor*", "float"}, "ffi.Tensor"},
      {"greet", {"str"}, "str"},
      {"sum", {"DLTensor*"}, "float"},
  };
  for (const Expect& ex : expected) {
    INFO(ex.name);
    ffi::Optional<ffi::String> text = mod->GetFunctionMetadata(ex.name);
    REQUIRE(text.has_value());
    // ordered_json keeps the members in document order.
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(std::string(*text));
    REQUIRE(doc.is_object());
    REQUIRE(doc.size() == 4);
    REQUIRE(doc.begin().key() == "name");
    REQUIRE(doc.at("name") == ex.name);
    const nlohmann::ordered_json& args = doc.at("args");
    REQUIRE(args.is_array());
    REQUIRE(args.size() == ex.args.size());
    for (size_t i = 0; i < ex.args.size(); ++i) {
      REQUIRE(args[i].at("index") == i);
      REQUIRE(args[i].at("type") == ex.args[i]);
    }
    REQUIRE(doc.at("ret") == ex.ret);
    // type_schema is itself JSON (upstream 0.1.15's form):
    // {"type":"ffi.Function","named_args":{"return":[ret],"params":[args...]}}.
    nlohmann::json schema = nlohmann::json::parse(doc.at("type_schema").get<std::string>());
    REQUIRE(schema.at("type") == "ffi.Function");
    REQUIRE(schema.at("named_args").at("return").size() == 1);
    REQUIRE(schema.at("named_args").at("params").size() == ex.args.size());
  }
  // Optional is nested in the schema.
  nlohmann::json doc = nlohmann::json::parse(std::string(*mod->GetFunctionMetadata("add")));
  nlohmann::json schema = nlohmann::json::parse(doc.at("type_schema").get<std::string>());
  const nlohmann::json& opt = schema.at("named_args").at("params").at(2);
  REQUIRE(opt.at("type") == "Optional");
  REQUIRE(opt.at("args").at(0).at("type") == "DLTensor*");

  REQUIRE_FALSE(mod->GetFunctionMetadata("no_such_function").has_value());
  REQUIRE(mod->GetFunctionDoc("add_one").value() == "y = x + 1 (float32/float64, CPU, same shape)");
}

TEST_CASE("JSON strings in metadata are escaped", "[module]") {
  std::string s;
  const std::string nasty =
      "a\"b\\c\nd\te\x01"
      "f/g\xc3\xa9";
  ffi::detail::AppendJSONString(&s, nasty);
  REQUIRE(s == "\"a\\\"b\\\\c\\nd\\te\\u0001f\\/g\xc3\xa9\"");
  REQUIRE(nlohmann::json::parse(s) == nasty);
}

TEST_CASE("The JSON escaper escapes every control character (RFC 8259)", "[module]") {
  // All of U+0000..U+001F must be escaped; a strict parser refuses them raw.
  std::string all;
  for (int c = 0; c < 0x20; ++c) all.push_back(static_cast<char>(c));
  all += "\x7f\"\\end";
  std::string s;
  ffi::detail::AppendJSONString(&s, all);
  for (size_t i = 0; i < s.size(); ++i) {
    INFO("byte " << i);
    REQUIRE(static_cast<unsigned char>(s[i]) >= 0x20);
  }
  REQUIRE(nlohmann::json::parse(s) == all);
  // Type names in container type schemas go through the same escaper.
  std::string schema = ffi::detail::PlainTypeSchema(std::string("a\x01\"b\n", 5));
  REQUIRE(schema == "{\"type\":\"a\\u0001\\\"b\\n\"}");
  REQUIRE(nlohmann::json::parse(schema).at("type") == std::string("a\x01\"b\n", 5));
}

TEST_CASE("Libraries built without metadata have no metadata and no docs", "[module]") {
  ffi::Module nometa = ffi::Module::LoadFromFile(kLibNoMeta);
  REQUIRE(nometa->ImplementsFunction("twice"));
  REQUIRE_FALSE(nometa->GetFunctionMetadata("twice").has_value());
  REQUIRE_FALSE(nometa->GetFunctionDoc("twice").has_value());
  REQUIRE_FALSE(nometa->GetFunctionWrites("twice").has_value());
  REQUIRE(dlsym(RTLD_DEFAULT, "__tvm_ffi__writes_twice") == nullptr);
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  REQUIRE(a->GetFunctionDoc("add_int").value() == "Add two integers (lib_a).\nSecond line.");
  REQUIRE_FALSE(a->GetFunctionDoc("whoami").has_value());
  REQUIRE(a->GetFunctionMetadata("whoami").has_value());
}

namespace {
std::vector<int64_t> Writes(const ffi::Module& mod, const char* name) {
  ffi::Optional<ffi::Array<int64_t>> w = mod->GetFunctionWrites(name);
  REQUIRE(w.has_value());
  std::vector<int64_t> out;
  for (int64_t i : *w) out.push_back(i);
  return out;
}

// The raw answer of a library's `__tvm_ffi__writes_<name>` symbol.
std::string WritesSymbolText(const char* path, const std::string& name) {
  ffi::Module keep = ffi::Module::LoadFromFile(path);  // loaded: dlopen below finds it
  void* lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib != nullptr);
  auto fn = reinterpret_cast<TVMFFISafeCallType>(dlsym(lib, ("__tvm_ffi__writes_" + name).c_str()));
  REQUIRE(fn != nullptr);
  TVMFFIAny out{};
  REQUIRE(fn(nullptr, nullptr, 0, &out) == 0);
  std::string text = ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&out).cast<ffi::String>();
  dlclose(lib);
  return text;
}

int WritesBad(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  TVMFFIByteArray text{"[1,1]", 5};
  return TVMFFIStringFromByteArray(&text, result);
}
int WritesNotJson(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  TVMFFIByteArray text{"0", 1};
  return TVMFFIStringFromByteArray(&text, result);
}
}  // namespace

TEST_CASE("A library declares the arguments its functions write", "[module]") {
  // TVM_FFI_DLL_EXPORT_WRITES in the CPU kernels: outputs only.
  ffi::Module mod = ffi::Module::LoadFromFile(kCpuKernels);
  REQUIRE(Writes(mod, "scale") == std::vector<int64_t>{0});
  REQUIRE(Writes(mod, "add_one") == std::vector<int64_t>{1});
  REQUIRE(Writes(mod, "add_bias") == std::vector<int64_t>{2});
  // TVM_FFI_DLL_EXPORT_WRITES_NOTHING: declared, and empty (not "undeclared").
  REQUIRE(Writes(mod, "sum").empty());
  REQUIRE(Writes(mod, "nop3").empty());
  REQUIRE_FALSE(mod->GetFunctionWrites("no_such_function").has_value());
  REQUIRE(WritesSymbolText(kCpuKernels, "scale") == "[0]");
  REQUIRE(WritesSymbolText(kCpuKernels, "sum") == "[]");

  // lib_a: declared on a lambda as (1, 0), answered sorted; add_int undeclared.
  ffi::Module a = ffi::Module::LoadFromFile(kLibA);
  REQUIRE(WritesSymbolText(kLibA, "echo_optional") == "[0,1]");
  REQUIRE(Writes(a, "echo_optional") == std::vector<int64_t>{0, 1});
  REQUIRE(Writes(a, "whoami").empty());
  REQUIRE_FALSE(a->GetFunctionWrites("add_int").has_value());

  // A malformed answer is a ValueError naming the symbol.
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__writes_writes_bad",
                                              reinterpret_cast<void*>(WritesBad)) == 0);
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__writes_writes_not_json",
                                              reinterpret_cast<void*>(WritesNotJson)) == 0);
  ffi::Module sys = ffi::Module::SystemLib();
  ffi::Error e = CatchError([&] { sys->GetFunctionWrites("writes_bad"); });
  REQUIRE(e.kind() == "ValueError");
  REQUIRE_THAT(e.message(), ContainsSubstring("`__tvm_ffi__writes_writes_bad` returned \"[1,1]\": "
                                              "an index is listed twice"));
  e = CatchError([&] { sys->GetFunctionWrites("writes_not_json"); });
  REQUIRE(e.kind() == "ValueError");
  REQUIRE_THAT(e.message(), ContainsSubstring("not a JSON array"));
}

TEST_CASE("Writes declarations are checked at compile time", "[module]") {
  // The checks TVM_FFI_DLL_EXPORT_WRITES static_asserts (an index not below the arity,
  // a negative one, one listed twice), evaluated here as constants.
  static_assert(ffi::detail::WritesInRange(3, {0, 2}));
  static_assert(!ffi::detail::WritesInRange(3, {3}));
  static_assert(!ffi::detail::WritesInRange(3, {-1}));
  static_assert(ffi::detail::WritesInRange(0, {}));
  static_assert(ffi::detail::WritesUnique({0, 2, 1}));
  static_assert(!ffi::detail::WritesUnique({2, 0, 2}));
  static_assert(ffi::detail::ExportArity([](int, double) {}) == 2);
  SUCCEED();
}

// ---------------------------------------------------------------------------
// Context symbols and the system library
// ---------------------------------------------------------------------------

TEST_CASE("Registered context symbols are written into a library at load", "[module]") {
  REQUIRE(kContextRegistered);
  ffi::Module nometa = ffi::Module::LoadFromFile(kLibNoMeta);
  REQUIRE(nometa->GetFunctionRequired("context_hook")().cast<void*>() == &g_context_marker);

  bool seen = false;
  ffi::Module::VisitContextSymbols([&](ffi::String name, void* value) {
    if (name == "__tvmffi_test_context_hook") seen = value == &g_context_marker;
  });
  REQUIRE(seen);
}

namespace {
int SysAdd(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (num_args != 2 || args[0].type_index != kTVMFFIInt || args[1].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "sys_add expects two ints");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 + args[1].v_int64;
  return 0;
}
int SysMul(void*, const TVMFFIAny* args, int32_t, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = args[0].v_int64 * args[1].v_int64;
  return 0;
}
int SysAddMetadata(void*, const TVMFFIAny*, int32_t, TVMFFIAny* result) {
  TVMFFIByteArray text{"{\"name\":\"sys_add\"}", 18};
  return TVMFFIStringFromByteArray(&text, result);
}
}  // namespace

TEST_CASE("The system library serves registered symbols", "[module]") {
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_sys_add",
                                              reinterpret_cast<void*>(SysAdd)) == 0);
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi__metadata_sys_add",
                                              reinterpret_cast<void*>(SysAddMetadata)) == 0);
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_tvmffitest_sys_mul",
                                              reinterpret_cast<void*>(SysMul)) == 0);
  ffi::Module sys = ffi::Module::SystemLib();
  REQUIRE(std::string(sys->kind()) == "system");
  REQUIRE(sys->GetLibraryPath() == "");
  REQUIRE(Handle(ffi::Module::SystemLib()) == Handle(sys));
  REQUIRE(sys->GetFunctionRequired("sys_add")(2, 5).cast<int64_t>() == 7);
  REQUIRE(sys->GetFunctionMetadata("sys_add").value() == "{\"name\":\"sys_add\"}");
  REQUIRE_FALSE(sys->GetFunction("sys_mul").has_value());
  ffi::Error e = CatchError([&] { sys->GetFunctionRequired("sys_sub"); });
  REQUIRE(e.kind() == "AttributeError");
  REQUIRE_THAT(e.message(), ContainsSubstring("Module SystemLib has no function `sys_sub`"));

  // With a prefix: `__tvm_ffi_<prefix><name>` first, then `__tvm_ffi_<name>`.
  ffi::Module pre = ffi::Module::SystemLib("tvmffitest_");
  REQUIRE(Handle(pre) != Handle(sys));
  REQUIRE(pre->GetFunctionRequired("sys_mul")(6, 7).cast<int64_t>() == 42);
  REQUIRE(pre->GetFunctionRequired("sys_add")(6, 7).cast<int64_t>() == 13);
  bool listed = false;
  for (const ffi::String& n : pre->ListFunctions()) listed |= n == "sys_mul";
  REQUIRE(listed);
}

// Issue #25: the loader stores the module handle into `__tvm_ffi__library_ctx`
// (and registered context symbols into theirs) only where a pointer fits:
// writable, aligned, pointer-sized data. Anything else refuses the library.
namespace {
void* const kConstSlot = nullptr;  // .rodata of this test binary
}  // namespace

TEST_CASE("A library whose __tvm_ffi__library_ctx cannot take a pointer is refused",
          "[module][hostile]") {
  const std::string dir = TVMFFI_TEST_BAD_CTX_DIR;
  const char* const expect[] = {
      "",
      "but it is in read-only memory (e.g. const or RELRO data)",
      "but it is 1 bytes, not a pointer (8 bytes)",
      "but it is not a data object (ELF symbol type 2, not STT_OBJECT)",
      "but it is in read-only memory (e.g. const or RELRO data)",
  };
  for (int v = 1; v <= 4; ++v) {
    CAPTURE(v);
    const std::string path = dir + "/libtvmffi_test_mod_bad_ctx" + std::to_string(v) + ".so";
    // Twice: a refused library stays refused (nothing was published).
    for (int attempt = 0; attempt < 2; ++attempt) {
      ffi::Error e = CatchError([&] { ffi::Module::LoadFromFile(path); });
      CHECK(e.kind() == "RuntimeError");
      CHECK(e.message() == "Module.LoadFromFile(\"" + path +
                               "\"): refusing to load: the loader stores a pointer in symbol "
                               "`__tvm_ffi__library_ctx`, " +
                               expect[v]);
    }
  }
  // The one-byte symbol's neighbour was not touched.
  void* h = dlopen((dir + "/libtvmffi_test_mod_bad_ctx2.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  const char* neighbour = static_cast<const char*>(dlsym(h, "neighbour"));
  REQUIRE(neighbour != nullptr);
  for (int i = 0; i < 8; ++i) CHECK(neighbour[i] == i + 1);
  dlclose(h);
  // A system-library context symbol in read-only memory: refused too.
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("badctx___tvm_ffi__library_ctx",
                                              const_cast<void**>(&kConstSlot)) == 0);
  ffi::Error e = CatchError([] { ffi::Module::SystemLib("badctx_"); });
  CHECK(e.kind() == "RuntimeError");
  CHECK(e.message() ==
        "SystemLib(prefix=\"badctx_\"): refusing to load: the loader stores a pointer in symbol "
        "`__tvm_ffi__library_ctx`, but it is in read-only memory (e.g. const or RELRO data)");
}

// ---------------------------------------------------------------------------
// The kernel library guide's style on the CPU
// ---------------------------------------------------------------------------

TEST_CASE("Guide-style CPU kernels: TensorView / Optional / checks / FromEnvAlloc", "[module]") {
  ffi::Module mod = ffi::Module::LoadFromFile(kCpuKernels);
  ffi::Function add_one = mod->GetFunctionRequired("add_one");
  ffi::Function scale = mod->GetFunctionRequired("scale");
  ffi::Function add = mod->GetFunctionRequired("add");
  ffi::Function scale_alloc = mod->GetFunctionRequired("scale_alloc");

  ffi::EnvTensorAllocatorGuard allocator(ffi::CPUTensorAllocator);
  ffi::Tensor x = CpuTensor({1, 2, 3, 4});
  ffi::Tensor y = CpuTensor({0, 0, 0, 0});

  SECTION("pre-allocated outputs, tensors as objects or DLTensor*") {
    add_one(x, y);
    REQUIRE(Values(y) == std::vector<float>{2, 3, 4, 5});
    ffi::TensorView out = y;
    scale(out, ffi::TensorView(x), 0.5);
    REQUIRE(Values(y) == std::vector<float>{0.5, 1, 1.5, 2});
    // DLTensor* from plain C memory.
    float raw_in[2] = {10, 20}, raw_out[2] = {0, 0};
    int64_t shape[1] = {2};
    DLTensor in_t{raw_in, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    DLTensor out_t{raw_out, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
    add_one(&in_t, &out_t);
    REQUIRE(raw_out[1] == 21);
  }
  SECTION("Optional<TensorView>: None and a tensor") {
    ffi::Tensor b = CpuTensor({10, 20, 30, 40});
    add(y, x, nullptr);
    REQUIRE(Values(y) == std::vector<float>{1, 2, 3, 4});
    add(y, x, b);
    REQUIRE(Values(y) == std::vector<float>{11, 22, 33, 44});
  }
  SECTION("FromEnvAlloc uses the host's allocator") {
    ffi::Tensor z = scale_alloc(x, 3.0).cast<ffi::Tensor>();
    REQUIRE(Values(z) == std::vector<float>{3, 6, 9, 12});
    ffi::Tensor d =
        scale_alloc(CpuTensor({1, 2}, DLDataType{kDLFloat, 64, 1}), 2.0).cast<ffi::Tensor>();
    REQUIRE(d.dtype() == DLDataType{kDLFloat, 64, 1});
    REQUIRE(static_cast<double*>(d.data_ptr())[1] == 4.0);
  }
  SECTION("TVM_FFI_CHECK errors: kind, argument, reason") {
    ffi::Error shape = CatchError([&] { add_one(x, CpuTensor({0, 0})); });
    REQUIRE(shape.kind() == "ValueError");
    REQUIRE_THAT(shape.message(),
                 ContainsSubstring("`x` and `y` must have the same shape, got [4] and [2]"));
    ffi::Error dtype = CatchError([&] {
      add_one(x, CpuTensor({0, 0, 0, 0}, DLDataType{kDLFloat, 64, 1}));
    });
    REQUIRE(dtype.kind() == "TypeError");
    REQUIRE_THAT(dtype.message(),
                 ContainsSubstring("must have the same dtype, got float32 and float64"));
    int64_t shape4[1] = {4};
    DLTensor gpu{nullptr, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, shape4, nullptr, 0};
    ffi::Error device = CatchError([&] { add_one(x, &gpu); });
    REQUIRE(device.kind() == "ValueError");
    REQUIRE_THAT(device.message(), ContainsSubstring("`y` must be a CPU tensor"));
    ffi::Error arg = CatchError([&] { scale(y, x, "two"); });
    REQUIRE(arg.kind() == "TypeError");
    REQUIRE_THAT(arg.message(), ContainsSubstring("argument #2"));
    ffi::Error greet = CatchError([&] { mod->GetFunctionRequired("greet")(""); });
    REQUIRE(greet.kind() == "ValueError");
    REQUIRE_THAT(greet.message(), ContainsSubstring("greet: `name` must not be empty"));
  }
  SECTION("unsupported dtype") {
    int32_t in[2] = {1, 2}, out[2] = {0, 0};
    int64_t shape[1] = {2};
    DLTensor a{in, {kDLCPU, 0}, 1, {kDLInt, 32, 1}, shape, nullptr, 0};
    DLTensor b{out, {kDLCPU, 0}, 1, {kDLInt, 32, 1}, shape, nullptr, 0};
    ffi::Error e = CatchError([&] { add_one(&a, &b); });
    REQUIRE(e.kind() == "TypeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("add_one: unsupported dtype int32"));
  }
}

TEST_CASE("FromEnvAlloc without a host allocator is a clear error", "[module]") {
  ffi::Module mod = ffi::Module::LoadFromFile(kCpuKernels);
  float raw[2] = {1, 2};
  int64_t shape[1] = {2};
  DLTensor x{raw, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  DLPackManagedTensorAllocator before = nullptr;
  TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, &before);
  DLPackManagedTensorAllocator global = TVMFFIEnvGetDLPackManagedTensorAllocator();
  if (global == nullptr) {
    ffi::Error e = CatchError([&] { mod->GetFunctionRequired("scale_alloc")(&x, 2.0); });
    REQUIRE(e.kind() == "RuntimeError");
    REQUIRE_THAT(e.message(), ContainsSubstring("no tensor allocator"));
  }
  TVMFFIEnvSetDLPackManagedTensorAllocator(before == global ? nullptr : before, 0, nullptr);
}
