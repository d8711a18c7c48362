/*
 * tvmffi C++ layer: OverloadObjectDef, an ObjectDef whose methods, static
 * methods and constructors may be registered more than once under one name
 * (upstream's reflection/overload.h).
 *
 *   refl::OverloadObjectDef<ShapeObj>()
 *       .def(refl::init<int64_t>())                 // __ffi_init__(int)
 *       .def(refl::init<double>())                  // __ffi_init__(float)
 *       .def("scale", &ShapeObj::Scale<int64_t>)    // scale(self, int)
 *       .def("scale", &ShapeObj::Scale<double>)     // scale(self, float)
 *       .def_static("unit", &UnitInt)
 *       .def_static("unit", &UnitFloat)
 *       .def_ro("size", &ShapeObj::size);
 *
 * All registrations of a name share one Function (the type's method table
 * lists each signature, with its own type_schema metadata, pointing to it).
 * A call tries the overloads in the order they were registered and runs the
 * first whose argument count matches and whose every argument converts (as a
 * typed function would convert it: an int converts to a float parameter, a
 * float never to an int one). A name registered once behaves exactly as with
 * ObjectDef. When no overload fits, the TypeError "No matching overload ..."
 * lists why each one was refused.
 *
 * Constructors register the static method `__ffi_init__` and, on the first
 * one, the type attribute `__ffi_init__`, both the overloaded Function.
 * Fields (def_ro/def_rw) and type attributes cannot be overloaded and
 * register as with ObjectDef. Opt-in: only this header declares it (it
 * includes registry.h, which gives overload_cast).
 */
#ifndef TVM_FFI_REFLECTION_OVERLOAD_H_
#define TVM_FFI_REFLECTION_OVERLOAD_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/function_detail.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
namespace detail {

/*! \brief One overload of a name: a typed callable tried against packed arguments. */
class OverloadCandidate {
 public:
  virtual ~OverloadCandidate() = default;
  /*!
   * \brief Call when the count matches and every argument converts.
   * \return false (nothing called) otherwise, with *mismatch the first argument
   *         that does not convert, or -1 when the count is wrong.
   */
  virtual bool TryCall(const AnyView* args, int32_t num_args, Any* rv, int32_t* mismatch) const = 0;
  /*! \brief Why a TryCall that returned false refused the arguments (one line). */
  virtual std::string Refusal(const std::string& name, const AnyView* args, int32_t num_args,
                              int32_t mismatch) const = 0;
};

template <typename F, typename FType = typename FunctionInfo<F>::FType>
class TypedOverloadCandidate;

template <typename F, typename R, typename... Args>
class TypedOverloadCandidate<F, R(Args...)> : public OverloadCandidate {
 public:
  explicit TypedOverloadCandidate(F f) : f_(std::move(f)) {}

  bool TryCall(const AnyView* args, int32_t num_args, Any* rv, int32_t* mismatch) const final {
    if (num_args != static_cast<int32_t>(sizeof...(Args))) {
      *mismatch = -1;
      return false;
    }
    return TryCallFrom<0>(reinterpret_cast<const TVMFFIAny*>(args), rv, mismatch);
  }

  std::string Refusal(const std::string& name, const AnyView* args, int32_t num_args,
                      int32_t mismatch) const final {
    std::string sig = "`" + name + SignatureString<R, Args...>() + "`";
    if (mismatch < 0 || num_args != static_cast<int32_t>(sizeof...(Args))) {
      return "Mismatched number of arguments when calling: " + sig + ". Expected " +
             std::to_string(sizeof...(Args)) + " but got " + std::to_string(num_args) +
             " arguments";
    }
    return DescribeArg(std::index_sequence_for<Args...>{}, sig,
                       reinterpret_cast<const TVMFFIAny*>(args), mismatch);
  }

 private:
  template <typename U>
  static std::optional<U> Convert(const TVMFFIAny* arg) {
    if constexpr (std::is_same_v<U, AnyView> || std::is_same_v<U, Any>) {
      return U(AnyView::CopyFromTVMFFIAny(*arg));
    } else {
      return TypeTraits<U>::TryCastFromAnyView(arg);
    }
  }

  // Argument I is converted into this frame and passed on by reference with
  // those before it; the call happens at the end of the chain.
  template <size_t I, typename... Done>
  bool TryCallFrom(const TVMFFIAny* args, Any* rv, int32_t* mismatch, Done&&... done) const {
    if constexpr (I == sizeof...(Args)) {
      (void)args;
      (void)mismatch;
      if constexpr (std::is_void_v<R>) {
        (void)rv;
        f_(std::forward<Done>(done)...);
      } else {
        StoreResult<R>(rv, f_(std::forward<Done>(done)...));
      }
      return true;
    } else {
      using U = remove_cvref_t<TypeAt<I, Args...>>;
      std::optional<U> value = Convert<U>(args + I);
      if (!value.has_value()) {
        *mismatch = static_cast<int32_t>(I);
        return false;
      }
      return TryCallFrom<I + 1>(args, rv, mismatch, std::forward<Done>(done)..., *std::move(value));
    }
  }

  template <size_t... Is>
  static std::string DescribeArg(std::index_sequence<Is...>, const std::string& sig,
                                 [[maybe_unused]] const TVMFFIAny* args, int32_t index) {
    std::string out;
    ((static_cast<int32_t>(Is) == index
          ? (void)(out = "Mismatched type on argument #" + std::to_string(Is) + " when calling: " +
                         sig + ". Expected `" + TypeName<remove_cvref_t<Args>>() + "` but got `" +
                         TypeTraits<remove_cvref_t<Args>>::GetMismatchTypeInfo(args + Is) + "`")
          : (void)0),
     ...);
    return out;
  }

  F f_;
};

/*!
 * \brief The overloads of one name, behind one packed Function. The first is
 *        also kept as a typed Function, which a name without overloads calls
 *        directly (the same conversions and errors as ObjectDef's methods).
 */
struct OverloadSet {
  std::string name;
  Function first;
  std::vector<OverloadCandidate*> candidates;  // owned

  OverloadSet() = default;
  OverloadSet(const OverloadSet&) = delete;
  OverloadSet& operator=(const OverloadSet&) = delete;
  ~OverloadSet() {
    for (OverloadCandidate* c : candidates) delete c;
  }

  void Call(const AnyView* args, int32_t num_args, Any* rv) const {
    if (candidates.size() == 1) {
      first.CallPacked(args, num_args, rv);
      return;
    }
    int32_t mismatch = -1;
    for (OverloadCandidate* c : candidates) {
      if (c->TryCall(args, num_args, rv, &mismatch)) return;
    }
    // None matched. Ask each again where it refuses: a refused TryCall only
    // converts, and so the error path needs no per-candidate storage.
    std::string why;
    for (size_t i = 0; i < candidates.size(); ++i) {
      mismatch = -1;
      candidates[i]->TryCall(args, num_args, rv, &mismatch);
      why += "\n  Overload #" + std::to_string(i) + ": " +
             candidates[i]->Refusal(name, args, num_args, mismatch);
    }
    TVM_FFI_THROW(TypeError) << "No matching overload found when calling: `" << name << "` with "
                             << num_args << " arguments:" << why;
  }
};

/*!
 * \brief The packed Function of an overloaded name: it owns the OverloadSet
 *        (move-only, so the Function holds the only owner).
 */
class OverloadSetCall {
 public:
  explicit OverloadSetCall(OverloadSet* set) : set_(set) {}
  OverloadSetCall(OverloadSetCall&& other) noexcept : set_(other.set_) { other.set_ = nullptr; }
  OverloadSetCall(const OverloadSetCall&) = delete;
  OverloadSetCall& operator=(const OverloadSetCall&) = delete;
  OverloadSetCall& operator=(OverloadSetCall&&) = delete;
  ~OverloadSetCall() { delete set_; }
  void operator()(const AnyView* args, int32_t num_args, Any* rv) const {
    set_->Call(args, num_args, rv);
  }

 private:
  OverloadSet* set_;
};

}  // namespace detail

namespace reflection {

/*!
 * \brief ObjectDef that allows a method, static method or constructor name to
 *        be registered several times (see the top of this file).
 */
template <typename Class>
class OverloadObjectDef {
 public:
  /*! \param extra As ObjectDef's: a docstring of the type, and/or init(false). */
  template <typename... Extra>
  explicit OverloadObjectDef(Extra&&... extra)
      : def_(std::forward<Extra>(extra)...),
        type_index_(Class::_GetOrAllocRuntimeTypeIndex()),
        type_key_(Class::_type_key) {}
  OverloadObjectDef(const OverloadObjectDef&) = delete;
  OverloadObjectDef& operator=(const OverloadObjectDef&) = delete;

  /*! \brief A read-only field (fields are never overloaded). */
  template <typename T, typename Base, typename... Extra>
  OverloadObjectDef& def_ro(const char* name, T Base::*field, Extra&&... extra) {
    def_.def_ro(name, field, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A writable field (the class must be declared mutable). */
  template <typename T, typename Base, typename... Extra>
  OverloadObjectDef& def_rw(const char* name, T Base::*field, Extra&&... extra) {
    def_.def_rw(name, field, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A type attribute, as ObjectDef::def_type_attr. */
  template <typename Value>
  OverloadObjectDef& def_type_attr(const char* name, Value&& value) {
    def_.def_type_attr(name, std::forward<Value>(value));
    return *this;
  }
  /*! \brief A method, or one more overload of it; a member function takes the object first. */
  template <typename Func, typename... Extra>
  OverloadObjectDef& def(const char* name, Func&& func, Extra&&... extra) {
    RegisterMethod(name, false, std::forward<Func>(func), std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A static method, or one more overload of it. */
  template <typename Func, typename... Extra>
  OverloadObjectDef& def_static(const char* name, Func&& func, Extra&&... extra) {
    RegisterMethod(name, true, std::forward<Func>(func), std::forward<Extra>(extra)...);
    return *this;
  }
  /*!
   * \brief A constructor, or one more overload of it: the static method
   *        `__ffi_init__`, and on the first one the type attribute of that name.
   */
  template <typename... Args, typename... Extra>
  OverloadObjectDef& def(init<Args...>, Extra&&... extra) {
    auto make = [](Args... args) -> ObjectRef {
      return ObjectRef(make_object<Class>(std::forward<Args>(args)...));
    };
    Function method = RegisterMethod(type_attr::kInit, true, make, std::forward<Extra>(extra)...);
    if (!has_init_) {
      has_init_ = true;
      ::tvm::ffi::reflection::detail::RegisterTypeAttr(type_index_, type_attr::kInit, method);
    }
    return *this;
  }

 private:
  struct Named {
    std::string name;
    ::tvm::ffi::detail::OverloadSet* set;  // owned by `method`
    Function method;
  };

  // Registers one signature of `name`; returns the name's shared Function.
  template <typename Func, typename... Extra>
  Function RegisterMethod(const char* name, bool is_static, Func&& func, Extra&&... extra) {
    namespace fd = ::tvm::ffi::detail;
    auto callable = ::tvm::ffi::reflection::detail::AsFreeFunction(std::forward<Func>(func));
    using F = decltype(callable);
    Named* entry = nullptr;
    for (Named& n : names_) {
      if (n.name == name) entry = &n;
    }
    if (entry == nullptr) {
      fd::OverloadSet* set = new fd::OverloadSet();
      Function method = Function::FromPacked(fd::OverloadSetCall(set));
      set->name = std::string(type_key_) + "." + name;
      set->first = Function::FromTyped(callable, set->name);
      names_.push_back(Named{name, set, method});
      entry = &names_.back();
    }
    // The shared Function sees the new overload at once (registration is
    // expected at static initialisation, before any call).
    entry->set->candidates.reserve(entry->set->candidates.size() + 1);  // push_back cannot throw
    entry->set->candidates.push_back(new fd::TypedOverloadCandidate<F>(std::move(callable)));
    TVMFFIMethodInfo info{};
    ::tvm::ffi::reflection::detail::InfoExtras extras;
    std::string metadata;
    ::tvm::ffi::reflection::detail::FillMethodInfo<F>(&info, &extras, &metadata, name,
                                                      entry->method, extra...);
    info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMethod(type_index_, &info));
    return entry->method;
  }

  ObjectDef<Class> def_;
  int32_t type_index_;
  const char* type_key_;
  bool has_init_ = false;
  std::vector<Named> names_;
};

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_OVERLOAD_H_
