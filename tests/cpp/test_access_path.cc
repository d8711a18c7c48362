// Tests of tvm/ffi/reflection/access_path.h: building paths, steps, parents,
// equality and prefixes, and the reflection libtvmffi registers for them.

// First on purpose: registry.h declares reflection::detail, and access_path.h
// must still find tvm::ffi::detail after it.
#include <tvm/ffi/reflection/registry.h>

#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>

#include <catch2/catch_test_macros.hpp>

#include <string>

namespace {

using namespace tvm::ffi;
using namespace tvm::ffi::reflection;

TEST_CASE("Paths extend from the root and record their steps", "[access_path]") {
  AccessPath root = AccessPath::Root();
  CHECK(root->depth == 0);
  CHECK(!root->GetParent().has_value());
  CHECK(root->ToSteps().size() == 0);

  AccessPath p = root->Attr("body")->ArrayItem(2)->MapItem(String("k"))->AttrMissing("w");
  CHECK(p->depth == 4);
  Array<AccessStep> steps = p->ToSteps();
  REQUIRE(steps.size() == 4);
  CHECK(steps[0]->kind == AccessKind::kAttr);
  CHECK(steps[0]->key.cast<String>() == "body");
  CHECK(steps[1]->kind == AccessKind::kArrayItem);
  CHECK(steps[1]->key.cast<int64_t>() == 2);
  CHECK(steps[2]->kind == AccessKind::kMapItem);
  CHECK(steps[2]->key.cast<String>() == "k");
  CHECK(steps[3]->kind == AccessKind::kAttrMissing);

  Optional<AccessPath> parent = p->GetParent();
  REQUIRE(parent.has_value());
  CHECK(parent.value()->depth == 3);
  CHECK((*parent)->step.value()->kind == AccessKind::kMapItem);
}

TEST_CASE("Missing steps carry their kinds", "[access_path]") {
  CHECK(AccessStep::ArrayItemMissing(3)->kind == AccessKind::kArrayItemMissing);
  CHECK(AccessStep::MapItemMissing()->kind == AccessKind::kMapItemMissing);
  CHECK(AccessStep::MapItemMissing()->key == nullptr);
  CHECK(AccessPath::Root()->MapItemMissing(1)->step.value()->key.cast<int64_t>() == 1);
  CHECK(AccessPath::Root()->ArrayItemMissing(5)->ToSteps()[0]->kind ==
        AccessKind::kArrayItemMissing);
}

TEST_CASE("PathEqual compares steps, not identity", "[access_path]") {
  AccessPath a = AccessPath::Root()->Attr("x")->ArrayItem(1);
  AccessPath b = AccessPath::Root()->Attr("x")->ArrayItem(1);
  CHECK(!a.same_as(b));
  CHECK(a->PathEqual(b));
  CHECK(!a->PathEqual(AccessPath::Root()->Attr("x")->ArrayItem(2)));
  CHECK(!a->PathEqual(AccessPath::Root()->Attr("y")->ArrayItem(1)));
  CHECK(!a->PathEqual(AccessPath::Root()->Attr("x")));
  // Same key value, different kinds.
  CHECK(!AccessPath::Root()->ArrayItem(1)->PathEqual(AccessPath::Root()->ArrayItemMissing(1)));
  // Strings compare by content whatever their form.
  std::string long_key(100, 'k');
  CHECK(AccessPath::Root()
            ->MapItem(String(long_key))
            ->PathEqual(AccessPath::Root()->MapItem(String(long_key))));
  CHECK(AccessPath::Root()->PathEqual(AccessPath::Root()));
}

TEST_CASE("IsPrefixOf", "[access_path]") {
  AccessPath base = AccessPath::Root()->Attr("a");
  AccessPath leaf = base->ArrayItem(0)->Attr("b");
  CHECK(AccessPath::Root()->IsPrefixOf(leaf));
  CHECK(base->IsPrefixOf(leaf));
  CHECK(AccessPath::Root()->Attr("a")->IsPrefixOf(leaf));
  CHECK(leaf->IsPrefixOf(leaf));
  CHECK(!leaf->IsPrefixOf(base));
  CHECK(!AccessPath::Root()->Attr("c")->IsPrefixOf(leaf));
}

TEST_CASE("FromSteps rebuilds a path", "[access_path]") {
  AccessPath p = AccessPath::Root()->Attr("f")->ArrayItem(7);
  AccessPath q = AccessPath::FromSteps(p->ToSteps());
  CHECK(q->PathEqual(p));
  CHECK(q->depth == 2);
}

TEST_CASE("Paths are objects at upstream's type keys, passable through Any", "[access_path]") {
  AccessPath p = AccessPath::Root()->Attr("x");
  Any any = p;
  CHECK(any.GetTypeKey() == "ffi.reflection.AccessPath");
  CHECK(Any(AccessStep::Attr("x")).GetTypeKey() == "ffi.reflection.AccessStep");
  CHECK(any.cast<AccessPath>()->PathEqual(p));
  CHECK_THROWS_AS(Any(AccessStep::Attr("x")).cast<AccessPath>(), Error);
}

TEST_CASE("libtvmffi registers the fields and methods of access paths", "[access_path]") {
  AccessPath p = AccessPath::Root()->Attr("x")->ArrayItem(3);
  CHECK(FieldGetter("ffi.reflection.AccessPath", "depth")(p).cast<int64_t>() == 2);
  AccessStep step = FieldGetter("ffi.reflection.AccessPath", "step")(p).cast<AccessStep>();
  CHECK(FieldGetter("ffi.reflection.AccessStep", "kind")(step).cast<int64_t>() ==
        static_cast<int64_t>(AccessKind::kArrayItem));
  CHECK(FieldGetter("ffi.reflection.AccessStep", "key")(step).cast<int64_t>() == 3);
  AccessPath root = GetMethod("ffi.reflection.AccessPath", "_root")().cast<AccessPath>();
  AccessPath made = GetMethod("ffi.reflection.AccessPath", "_array_item")(
                        GetMethod("ffi.reflection.AccessPath", "_attr")(root, "x"), 3)
                        .cast<AccessPath>();
  CHECK(GetMethod("ffi.reflection.AccessPath", "_path_equal")(made, p).cast<bool>());
  CHECK(GetMethod("ffi.reflection.AccessPath", "_is_prefix_of")(root, p).cast<bool>());
  CHECK(GetMethod("ffi.reflection.AccessPath", "_to_steps")(p).cast<Array<AccessStep>>().size() ==
        2);
}

// Issue #25: the generated __ffi_init__ (reachable from Python) checks the
// same invariants as FromJSONGraph: a malformed path is never built.
TEST_CASE("__ffi_init__ refuses a path whose parent, step or depth disagree",
          "[access_path][hostile]") {
  TypeAttrColumn col("__ffi_init__");
  AnyView init = col[AccessPathObj::RuntimeTypeIndex()];
  REQUIRE(init != nullptr);
  Function make = init.cast<Function>();
  auto error = [&](auto&&... args) -> std::string {
    try {
      make(args...);
    } catch (const Error& e) {
      return e.kind() + ": " + e.message();
    }
    return "no error";
  };
  AccessPath root = AccessPath::Root();
  AccessStep step = AccessStep::Attr("x");
  CHECK(error(Array<Any>{}, step, 1) ==
        "ValueError: ffi.reflection.AccessPath.__ffi_init__(): an AccessPath's `parent` must be "
        "an ffi.reflection.AccessPath, not `ffi.Array`");
  CHECK(error(nullptr, step, 1) ==
        "ValueError: ffi.reflection.AccessPath.__ffi_init__(): an AccessPath's `parent` and "
        "`step` must both be set, or both be None (the root)");
  CHECK(error(root, step, 2000000000) ==
        "ValueError: ffi.reflection.AccessPath.__ffi_init__(): an AccessPath's depth must be its "
        "parent's plus one (1), not 2000000000");
  AccessPath ok = make(root, step, 1).cast<AccessPath>();
  CHECK(ok->PathEqual(root->Attr("x")));
}

// Issue #25: a long path is freed in a loop (its parents one after another),
// not by a recursion as deep as the path.
TEST_CASE("A path 200,000 steps long is released without overflowing the stack",
          "[access_path][hostile]") {
  AccessPath p = AccessPath::Root();
  for (int i = 0; i < 200000; ++i) p = p->ArrayItem(i);
  CHECK(p->depth == 200000);
  AccessPath shared_prefix = p;
  for (int i = 0; i < 1000; ++i) p = p->Attr("x");
  p = AccessPath::Root();  // the 1000 new nodes go; the shared prefix stays
  CHECK(shared_prefix->depth == 200000);
  CHECK(shared_prefix->GetParent().value()->depth == 199999);
  shared_prefix = AccessPath::Root();  // now the long chain goes too
}

}  // namespace
