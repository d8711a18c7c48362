// Fuzz target (g): untrusted graph JSON (ffi.FromJSONGraphString,
// runtime/serialization_read.cc) into every walker of object graphs (issue #25):
// StructuralHash / StructuralEqual / GetFirstStructuralMismatch,
// RecursiveEq / RecursiveHash / RecursiveLt, ReprPrint, DeepCopy and the
// serialization round trip.
//
//  - FromJSONGraphString returns a value or raises an Error (ValueError /
//    TypeError / ...), never crashes: every field is checked against its
//    reflected type and the runtime's own types against their invariants.
//  - On a value, each walker returns or raises an Error; never a crash, a
//    sanitizer report or a leak. Shared nodes make no walker exponential:
//    libFuzzer's per-input time limit (-timeout, set by CMakeLists.txt) and
//    an in-process bound (kWalkSeconds of CPU time over all walkers, checked
//    after each) fail the input that takes longer.
//  - Properties that hold whatever the graph: a value is StructuralEqual and
//    RecursiveEq to itself (or the call raises); two decodings of the same
//    text hash alike under StructuralHash and RecursiveHash when the
//    graph has no object used as a map key (whose order in a map follows its
//    address), and are equal under both equalities.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <unordered_set>

#include "fuzz_util.h"

namespace {

using tvm::ffi::Any;
using tvm::ffi::Error;
using tvm::ffi::Function;
using tvm::ffi::Object;
using tvm::ffi::String;
using tvm::ffi::TypeIndex;

// CPU seconds all walkers of one input may take together (libFuzzer's
// -timeout also applies, to the whole input).
constexpr double kWalkSeconds = 2.0;

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Whether a value reachable from `v` uses an object (other than a string) as
// a map key: such a map's order follows addresses, and so may its walks.
bool HasObjectKey(const Any& v, std::unordered_set<const Object*>* seen) {
  if (v.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return false;
  const Object* obj = v.cast<const Object*>();
  if (!seen->insert(obj).second) return false;
  switch (v.type_index()) {
    case TypeIndex::kTVMFFIArray:
    case TypeIndex::kTVMFFIList:
      for (const Any& x : *static_cast<const tvm::ffi::SeqBaseObj*>(obj)) {
        if (HasObjectKey(x, seen)) return true;
      }
      return false;
    case TypeIndex::kTVMFFIMap:
    case TypeIndex::kTVMFFIDict: {
      const auto* map = static_cast<const tvm::ffi::MapBaseObj*>(obj);
      for (auto it = map->begin(); it != map->end(); ++it) {
        int32_t k = it.key().type_index();
        if (k >= TypeIndex::kTVMFFIStaticObjectBegin && k != TypeIndex::kTVMFFIStr &&
            k != TypeIndex::kTVMFFIBytes) {
          return true;
        }
        if (HasObjectKey(it.value(), seen)) return true;
      }
      return false;
    }
    case TypeIndex::kTVMFFIStr:
    case TypeIndex::kTVMFFIBytes:
    case TypeIndex::kTVMFFIShape:
      return false;
    default:
      // A reflected object (AccessPath, ...): its fields are not walked
      // here, so it counts as unordered.
      return true;
  }
}

// Runs `fn`; an Error is an answer, anything else propagates (and aborts).
template <typename F>
bool Try(F&& fn) {
  try {
    fn();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("TVM_FFI_BACKTRACE", "0", 1);  // errors are the common case
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Function from_text = Function::GetGlobalRequired("ffi.FromJSONGraphString");
  static const Function to_text = Function::GetGlobalRequired("ffi.ToJSONGraphString");
  const std::string input(reinterpret_cast<const char*>(data), size);
  Any a, b;
  if (!Try([&] { a = from_text(String(input)); })) return 0;
  if (!Try([&] { b = from_text(String(input)); })) {
    fuzz::Fail("the same graph text decoded once and failed the second time", input);
  }
  const double start = CpuSeconds();
  auto check_time = [&](const char* walker) {
    if (CpuSeconds() - start > kWalkSeconds) {
      fuzz::Fail(std::string("walkers took more than 2 s of CPU (last: ") + walker + ")", input);
    }
  };
  std::unordered_set<const Object*> seen;
  const bool ordered = !HasObjectKey(a, &seen);

  // Structural equality and hashing.
  bool equal = false;
  if (Try([&] { equal = tvm::ffi::StructuralEqual::Equal(a, a); }) && !equal) {
    fuzz::Fail("a value is not StructuralEqual to itself", input);
  }
  check_time("StructuralEqual");
  if (Try([&] { equal = tvm::ffi::StructuralEqual::Equal(a, b); }) && ordered && !equal) {
    fuzz::Fail("two decodings of one graph are not StructuralEqual", input);
  }
  Try([&] { tvm::ffi::StructuralEqual::GetFirstMismatch(a, b); });
  check_time("StructuralEqual");
  uint64_t ha = 0, hb = 0;
  if (Try([&] { ha = tvm::ffi::StructuralHash::Hash(a); }) &&
      Try([&] { hb = tvm::ffi::StructuralHash::Hash(b); }) && ordered && ha != hb) {
    fuzz::Fail("two decodings of one graph StructuralHash differently", input);
  }
  check_time("StructuralHash");

  // Recursive comparisons and hash.
  if (Try([&] { equal = tvm::ffi::RecursiveEq(a, a); }) && !equal) {
    fuzz::Fail("a value is not RecursiveEq to itself", input);
  }
  if (Try([&] { equal = tvm::ffi::RecursiveEq(a, b); }) && ordered && !equal) {
    fuzz::Fail("two decodings of one graph are not RecursiveEq", input);
  }
  Try([&] { tvm::ffi::RecursiveLt(a, b); });
  int64_t ra = 0, rb = 0;
  if (Try([&] { ra = tvm::ffi::RecursiveHash(a); }) &&
      Try([&] { rb = tvm::ffi::RecursiveHash(b); }) && ordered && ra != rb) {
    fuzz::Fail("two decodings of one graph RecursiveHash differently", input);
  }
  check_time("RecursiveEq/Hash");

  // Printing, copying, and the round trip.
  Try([&] { tvm::ffi::ReprPrint(a); });
  check_time("ReprPrint");
  Any copy;
  if (Try([&] { copy = tvm::ffi::DeepCopy(a); })) Try([&] { tvm::ffi::RecursiveEq(a, copy); });
  check_time("DeepCopy");
  String text;
  if (Try([&] { text = to_text(a, nullptr).cast<String>(); })) {
    Any back;
    if (!Try([&] { back = from_text(text); })) {
      fuzz::Fail("a graph written by ToJSONGraphString does not read back", input);
    }
    Try([&] { tvm::ffi::StructuralEqual::Equal(a, back); });
  }
  check_time("serialization round trip");
  return 0;
}
