/*
 * tvmffi C++ layer: errors.
 *
 * Error is an ObjectRef to an ErrorObj (the ABI header + TVMFFIErrorCell)
 * that is also a std::exception. Error objects are always made by libtvmffi
 * (TVMFFIErrorCreate), so they stay valid whichever library raised them.
 *
 *   TVM_FFI_THROW(ValueError) << "bad size " << n;
 *   TVM_FFI_CHECK(n > 0, ValueError) << "n must be positive";
 *   TVM_FFI_ICHECK_EQ(a, b) << "internal invariant";
 *
 * Messages are built with a small string builder (no <sstream>): it prints
 * strings, numbers, bool, enums (as integers), pointers (hex), DLDataType
 * and DLDevice. The Error is made by an out-of-line cold function once the
 * message is complete, and thrown in the caller's frame (a frame less for
 * the unwinder to walk).
 */
#ifndef TVM_FFI_ERROR_H_
#define TVM_FFI_ERROR_H_

#include <tvm/ffi/details/string_like.h>
#include <tvm/ffi/device.h>
#include <tvm/ffi/object.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <string_view>

/*! \brief Set to 0 to skip the backtrace capture when TVM_FFI_THROW raises (faster throws). */
#ifndef TVM_FFI_BACKTRACE_ON_THROW
#define TVM_FFI_BACKTRACE_ON_THROW 1
#endif

namespace tvm {
namespace ffi {

class String;

/*!
 * \brief Thrown when the host already has an error pending (e.g. a Python
 *        KeyboardInterrupt seen through TVMFFIEnvCheckSignals); a safe call
 *        turns it into the return code -2 and leaves the host's error alone.
 */
struct EnvErrorAlreadySet : public std::exception {
  const char* what() const noexcept override { return "an error is already set in the host"; }
};

/*! \brief The Error object: header + TVMFFIErrorCell. Only libtvmffi creates them. */
class ErrorObj : public Object, public TVMFFIErrorCell {
 public:
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIError;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIError, ErrorObj, Object);

 protected:
  ErrorObj() = default;
};

/*! \brief An FFI error: kind (e.g. "ValueError"), message and backtrace. Throwable. */
class Error : public ObjectRef, public std::exception {
 public:
  /*!
   * \brief Create an error (through TVMFFIErrorCreate).
   * \param backtrace Most recent frame first; may be empty.
   */
  Error(std::string_view kind, std::string_view message, std::string_view backtrace = {})
      : ObjectRef(Create(kind, message, backtrace)) {}
  /*! \brief As above, with the backtrace as TVMFFIBacktrace returns it (may be NULL). */
  Error(std::string_view kind, std::string_view message, const TVMFFIByteArray* backtrace)
      : ObjectRef(Create(kind, message,
                         backtrace != nullptr ? std::string_view(backtrace->data, backtrace->size)
                                              : std::string_view())) {}

  /*!
   * \brief As above, with a String kind and/or message (upstream's constructor
   *        takes std::string, to which String converts).
   */
  template <typename K, typename M,
            std::enable_if_t<std::is_same_v<K, String> || std::is_same_v<M, String>, int> = 0>
  Error(const K& kind, const M& message, const TVMFFIByteArray* backtrace)
      : Error(TextOf(kind), TextOf(message), backtrace) {}

  /*!
   * \brief Create an error that records what caused it and/or an extra
   *        context object (either may be std::nullopt); the error holds a
   *        reference to each.
   */
  // Templates with non-deduced parameters: the std::optional types are then
  // instantiated only by files that use this (compile weight).
  template <typename CauseT = Error, typename ContextT = ObjectRef>
  Error(std::string_view kind, std::string_view message, std::string_view backtrace,
        std::optional<detail::TypeIdentity<CauseT>> cause_chain,
        std::optional<detail::TypeIdentity<ContextT>> extra_context)
      : ObjectRef(Create(kind, message, backtrace, ObjectUnsafeHandle(cause_chain),
                         ObjectUnsafeHandle(extra_context))) {}

  /*! \return The error that caused this one, if recorded. */
  template <typename CauseT = Error>
  std::optional<CauseT> cause_chain() const {
    if (cell()->cause_chain == nullptr) return std::nullopt;
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<CauseT>(
        detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(
            static_cast<TVMFFIObject*>(cell()->cause_chain)));
  }
  /*! \return The extra context object, if recorded. */
  template <typename ContextT = ObjectRef>
  std::optional<ContextT> extra_context() const {
    if (cell()->extra_context == nullptr) return std::nullopt;
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<ContextT>(
        detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(
            static_cast<TVMFFIObject*>(cell()->extra_context)));
  }
  /*!
   * \return "Traceback (most recent call last):\n<frames>Kind: message\n", the
   *         text Python prints for an uncaught error (the header is always there).
   */
  std::string FullMessage() const {
    std::string out = "Traceback (most recent call last):\n" + TracebackMostRecentCallLast();
    out.append(cell()->kind.data, cell()->kind.size);
    out.append(": ");
    out.append(cell()->message.data, cell()->message.size);
    out.push_back('\n');
    return out;
  }

  /*! \return The kind, e.g. "TypeError". */
  std::string kind() const { return std::string(cell()->kind.data, cell()->kind.size); }
  /*! \return The message. */
  std::string message() const { return std::string(cell()->message.data, cell()->message.size); }
  /*! \return The backtrace, most recent frame first. */
  std::string backtrace() const {
    return std::string(cell()->backtrace.data, cell()->backtrace.size);
  }
  /*! \return The backtrace lines in Python order (most recent call last). */
  std::string TracebackMostRecentCallLast() const {
    std::string_view bt(cell()->backtrace.data, cell()->backtrace.size);
    std::string out;
    out.reserve(bt.size() + 1);
    while (!bt.empty()) {
      size_t cut = bt.rfind('\n', bt.size() - 1);
      std::string_view line;
      if (cut == std::string_view::npos) {
        line = bt;
        bt = std::string_view();
      } else if (cut + 1 == bt.size()) {
        bt.remove_suffix(1);
        continue;
      } else {
        line = bt.substr(cut + 1);
        bt = bt.substr(0, cut);
      }
      out.append(line.data(), line.size());
      out.push_back('\n');
    }
    return out;
  }
  /*! \brief Replace or append to the backtrace (kTVMFFIBacktraceUpdateMode*). */
  void UpdateBacktrace(const TVMFFIByteArray* backtrace, int32_t update_mode) {
    ErrorObj* obj = static_cast<ErrorObj*>(get_mutable());
    obj->update_backtrace(detail::ObjectUnsafe::GetHeader(obj), backtrace, update_mode);
  }
  /*!
   * \return "Kind: message", preceded by the traceback when there is one.
   * \note The text lives in a thread-local buffer until the next what() on this thread.
   */
  const char* what() const noexcept override {
    thread_local std::string what_buffer;
    try {
      what_buffer.clear();
      if (cell()->backtrace.size != 0) {
        what_buffer = "Traceback (most recent call last):\n" + TracebackMostRecentCallLast();
      }
      what_buffer.append(cell()->kind.data, cell()->kind.size);
      what_buffer.append(": ");
      what_buffer.append(cell()->message.data, cell()->message.size);
      return what_buffer.c_str();
    } catch (...) {
      return "tvm::ffi::Error (out of memory formatting the message)";
    }
  }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Error, ObjectRef, ErrorObj);

 private:
  template <typename S>
  static std::string_view TextOf(const S& text) {
    if constexpr (std::is_same_v<S, String>) {
      return std::string_view(text.data(), text.size());
    } else {
      return std::string_view(text);
    }
  }
  const ErrorObj* cell() const noexcept { return static_cast<const ErrorObj*>(data_.get()); }
  static ObjectPtr<Object> Create(std::string_view kind, std::string_view message,
                                  std::string_view backtrace, TVMFFIObjectHandle cause = nullptr,
                                  TVMFFIObjectHandle extra = nullptr) {
    TVMFFIByteArray k{kind.data(), kind.size()};
    TVMFFIByteArray m{message.data(), message.size()};
    TVMFFIByteArray b{backtrace.data(), backtrace.size()};
    TVMFFIObjectHandle out = nullptr;
    int ret = cause == nullptr && extra == nullptr
                  ? TVMFFIErrorCreate(&k, &m, &b, &out)
                  : TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m, &b, cause, extra, &out);
    if (ret != 0 || out == nullptr) throw std::bad_alloc();
    return detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(out));
  }
  // Out of line: inlined, GCC 12 under -fsanitize takes a disengaged optional's
  // payload for read (-Wmaybe-uninitialized).
  template <typename T>
  TVM_FFI_NOINLINE static TVMFFIObjectHandle ObjectUnsafeHandle(
      const std::optional<T>& ref) noexcept {
    return ref.has_value() ? detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*ref) : nullptr;
  }
};

namespace detail {

/*! \brief Take the calling thread's raised error (a RuntimeError if none is set). */
inline Error MoveFromSafeCallRaised() {
  TVMFFIObjectHandle handle = nullptr;
  TVMFFIErrorMoveFromRaised(&handle);
  if (handle == nullptr) {
    return Error("RuntimeError", "an FFI call failed but raised no error");
  }
  TVMFFIObject* obj = static_cast<TVMFFIObject*>(handle);
  if (obj->type_index != TypeIndex::kTVMFFIError) {
    HeaderDecRef(obj);
    return Error("RuntimeError", "an FFI call raised an object that is not an Error");
  }
  return ObjectUnsafe::ObjectRefFromObjectPtr<Error>(ObjectUnsafe::ObjectPtrFromOwned<Object>(obj));
}

/*! \brief Park an error in the calling thread's slot (the slot takes its own reference). */
inline void SetSafeCallRaised(const Error& error) {
  TVMFFIErrorSetRaised(ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(error));
}

[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowRaisedError(int ret_code) {
  if (ret_code == -2) throw EnvErrorAlreadySet();
  throw MoveFromSafeCallRaised();
}

inline int32_t RegisterObjectType(const char* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  bool child_slots_can_overflow, int32_t parent_type_index) {
  TVMFFIByteArray key{type_key, std::char_traits<char>::length(type_key)};
  int32_t tindex = TVMFFITypeGetOrAllocIndex(&key, static_type_index, type_depth, num_child_slots,
                                             child_slots_can_overflow ? 1 : 0, parent_type_index);
  if (tindex < 0) ThrowRaisedError(-1);
  return tindex;
}

/*!
 * \brief The safe-call catch clauses: convert any exception into a raised error.
 *        An Error keeps its kind; std::bad_alloc is a MemoryError; any other
 *        exception is an InternalError (as upstream).
 */
TVM_FFI_COLD_CODE inline void SetRaisedFromStdException(const std::exception& ex) {
  const char* kind =
      dynamic_cast<const std::bad_alloc*>(&ex) != nullptr ? "MemoryError" : "InternalError";
  TVMFFIErrorSetRaisedFromCStr(kind, ex.what());
}
TVM_FFI_COLD_CODE inline void SetRaisedFromUnknownException() {
  TVMFFIErrorSetRaisedFromCStr("InternalError", "unknown C++ exception");
}

/*!
 * \brief The clauses of TVM_FFI_SAFE_CALL_END for code that has its own
 *        `catch (...)`: parks the in-flight exception; returns -1 (-2 for
 *        EnvErrorAlreadySet). Call only inside a catch block.
 */
TVM_FFI_COLD_CODE inline int SetRaisedFromCurrentException() noexcept {
  try {
    throw;
  } catch (const Error& err) {
    SetSafeCallRaised(err);
  } catch (const EnvErrorAlreadySet&) {
    return -2;
  } catch (const std::exception& ex) {
    SetRaisedFromStdException(ex);
  } catch (...) {
    SetRaisedFromUnknownException();
  }
  return -1;
}

/*! \brief The text of a message under construction. */
class ErrorMessageStream {
 public:
  std::string& str() noexcept { return buffer_; }
  /*! \brief An lvalue for `<<` chains that start on a temporary. */
  ErrorMessageStream& self() noexcept { return *this; }

 private:
  std::string buffer_;
};

inline ErrorMessageStream& operator<<(ErrorMessageStream& os, const char* value) {
  os.str().append(value != nullptr ? value : "(null)");
  return os;
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, char value) {
  os.str().push_back(value);
  return os;
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, const std::string& value) {
  os.str().append(value);
  return os;
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, std::string_view value) {
  os.str().append(value.data(), value.size());
  return os;
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, bool value) {
  os.str().append(value ? "true" : "false");
  return os;
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, std::nullptr_t) {
  os.str().append("nullptr");
  return os;
}
/*! \brief Integers (signed/unsigned char print as numbers) and floating point (%g). */
template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool> &&
                                           !std::is_same_v<T, char>,
                                       int> = 0>
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    int n = std::snprintf(buf, sizeof(buf), "%g", static_cast<double>(value));
    os.str().append(buf, n > 0 ? static_cast<size_t>(n) : 0);
  } else if constexpr (std::is_signed_v<T>) {
    os.str().append(std::to_string(static_cast<long long>(value)));
  } else {
    os.str().append(std::to_string(static_cast<unsigned long long>(value)));
  }
  return os;
}
/*! \brief Enums print as their integer value. */
template <typename T, std::enable_if_t<std::is_enum_v<T>, int> = 0>
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, T value) {
  return os << static_cast<std::underlying_type_t<T>>(value);
}
/*! \brief Pointers print in hex; char pointers print as strings. */
template <typename T>
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, T* value) {
  if constexpr (std::is_same_v<std::remove_cv_t<T>, char>) {
    return os << static_cast<const char*>(value);
  } else {
    char buf[32];
    int n = std::snprintf(buf, sizeof(buf), "0x%llx",
                          static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(value)));
    os.str().append(buf, n > 0 ? static_cast<size_t>(n) : 0);
    return os;
  }
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, const DLDevice& device) {
  return os << DLDeviceToString(device);
}

/*! \brief Append a data type as text ("float32x4"), via TVMFFIDataTypeToString. */
TVM_FFI_NOINLINE inline void AppendDataType(std::string* out, DLDataType dtype) {
  TVMFFIAny text;
  detail::SetAnyNone(&text);
  if (TVMFFIDataTypeToString(&dtype, &text) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    ObjectUnsafe::DecRefObjectHandle(err);
    out->append("DLDataType(code=" + std::to_string(dtype.code) + ", bits=" +
                std::to_string(dtype.bits) + ", lanes=" + std::to_string(dtype.lanes) + ")");
    return;
  }
  std::string_view view;
  int32_t klass;
  if (StringLikeView(&text, &view, &klass)) out->append(view.data(), view.size());
  if (text.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) HeaderDecRef(text.v_obj);
}
inline ErrorMessageStream& operator<<(ErrorMessageStream& os, const DLDataType& dtype) {
  AppendDataType(&os.str(), dtype);
  return os;
}

/*! \brief Whether `ErrorMessageStream << T` compiles. */
template <typename T, typename = void>
inline constexpr bool is_error_printable_v = false;
template <typename T>
inline constexpr bool is_error_printable_v<
    T, std::void_t<decltype(std::declval<ErrorMessageStream&>() << std::declval<const T&>())>> =
    true;

/*!
 * \brief The calling thread's message buffer of TVM_FFI_THROW. Messages are
 *        built here rather than in a temporary so that the throwing frame has
 *        nothing to destroy: no cleanup landing pad slows down the unwinding.
 */
inline ErrorMessageStream& ThrowMessageStream() noexcept {
  thread_local ErrorMessageStream stream;
  return stream;
}

/*!
 * \brief A TVM_FFI_THROW in progress: its error kind, and where its text
 *        starts in ThrowMessageStream(): the backtrace, then the message (a
 *        message's arguments may themselves build and throw nested errors, so
 *        nothing else holds the text in between).
 */
struct ErrorThrowSite {
  /*!
   * \param backtrace TVMFFIBacktrace's answer (NULL: none). TVM_FFI_THROW calls
   *        it in the throwing frame itself, so the unwinder walks no frame of
   *        this machinery and the backtrace starts at the throwing function.
   */
  TVM_FFI_COLD_CODE ErrorThrowSite(const char* kind_name, const TVMFFIByteArray* backtrace)
      : kind(kind_name) {
    std::string& buffer = ThrowMessageStream().str();
    start = buffer.size();
    if (backtrace != nullptr) buffer.append(backtrace->data, backtrace->size);
    message_start = buffer.size();
  }
  const char* kind;
  size_t start;          // this site's backtrace, up to message_start
  size_t message_start;  // this site's message, up to the end of the buffer
};

/*!
 * \brief The backtrace of a throw when TVM_FFI_BACKTRACE_ON_THROW is 0: the site
 *        alone, as TVMFFIBacktrace writes it (`  File "f.cc", line 7, in func`).
 */
TVM_FFI_COLD_CODE inline const TVMFFIByteArray* ThrowSiteLine(const char* file, int line,
                                                              const char* func) {
  thread_local std::string text;
  thread_local TVMFFIByteArray bytes;
  text =
      std::string("  File \"") + file + "\", line " + std::to_string(line) + ", in " + func + "\n";
  bytes = TVMFFIByteArray{text.data(), text.size()};
  return &bytes;
}

/*! \brief Create the Error of a site from its part of the buffer, and drop that part. */
inline Error MakeErrorFromSite(const ErrorThrowSite& site, std::string& buffer) {
  size_t start = site.start <= buffer.size() ? site.start : buffer.size();
  size_t mid = site.message_start <= buffer.size() ? site.message_start : buffer.size();
  if (mid < start) mid = start;
  Error error(site.kind, std::string_view(buffer.data() + mid, buffer.size() - mid),
              std::string_view(buffer.data() + start, mid - start));
  buffer.resize(start);
  return error;
}

/*!
 * \brief `site && stream`: the Error of a site once the whole `<<` chain is
 *        built (`&&` binds after `<<`, and its left operand, the site, is
 *        evaluated first). Out of line and cold, so throwing call sites stay
 *        small; TVM_FFI_THROW throws the result from the caller's own frame, so
 *        the unwinder has one frame fewer to walk (twice: search and cleanup).
 */
TVM_FFI_COLD_CODE inline Error operator&&(const ErrorThrowSite& site, ErrorMessageStream& message) {
  return MakeErrorFromSite(site, message.str());
}

/*!
 * \brief A TVM_FFI_LOG_AND_THROW in progress: a throw site whose error is also
 *        written to stderr before it is thrown, for code whose exceptions may
 *        never reach a handler that prints them.
 */
struct ErrorLogThrowSite : public ErrorThrowSite {
  using ErrorThrowSite::ErrorThrowSite;
};

/*!
 * \brief `site && stream` for a logging site: the Error, whose FullMessage()
 *        is written to stderr (unbuffered, one write) before it is returned.
 */
TVM_FFI_NOINLINE TVM_FFI_COLD inline Error operator&&(const ErrorLogThrowSite& site,
                                                      ErrorMessageStream& message) {
  Error error = MakeErrorFromSite(site, message.str());
  std::string text = error.FullMessage();
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  return error;
}

/*! \brief " (x vs. y)" when both values are printable, else "". Cold. */
template <typename X, typename Y>
TVM_FFI_COLD_CODE std::string CheckValuesToString(const X& x, const Y& y) {
  if constexpr (is_error_printable_v<X> && is_error_printable_v<Y>) {
    ErrorMessageStream os;
    os << " (" << x << " vs. " << y << ")";
    return std::move(os.str());
  } else {
    return std::string();
  }
}

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#define TVM_FFI_DEFINE_CHECK_OP_(Name, Op)                                   \
  template <typename X, typename Y, typename Str = std::string>              \
  TVM_FFI_INLINE std::optional<Str> LogCheck##Name(const X& x, const Y& y) { \
    if (TVM_FFI_PREDICT_TRUE(x Op y)) return std::nullopt;                   \
    return CheckValuesToString(x, y);                                        \
  }
TVM_FFI_DEFINE_CHECK_OP_(_EQ, ==)
TVM_FFI_DEFINE_CHECK_OP_(_NE, !=)
TVM_FFI_DEFINE_CHECK_OP_(_LT, <)
TVM_FFI_DEFINE_CHECK_OP_(_LE, <=)
TVM_FFI_DEFINE_CHECK_OP_(_GT, >)
TVM_FFI_DEFINE_CHECK_OP_(_GE, >=)
#undef TVM_FFI_DEFINE_CHECK_OP_
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Throw an Error of the given kind; stream the message into it.
 *        `TVM_FFI_THROW(ValueError) << "got " << n;` It is a throw-expression
 *        (`throw site && stream << ...`), usable wherever one is.
 */
#define TVM_FFI_THROW(ErrorKind)                                                           \
  throw ::tvm::ffi::detail::ErrorThrowSite(#ErrorKind, TVM_FFI_THROW_SITE_BACKTRACE_()) && \
      ::tvm::ffi::detail::ThrowMessageStream()
#if TVM_FFI_BACKTRACE_ON_THROW
#define TVM_FFI_THROW_SITE_BACKTRACE_() TVMFFIBacktrace(__FILE__, __LINE__, TVM_FFI_FUNC_SIG, 0)
#else
#define TVM_FFI_THROW_SITE_BACKTRACE_() \
  ::tvm::ffi::detail::ThrowSiteLine(__FILE__, __LINE__, TVM_FFI_FUNC_SIG)
#endif

/*!
 * \brief TVM_FFI_THROW that first writes the error's FullMessage() to stderr:
 *        for places where the exception may be lost (a destructor, a thread,
 *        a caller that does not print it). `TVM_FFI_LOG_AND_THROW(TypeError) << "...";`
 */
#define TVM_FFI_LOG_AND_THROW(ErrorKind)                                                      \
  throw ::tvm::ffi::detail::ErrorLogThrowSite(#ErrorKind, TVM_FFI_THROW_SITE_BACKTRACE_()) && \
      ::tvm::ffi::detail::ThrowMessageStream()

/*! \brief Throw ErrorKind unless cond holds: `TVM_FFI_CHECK(n > 0, ValueError) << "...";` */
#define TVM_FFI_CHECK(cond, ErrorKind) \
  if (TVM_FFI_PREDICT_TRUE(cond)) {    \
  } else                               \
    TVM_FFI_THROW(ErrorKind) << "Check failed: (" #cond ") is false: "

/*! \brief Internal invariant: throws InternalError unless cond holds. */
#define TVM_FFI_ICHECK(cond) TVM_FFI_CHECK(cond, InternalError)

#define TVM_FFI_CHECK_BINARY_OP_(Name, Op, x, y, ErrorKind)                      \
  if (auto tvm_ffi_check_values_ = ::tvm::ffi::detail::LogCheck##Name((x), (y)); \
      TVM_FFI_PREDICT_TRUE(!tvm_ffi_check_values_.has_value())) {                \
  } else                                                                         \
    TVM_FFI_THROW(ErrorKind) << "Check failed: " #x " " #Op " " #y << *tvm_ffi_check_values_ << ": "

/*!
 * \brief Throw ErrorKind unless x Op y; the message shows both values when printable:
 *        `TVM_FFI_CHECK_EQ(a.size(), b.size(), ValueError) << "size mismatch";`
 */
#define TVM_FFI_CHECK_EQ(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(_EQ, ==, x, y, ErrorKind)
#define TVM_FFI_CHECK_NE(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(_NE, !=, x, y, ErrorKind)
#define TVM_FFI_CHECK_LT(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(_LT, <, x, y, ErrorKind)
#define TVM_FFI_CHECK_LE(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(_LE, <=, x, y, ErrorKind)
#define TVM_FFI_CHECK_GT(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(_GT, >, x, y, ErrorKind)
#define TVM_FFI_CHECK_GE(x, y, ErrorKind) TVM_FFI_CHECK_BINARY_OP_(_GE, >=, x, y, ErrorKind)
/*! \brief Evaluates to x; throws ErrorKind if it is null. */
#define TVM_FFI_CHECK_NOTNULL(x, ErrorKind) \
  ((x) == nullptr ? (TVM_FFI_THROW(ErrorKind) << "Check not null: " #x), (x) : (x))

/*! \brief InternalError unless x Op y; the message shows both values when printable. */
#define TVM_FFI_ICHECK_EQ(x, y) TVM_FFI_CHECK_EQ(x, y, InternalError)
#define TVM_FFI_ICHECK_NE(x, y) TVM_FFI_CHECK_NE(x, y, InternalError)
#define TVM_FFI_ICHECK_LT(x, y) TVM_FFI_CHECK_LT(x, y, InternalError)
#define TVM_FFI_ICHECK_LE(x, y) TVM_FFI_CHECK_LE(x, y, InternalError)
#define TVM_FFI_ICHECK_GT(x, y) TVM_FFI_CHECK_GT(x, y, InternalError)
#define TVM_FFI_ICHECK_GE(x, y) TVM_FFI_CHECK_GE(x, y, InternalError)
/*! \brief Evaluates to x; InternalError if it is null. */
#define TVM_FFI_ICHECK_NOTNULL(x) TVM_FFI_CHECK_NOTNULL(x, InternalError)

/*!
 * \brief Debug-only invariants: the TVM_FFI_ICHECK* checks without NDEBUG;
 *        with NDEBUG nothing is evaluated (the operands still compile).
 */
#ifndef NDEBUG
#define TVM_FFI_DCHECK(x) TVM_FFI_ICHECK(x)
#define TVM_FFI_DCHECK_EQ(x, y) TVM_FFI_ICHECK_EQ(x, y)
#define TVM_FFI_DCHECK_NE(x, y) TVM_FFI_ICHECK_NE(x, y)
#define TVM_FFI_DCHECK_LT(x, y) TVM_FFI_ICHECK_LT(x, y)
#define TVM_FFI_DCHECK_LE(x, y) TVM_FFI_ICHECK_LE(x, y)
#define TVM_FFI_DCHECK_GT(x, y) TVM_FFI_ICHECK_GT(x, y)
#define TVM_FFI_DCHECK_GE(x, y) TVM_FFI_ICHECK_GE(x, y)
#define TVM_FFI_DCHECK_NOTNULL(x) TVM_FFI_ICHECK_NOTNULL(x)
#else
// `while (false)` keeps the statement (and a trailing `<< msg`) well formed but never run.
#define TVM_FFI_DCHECK(x) \
  while (false) TVM_FFI_ICHECK(x)
#define TVM_FFI_DCHECK_EQ(x, y) \
  while (false) TVM_FFI_ICHECK_EQ(x, y)
#define TVM_FFI_DCHECK_NE(x, y) \
  while (false) TVM_FFI_ICHECK_NE(x, y)
#define TVM_FFI_DCHECK_LT(x, y) \
  while (false) TVM_FFI_ICHECK_LT(x, y)
#define TVM_FFI_DCHECK_LE(x, y) \
  while (false) TVM_FFI_ICHECK_LE(x, y)
#define TVM_FFI_DCHECK_GT(x, y) \
  while (false) TVM_FFI_ICHECK_GT(x, y)
#define TVM_FFI_DCHECK_GE(x, y) \
  while (false) TVM_FFI_ICHECK_GE(x, y)
#define TVM_FFI_DCHECK_NOTNULL(x) (x)
#endif

/*! \brief Throw the raised error when a C API call returns nonzero. */
#define TVM_FFI_CHECK_SAFE_CALL(func)                          \
  {                                                            \
    int tvm_ffi_ret_code_ = (func);                            \
    if (TVM_FFI_PREDICT_FALSE(tvm_ffi_ret_code_ != 0)) {       \
      ::tvm::ffi::detail::ThrowRaisedError(tvm_ffi_ret_code_); \
    }                                                          \
  }

/*!
 * \brief Bracket a C-ABI function body: exceptions become a raised error and
 *        -1 (EnvErrorAlreadySet: -2); falling off the end returns 0.
 * \code
 * int MyCFunc(...) {
 *   TVM_FFI_SAFE_CALL_BEGIN();
 *   ...
 *   TVM_FFI_SAFE_CALL_END();
 * }
 * \endcode
 */
#define TVM_FFI_SAFE_CALL_BEGIN() \
  try {                           \
  (void)0
#define TVM_FFI_SAFE_CALL_END()                          \
  return 0;                                              \
  }                                                      \
  catch (const ::tvm::ffi::Error& err) {                 \
    ::tvm::ffi::detail::SetSafeCallRaised(err);          \
    return -1;                                           \
  }                                                      \
  catch (const ::tvm::ffi::EnvErrorAlreadySet&) {        \
    return -2;                                           \
  }                                                      \
  catch (const std::exception& ex) {                     \
    ::tvm::ffi::detail::SetRaisedFromStdException(ex);   \
    return -1;                                           \
  }                                                      \
  catch (...) {                                          \
    ::tvm::ffi::detail::RethrowIfForcedUnwind();         \
    ::tvm::ffi::detail::SetRaisedFromUnknownException(); \
    return -1;                                           \
  }                                                      \
  TVM_FFI_UNREACHABLE()

#endif  // TVM_FFI_ERROR_H_
