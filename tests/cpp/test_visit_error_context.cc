// Tests of tvm/ffi/extra/visit_error_context.h: the visit macros record the
// nodes an error unwinds through, and FindAccessPaths turns them back into
// access paths from the root (libtvmffi's ffi.VisitErrorContext.FindAccessPaths).
#include <tvm/ffi/extra/visit_error_context.h>

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tvm::ffi;
using reflection::AccessPath;

// A tree node with two reflected object slots.
class NodeObj : public Object {
 public:
  ObjectRef left;
  ObjectRef right;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.visit.Node", NodeObj, Object);
};

class Node : public ObjectRef {
 public:
  Node(ObjectRef left, ObjectRef right) {
    ObjectPtr<NodeObj> n = make_object<NodeObj>();
    n->left = std::move(left);
    n->right = std::move(right);
    data_ = std::move(n);
  }
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Node, ObjectRef, NodeObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  reflection::ObjectDef<NodeObj>().def_ro("left", &NodeObj::left).def_ro("right", &NodeObj::right);
}

Node Leaf() {
  return Node(ObjectRef(), ObjectRef());
}

// Walks nodes and arrays; raises ValueError at `bad`. Every level is a visit frame.
void Walk(const ObjectRef& node, const ObjectRef& bad) {
  TVM_FFI_VISIT_BEGIN();
  if (node.same_as(bad)) TVM_FFI_THROW(ValueError) << "bad node";
  if (auto n = node.as<Node>()) {
    if (n.value()->left.defined()) Walk(n.value()->left, bad);
    if (n.value()->right.defined()) Walk(n.value()->right, bad);
  } else if (auto arr = node.as<Array<ObjectRef>>()) {
    for (const ObjectRef& item : *arr) Walk(item, bad);
  }
  TVM_FFI_VISIT_END(node);
}

Error CatchWalk(const ObjectRef& root, const ObjectRef& bad) {
  try {
    Walk(root, bad);
  } catch (const Error& err) {
    return err;
  }
  FAIL("Walk did not throw");
  return Error("RuntimeError", "unreachable");
}

VisitErrorContext ContextOf(std::vector<ObjectRef> innermost_first) {
  ObjectPtr<VisitErrorContextObj> ctx = make_object<VisitErrorContextObj>();
  for (ObjectRef& node : innermost_first) ctx->reverse_visit_pattern.push_back(std::move(node));
  return VisitErrorContext(std::move(ctx));
}

bool HasPath(const Array<AccessPath>& paths, const AccessPath& want) {
  for (const AccessPath& p : paths) {
    if (p->PathEqual(want)) return true;
  }
  return false;
}

bool SameNodes(const List<ObjectRef>& got, const std::vector<ObjectRef>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!got[static_cast<int64_t>(i)].same_as(want[i])) return false;
  }
  return true;
}

TEST_CASE("VISIT_END records the frames innermost first", "[visit_error_context]") {
  Node bad = Leaf();
  Array<ObjectRef> items{Leaf(), bad};
  Node mid(items, Leaf());
  Node root(Leaf(), mid);

  Error err = CatchWalk(root, bad);
  CHECK(err.kind() == "ValueError");
  CHECK(err.message() == "bad node");
  Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
  REQUIRE(ctx.has_value());
  CHECK(SameNodes(ctx.value()->reverse_visit_pattern, {bad, items, mid, root}));
  CHECK(!ctx.value()->prev_error_context.has_value());

  Array<AccessPath> paths = VisitErrorContext::FindAccessPaths(root, ctx.value());
  REQUIRE(paths.size() == 1);
  CHECK(paths[0]->PathEqual(AccessPath::Root()->Attr("right")->Attr("left")->ArrayItem(1)));
}

TEST_CASE("An error without visit frames has no context", "[visit_error_context]") {
  Error plain("RuntimeError", "x", "");
  CHECK(!VisitErrorContext::TryGetFromError(plain).has_value());
  // Some other extra_context is not mistaken for one.
  Error other("RuntimeError", "x", "", std::nullopt, std::optional<ObjectRef>(Leaf()));
  CHECK(!VisitErrorContext::TryGetFromError(other).has_value());
}

TEST_CASE("A previous extra_context is kept aside, once", "[visit_error_context]") {
  Node payload = Leaf();
  Node a = Leaf();
  Node b = Leaf();
  Error err("TypeError", "m", "bt", std::nullopt, std::optional<ObjectRef>(payload));
  detail::UpdateVisitErrorContext(err, a);
  detail::UpdateVisitErrorContext(err, b);
  Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
  REQUIRE(ctx.has_value());
  CHECK(SameNodes(ctx.value()->reverse_visit_pattern, {a, b}));
  REQUIRE(ctx.value()->prev_error_context.has_value());
  CHECK(ctx.value()->prev_error_context.value().same_as(payload));
  // The rest of the error is untouched.
  CHECK(err.kind() == "TypeError");
  CHECK(err.message() == "m");
  CHECK(err.backtrace() == "bt");
}

TEST_CASE("VISIT_THROW seeds the context with its node", "[visit_error_context]") {
  Node child = Leaf();
  Node root(child, Leaf());
  try {
    TVM_FFI_VISIT_THROW(IndexError, child) << "child " << 7;
    FAIL("no throw");
  } catch (const Error& err) {
    CHECK(err.kind() == "IndexError");
    CHECK(err.message() == "child 7");
    Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
    REQUIRE(ctx.has_value());
    CHECK(SameNodes(ctx.value()->reverse_visit_pattern, {child}));
  }

  // Thrown for the node of its own frame: the repeated entry counts once.
  auto visit = [&](const ObjectRef& node) {
    TVM_FFI_VISIT_BEGIN();
    TVM_FFI_VISIT_THROW(ValueError, node) << "here";
    TVM_FFI_VISIT_END(node);
  };
  try {
    TVM_FFI_VISIT_BEGIN();
    visit(child);
    TVM_FFI_VISIT_END(root);
    FAIL("no throw");
  } catch (const Error& err) {
    Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
    REQUIRE(ctx.has_value());
    CHECK(SameNodes(ctx.value()->reverse_visit_pattern, {child, child, root}));
    Array<AccessPath> paths = VisitErrorContext::FindAccessPaths(root, ctx.value());
    REQUIRE(paths.size() == 1);
    CHECK(paths[0]->PathEqual(AccessPath::Root()->Attr("left")));
  }
}

// A frame that returns its error: the inner frame rethrows, this one returns it.
Expected<int> VisitExpected(const AnyView& value, const ObjectRef& inner) {
  TVM_FFI_VISIT_BEGIN();
  TVM_FFI_VISIT_BEGIN();
  TVM_FFI_THROW(KeyError) << "missing";
  TVM_FFI_VISIT_END(inner);
  TVM_FFI_VISIT_END_RETURN_EXPECTED(value);
}

TEST_CASE("VISIT_END_RETURN_EXPECTED returns the error; non-objects are not recorded",
          "[visit_error_context]") {
  Node inner = Leaf();
  Node node = Leaf();
  Expected<int> r = VisitExpected(AnyView(node), inner);
  REQUIRE(r.is_err());
  CHECK(r.error().kind() == "KeyError");
  CHECK(r.error().message() == "missing");
  Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(r.error());
  REQUIRE(ctx.has_value());
  CHECK(SameNodes(ctx.value()->reverse_visit_pattern, {inner, node}));

  Expected<int> r2 = VisitExpected(AnyView(42), inner);
  REQUIRE(r2.is_err());
  Optional<VisitErrorContext> ctx2 = VisitErrorContext::TryGetFromError(r2.error());
  REQUIRE(ctx2.has_value());
  CHECK(SameNodes(ctx2.value()->reverse_visit_pattern, {inner}));
}

TEST_CASE("The context survives a call through the C ABI", "[visit_error_context]") {
  Node bad = Leaf();
  Node root(Leaf(), bad);
  Function f = Function::FromTyped([](ObjectRef root, ObjectRef bad) { Walk(root, bad); });
  try {
    f(root, bad);
    FAIL("no throw");
  } catch (const Error& err) {
    Optional<VisitErrorContext> ctx = VisitErrorContext::TryGetFromError(err);
    REQUIRE(ctx.has_value());
    Array<AccessPath> paths = VisitErrorContext::FindAccessPaths(root, ctx.value());
    REQUIRE(paths.size() == 1);
    CHECK(paths[0]->PathEqual(AccessPath::Root()->Attr("right")));
  }
}

TEST_CASE("FindAccessPaths reports every path of a shared node", "[visit_error_context]") {
  Node shared = Leaf();
  Node root(shared, Array<ObjectRef>{Leaf(), shared});
  Array<AccessPath> paths = VisitErrorContext::FindAccessPaths(root, ContextOf({shared, root}));
  REQUIRE(paths.size() == 2);
  CHECK(HasPath(paths, AccessPath::Root()->Attr("left")));
  CHECK(HasPath(paths, AccessPath::Root()->Attr("right")->ArrayItem(1)));

  // A recorded ancestor picks the branch.
  Array<ObjectRef> arr = root->right.as<Array<ObjectRef>>().value();
  Array<AccessPath> one = VisitErrorContext::FindAccessPaths(root, ContextOf({shared, arr, root}));
  REQUIRE(one.size() == 1);
  CHECK(one[0]->PathEqual(AccessPath::Root()->Attr("right")->ArrayItem(1)));

  // Without the root in the list, the walk still starts at the root.
  CHECK(VisitErrorContext::FindAccessPaths(root, ContextOf({shared})).size() == 2);
}

TEST_CASE("FindAccessPaths steps through maps, dicts and lists", "[visit_error_context]") {
  Node target = Leaf();
  Map<Any, Any> m{{String("k"), target}};
  Array<AccessPath> paths =
      VisitErrorContext::FindAccessPaths(Node(m, Leaf()), ContextOf({target}));
  REQUIRE(paths.size() == 1);
  CHECK(paths[0]->PathEqual(AccessPath::Root()->Attr("left")->MapItem(String("k"))));

  Dict<Any, Any> d;
  d.Set(int64_t(5), target);
  List<Any> list{Any(1), Any(d)};
  paths = VisitErrorContext::FindAccessPaths(Node(Leaf(), list), ContextOf({target}));
  REQUIRE(paths.size() == 1);
  CHECK(paths[0]->PathEqual(AccessPath::Root()->Attr("right")->ArrayItem(1)->MapItem(int64_t(5))));

  // A list that holds itself is walked once per path.
  List<Any> loop;
  loop.push_back(Leaf());
  loop.push_back(loop);
  CHECK(VisitErrorContext::FindAccessPaths(loop, ContextOf({target})).size() == 0);
  loop.push_back(target);
  paths = VisitErrorContext::FindAccessPaths(loop, ContextOf({target}));
  REQUIRE(paths.size() == 1);
  CHECK(paths[0]->PathEqual(AccessPath::Root()->ArrayItem(2)));
  loop.Set(1, Any());  // break the cycle, or the list leaks
}

TEST_CASE("FindAccessPaths: order, prefixes and degenerate lists", "[visit_error_context]") {
  Node deep = Leaf();
  Node mid(deep, Leaf());
  Node root(mid, Leaf());
  Node stranger = Leaf();

  // Recorded in the wrong order: no path.
  CHECK(VisitErrorContext::FindAccessPaths(root, ContextOf({mid, deep, root})).size() == 0);
  // The innermost node is not in the tree: nothing, unless prefixes are wanted.
  VisitErrorContext partial = ContextOf({stranger, mid, root});
  CHECK(VisitErrorContext::FindAccessPaths(root, partial).size() == 0);
  Array<AccessPath> prefix = VisitErrorContext::FindAccessPaths(root, partial, true);
  REQUIRE(prefix.size() == 1);
  CHECK(prefix[0]->PathEqual(AccessPath::Root()->Attr("left")));
  // Only the root matched: the root path says nothing, so nothing is reported.
  CHECK(VisitErrorContext::FindAccessPaths(root, ContextOf({stranger, root}), true).size() == 0);

  // Empty list, undefined entries, the root itself.
  CHECK(VisitErrorContext::FindAccessPaths(root, ContextOf({})).size() == 0);
  CHECK(VisitErrorContext::FindAccessPaths(root, ContextOf({ObjectRef(), ObjectRef()})).size() ==
        0);
  Array<AccessPath> self = VisitErrorContext::FindAccessPaths(root, ContextOf({root}));
  REQUIRE(self.size() == 1);
  CHECK(self[0]->PathEqual(AccessPath::Root()));
  Array<AccessPath> cleaned = VisitErrorContext::FindAccessPaths(
      root, ContextOf({ObjectRef(), deep, deep, ObjectRef(), mid, root, root}));
  REQUIRE(cleaned.size() == 1);
  CHECK(cleaned[0]->PathEqual(AccessPath::Root()->Attr("left")->Attr("left")));
}

TEST_CASE("ffi.VisitErrorContext is reflected", "[visit_error_context]") {
  Node payload = Leaf();
  Node a = Leaf();
  VisitErrorContext ctx = ContextOf({a});
  ctx->prev_error_context = payload;
  reflection::FieldGetter pattern("ffi.VisitErrorContext", "reverse_visit_pattern");
  reflection::FieldGetter prev("ffi.VisitErrorContext", "prev_error_context");
  List<ObjectRef> got = pattern(ctx).cast<List<ObjectRef>>();
  CHECK(SameNodes(got, {a}));
  CHECK(prev(ctx).cast<ObjectRef>().same_as(payload));
  CHECK(ctx->GetTypeKey() == std::string("ffi.VisitErrorContext"));
  // The global behind FindAccessPaths, as other languages call it.
  Function find = Function::GetGlobalRequired("ffi.VisitErrorContext.FindAccessPaths");
  Node root(a, Leaf());
  Array<AccessPath> paths = find(root, ctx, false).cast<Array<AccessPath>>();
  REQUIRE(paths.size() == 1);
  CHECK(paths[0]->PathEqual(AccessPath::Root()->Attr("left")));
}

}  // namespace
