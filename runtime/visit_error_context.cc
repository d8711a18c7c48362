/*
 * The runtime's part of tvm/ffi/extra/visit_error_context.h: the reflection
 * of ffi.VisitErrorContext (fields reverse_visit_pattern and
 * prev_error_context) and upstream's global
 *
 *   ffi.VisitErrorContext.FindAccessPaths(root, context, allow_prefix_match)
 *       -> Array<AccessPath>
 *
 * The search is a depth-first walk of `root` that keeps how many of the
 * recorded nodes (outermost first) it has met on the way down. Meeting the
 * next wanted node moves the count on; meeting the last one records the path
 * and stops that branch. Objects are walked through their reflected fields,
 * Array/List by index and Map/Dict by value (the key becomes the step).
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/visit_error_context.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdio>
#include <exception>
#include <utility>
#include <vector>

#include "builtin_def.h"

namespace tvm {
namespace ffi {
namespace {

using reflection::AccessKind;
using reflection::AccessPath;
using reflection::AccessStep;

class AccessPathSearch {
 public:
  AccessPathSearch(const VisitErrorContext& context, bool allow_prefix_match)
      : allow_prefix_match_(allow_prefix_match) {
    // Outermost first; undefined entries dropped; a node recorded twice in a
    // row (VISIT_THROW and VISIT_END of the same node) counts once.
    const List<ObjectRef>& recorded = context->reverse_visit_pattern;
    for (int64_t i = static_cast<int64_t>(recorded.size()) - 1; i >= 0; --i) {
      ObjectRef node = recorded[i];
      if (!node.defined()) continue;
      if (!wanted_.empty() && wanted_.back().same_as(node)) continue;
      wanted_.push_back(std::move(node));
    }
  }

  Array<AccessPath> Run(const ObjectRef& root) {
    if (!wanted_.empty()) VisitObject(root.get());
    return Array<AccessPath>(found_.begin(), found_.end());
  }

 private:
  // One step of the current path, kept cheap: AccessPath objects are only
  // made for the paths reported.
  struct Step {
    AccessKind kind;
    const TVMFFIFieldInfo* field;  // kAttr
    int64_t index;                 // kArrayItem
    Any key;                       // kMapItem
  };

  void VisitValue(const Any& value) {
    if (value.type_index() < TypeIndex::kTVMFFIStaticObjectBegin) return;
    VisitObject(value.cast<const Object*>());
  }

  void VisitObject(const Object* node) {
    if (node == nullptr) return;
    // A mutable container may hold itself: never walk into a node twice on one path.
    for (const Object* open : open_) {
      if (open == node) return;
    }
    bool matched = node == wanted_[matched_].get();
    if (matched && ++matched_ == wanted_.size()) {
      found_.push_back(CurrentPath());
      --matched_;
      return;
    }
    size_t found_before = found_.size();
    open_.push_back(node);
    VisitChildren(node);
    open_.pop_back();
    if (matched) {
      // The deepest node of a partial match (not the root alone: that says nothing).
      if (allow_prefix_match_ && found_.size() == found_before && !steps_.empty()) {
        found_.push_back(CurrentPath());
      }
      --matched_;
    }
  }

  void VisitChildren(const Object* node) {
    int32_t type_index = node->type_index();
    if (type_index == TypeIndex::kTVMFFIArray || type_index == TypeIndex::kTVMFFIList) {
      const auto* seq = static_cast<const SeqBaseObj*>(node);
      for (size_t i = 0; i < seq->size(); ++i) {
        steps_.push_back(Step{AccessKind::kArrayItem, nullptr, static_cast<int64_t>(i), Any()});
        VisitValue((*seq)[static_cast<int64_t>(i)]);
        steps_.pop_back();
      }
      return;
    }
    if (type_index == TypeIndex::kTVMFFIMap || type_index == TypeIndex::kTVMFFIDict) {
      const auto* map = static_cast<const MapBaseObj*>(node);
      for (auto it = map->begin(); it != map->end(); ++it) {
        steps_.push_back(Step{AccessKind::kMapItem, nullptr, 0, it.key()});
        VisitValue(it.value());
        steps_.pop_back();
      }
      return;
    }
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
    if (info == nullptr) return;
    reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* field) {
      Any value = reflection::FieldGetter(field)(node);
      steps_.push_back(Step{AccessKind::kAttr, field, 0, Any()});
      VisitValue(value);
      steps_.pop_back();
    });
  }

  AccessPath CurrentPath() const {
    AccessPath path = AccessPath::Root();
    for (const Step& step : steps_) {
      switch (step.kind) {
        case AccessKind::kAttr:
          path =
              path->Extend(AccessStep::Attr(String(step.field->name.data, step.field->name.size)));
          break;
        case AccessKind::kArrayItem:
          path = path->Extend(AccessStep::ArrayItem(step.index));
          break;
        default:
          path = path->Extend(AccessStep::MapItem(step.key));
          break;
      }
    }
    return path;
  }

  bool allow_prefix_match_;
  std::vector<ObjectRef> wanted_;  // recorded nodes, outermost first
  size_t matched_ = 0;             // how many of wanted_ the current path has met
  std::vector<Step> steps_;        // the current path from the root
  std::vector<const Object*> open_;
  std::vector<AccessPath> found_;
};

Array<AccessPath> FindAccessPathsGlobal(const ObjectRef& root, const VisitErrorContext& context,
                                        bool allow_prefix_match) {
  return AccessPathSearch(context, allow_prefix_match).Run(root);
}

void RegisterVisitErrorContext() noexcept {
  try {
    reflection::ObjectDef<VisitErrorContextObj>()
        .def_ro("reverse_visit_pattern", &VisitErrorContextObj::reverse_visit_pattern)
        .def_ro("prev_error_context", &VisitErrorContextObj::prev_error_context);
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register ffi.VisitErrorContext: %s", e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

[[maybe_unused]] const bool kVisitErrorContextRegistered = [] {
  RegisterVisitErrorContext();
  tvmffi::rt::BuiltinDef().def("ffi.VisitErrorContext.FindAccessPaths", FindAccessPathsGlobal);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm
