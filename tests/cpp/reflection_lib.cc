// A shared library that uses the structural, dataclass and visit-error-context
// wrappers, built with default visibility: test_reflection_no_interposition
// checks that it exports none of upstream's out-of-line names
// (runtime/upstream_cxx/upstream_cxx.symbols).
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/visit_error_context.h>

// Taking the addresses forces out-of-line copies (calls alone may be inlined).
extern "C" {
__attribute__((visibility("default"))) const void* tvmffi_test_reflection_addresses[] = {
    reinterpret_cast<const void*>(&tvm::ffi::StructuralEqual::Equal),
    reinterpret_cast<const void*>(&tvm::ffi::StructuralEqual::GetFirstMismatch),
    reinterpret_cast<const void*>(&tvm::ffi::StructuralHash::Hash),
    reinterpret_cast<const void*>(&tvm::ffi::DeepCopy),
    reinterpret_cast<const void*>(&tvm::ffi::ReprPrint),
    reinterpret_cast<const void*>(&tvm::ffi::VisitErrorContext::FindAccessPaths),
    reinterpret_cast<const void*>(&tvm::ffi::RecursiveHash),
    reinterpret_cast<const void*>(&tvm::ffi::RecursiveEq),
    reinterpret_cast<const void*>(&tvm::ffi::RecursiveLt),
    reinterpret_cast<const void*>(&tvm::ffi::RecursiveLe),
    reinterpret_cast<const void*>(&tvm::ffi::RecursiveGt),
    reinterpret_cast<const void*>(&tvm::ffi::RecursiveGe)};
}

extern "C" __attribute__((visibility("default"))) int tvmffi_test_reflection_use(void) {
  using namespace tvm::ffi;
  Any a = 1;
  bool same = StructuralEqual::Equal(a, a) && !StructuralEqual::GetFirstMismatch(a, a).has_value();
  return same && StructuralHash::Hash(a) == StructuralHash::Hash(DeepCopy(a)) &&
                 ReprPrint(a).size() == 1 && RecursiveEq(a, a) && RecursiveLe(a, a) &&
                 RecursiveHash(a) == RecursiveHash(a)
             ? 0
             : 1;
}
