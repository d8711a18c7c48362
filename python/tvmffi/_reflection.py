"""Reflection over the C ABI, in Python: binding classes to registered object types.

The runtime describes every registered object type (its key, ancestors,
fields with getters and setters, methods) and keeps per-type attributes in
columns (``__ffi_init__``, ...). The extension reads them (:mod:`tvmffi._typeinfo`);
this module binds Python classes to them:

* :func:`type_info` gives a :class:`TypeInfo` (upstream's ``tvm_ffi.core.TypeInfo``:
  ``fields`` of :class:`TypeField`, ``methods`` of :class:`TypeMethod`, the parent).
* :func:`register_object` binds a Python class (a subclass of
  :class:`tvmffi.Object`) to a type key: FFI objects of that type come back as
  instances of it, its reflected fields become properties (read through the
  field's getter, written through its setter), its methods become methods, and
  ``__init__`` calls the type's ``__ffi_init__``.
* Types that no Python class is bound to get a generated class (upstream's
  "fallback" classes), so their fields and methods are reachable too.
* :func:`make_object` creates an object of a type from field values
  (``make_object("my.Type", x=1)``), filling the others with their defaults.
* :func:`pack` (:mod:`tvmffi._values`) converts a Python value as upstream's
  argument setters do.

The modules under it, each one concern, import in one direction:
``_abi`` (numbers of the C ABI) <- ``_cell`` (owned TVMFFIAny cells) <-
``_values`` (handles, packing) <- ``_typeinfo`` (type records) <- this one.
Their names are re-exported here, where the package's modules look them up.
"""

from __future__ import annotations

import ctypes
from typing import Any, Callable, Sequence, TypeVar

from . import _core
from ._abi import *  # noqa: F403  (the ABI's numbers, as _reflection.K_*, FLAG_*)
from ._abi import K_DYN_OBJECT_BEGIN, K_FUNCTION, K_OBJECT, K_OPAQUE_PY_OBJECT, K_TENSOR
from ._cell import (  # noqa: F401  (re-exported)
    AnyCell,
    _ptr_cell,
    call_cells,
    cell_to_py,
    copy_cell,
    error_cell,
    make_error_cell,
    object_from_handle,
    opaque_cell,
    raise_last_error,
    release_any,
    take_any,
    to_owned_any,
    view_to_py,
)
from ._core import Function, Object
from ._typeinfo import (  # noqa: F401  (re-exported)
    _FALLBACK,
    _UNSET,
    TYPE_CLS_TO_INFO,
    TYPE_INDEX_TO_CLS,
    TYPE_INDEX_TO_INFO,
    TYPE_KEY_TO_INFO,
    FFIProperty,
    FieldGetter,
    FieldInfo,
    FieldSetter,
    MethodInfo,
    TypeField,
    TypeInfo,
    TypeMethod,
    _drop_fallbacks_below,
    _lock,
    _update_registry,
    missing,
    register_by_index,
    register_type_attr,
    registered_type_keys,
    set_type_cls,
    type_attr,
    type_index_to_key,
    type_info,
    type_key_to_index,
)
from ._values import (  # noqa: F401  (re-exported)
    _NB_OBJECT_INIT,
    _NB_STATE_KNOWN,
    _OPAQUE_ARGUMENTS,
    OPAQUE_PTR_HANDLERS,
    ObjectConvertible,
    ObjectRValueRef,
    OpaquePyObject,
    _dtype_cls,
    _foreign_dtype,
    _is_torch_or_numpy_dtype,
    _nb_state,
    _pack,
    chandle_of,
    ensure_constructed,
    ffi_func,
    handle_of,
    is_constructed,
    pack,
    set_opaque_arguments,
    to_ffi_value,
    unwrap_opaque,
)

_T = TypeVar("_T", bound=type)

# -- generated ("fallback") classes for types without one --------------------

_next_dyn_index = [K_DYN_OBJECT_BEGIN]


def object_repr(obj: Any) -> str:
    """``obj`` as the runtime prints it (``ffi.ReprPrint``); never raises."""
    if not chandle_of(obj):
        return type(obj).__name__ + "(chandle=None)"
    try:
        return str(ffi_func("ffi.ReprPrint")(obj))
    except Exception:
        return f"{type(obj).__name__}({chandle_of(obj)})"


def fallback_class(type_index: int) -> type | None:
    """The class of a type, generated (with its fields and methods) when it has none."""
    cls = TYPE_INDEX_TO_CLS.get(type_index)
    if cls is not None:
        return cls
    info = type_info(type_index)
    if info is None:
        return None
    parent = info.parent_type_info
    base = fallback_class(parent.type_index) if parent is not None else Object
    if base is None:
        base = Object
    key = info.type_key
    cls = type(key.split(".")[-1], (base,), {"__slots__": ()})
    cls.__qualname__ = key
    cls.__module__ = ".".join(key.split(".")[:-1])
    cls.__doc__ = (
        f"Auto-generated fallback class for {key}.\n"
        "This class is generated because the class is not registered.\n"
        "Please do not use this class directly, instead register the class\n"
        "using `register_object` decorator."
    )
    cls.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
    for f in info.fields or ():
        # A field named like an attribute every class has (TVM's DictAttrs
        # reflects `__dict__`) cannot be a property of it: not set.
        if not hasattr(vars(type).get(f.name), "__set__"):
            setattr(cls, f.name, f.as_property(cls))
    for m in info.methods:
        setattr(cls, m.name, m.as_callable(cls))
    cls.__repr__ = object_repr  # type: ignore[assignment]
    _FALLBACK.add(cls)
    set_type_cls(info, cls)
    return cls


def sync_type_table() -> None:
    """Generate classes for the types registered since the last call that have none."""
    with _lock:
        # The table has gaps (child slots a type reserved and no subclass has
        # taken yet): walk to the runtime's end, not to the first gap.
        end = _core.get_global_func("ffi._TypeIndexEnd", True)
        index = int(end()) if end is not None else _next_dyn_index[0]
        while _core._type_key_of(index) is not None:
            index += 1
        _next_dyn_index[0] = index
        for i in range(K_DYN_OBJECT_BEGIN, index):
            if i not in TYPE_INDEX_TO_CLS:
                fallback_class(i)


# -- objects -----------------------------------------------------------------

_KWARGS: list[Any] = []


def kwargs_marker() -> Object:
    """The object that separates positional from keyword arguments (``ffi.GetKwargsObject``)."""
    if not _KWARGS:
        _KWARGS.append(_core.get_global_func("ffi.GetKwargsObject")())
    return _KWARGS[0]


def pack_kwargs(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    """Positional arguments, then (with keywords) the kwargs marker and key, value pairs."""
    out = list(args)
    if kwargs:
        out.append(kwargs_marker())
        for k, v in kwargs.items():
            out.append(k)
            out.append(v)
    return out


def make_object(type_key: str | int, **fields: Any) -> Object:
    """A new object of a type, its fields set from ``fields``, the others to their defaults.

    TypeError for a field with no default left unset or a name the type has
    no field for; ValueError when the type is unknown or cannot be created
    empty (it has no creator).
    """
    info = type_info(type_key)
    if info is None:
        raise ValueError(f"Unknown object type `{type_key}`")
    creator = info.creator
    if creator is not None:
        obj = _core._create_object(creator)
    else:
        new = type_attr(info.type_index, "__ffi_new__")
        if new is None:
            raise ValueError(f"Type `{info.type_key}` cannot be created by reflection (no creator)")
        obj = new()
    addr = chandle_of(obj)
    remaining = dict(fields)
    for f in info.all_fields():
        if f.name in remaining:
            f.set_at(addr, remaining.pop(f.name))
        elif f.has_default:
            f.set_default(addr)
        else:
            raise TypeError(f"Required field `{f.name}` not set in type `{info.type_key}`")
    if remaining:
        raise TypeError(f"Type `{info.type_key}` has no field `{next(iter(remaining))}`")
    return obj


def init_handle_by_constructor(self: Object, constructor: Callable[..., Any], *args: Any) -> None:
    """Make ``self`` refer to the object ``constructor(*args)`` returns."""
    obj = constructor(*[to_ffi_value(a) for a in args])
    if isinstance(obj, ObjectRValueRef):
        obj = obj.obj
    if not isinstance(obj, Object):
        raise TypeError(f"the constructor returned {type(obj).__name__}, not an object")
    ensure_constructed(self)
    _core._init_from(self, obj)


def _install_ffi_init_attr(cls: type, info: TypeInfo, ffi_init: Any) -> None:
    """``self.__ffi_init__(*args, **kwargs)``: construct ``self`` with the type's ``__ffi_init__``."""
    missing_obj = missing()
    type_name = cls.__name__

    def __ffi_init__(self: Any, /, *args: Any, **kwargs: Any) -> None:  # a field may be "self"
        if info is not getattr(type(self), "__tvm_ffi_type_info__", None):
            raise TypeError(
                f"Calling `{type_name}.__ffi_init__()` on a `{type(self).__name__}` instance is not "
                f"supported. Define `{type(self).__name__}` with init=True."
            )
        kw = {k: v for k, v in kwargs.items() if v is not missing_obj}
        init_handle_by_constructor(self, ffi_init, *pack_kwargs(args, kw))

    __ffi_init__.__qualname__ = f"{cls.__qualname__}.__ffi_init__"
    __ffi_init__.__module__ = cls.__module__
    cls.__ffi_init__ = __ffi_init__  # type: ignore[attr-defined]


def find_ffi_init(info: TypeInfo) -> Any:
    """The type's ``__ffi_init__`` (its method, else its type attribute); None if it has none."""
    for m in info.methods:
        if m.name == "__ffi_init__":
            return m.func
    return type_attr(info.type_index, "__ffi_init__")


def add_class_attrs(
    cls: type,
    info: TypeInfo,
    type_attr_names: Any = (),
    *,
    frozen: bool = False,
    ancestors: bool = True,
) -> type:
    """Give ``cls`` the fields (properties) and methods of ``info`` (upstream's ``_add_class_attrs``).

    With ``ancestors``, the fields and methods of ancestor types that no
    Python base class of ``cls`` is bound to are added too.
    """
    defined: set[str] = set()
    for klass in cls.__mro__:
        if klass is Object or klass is object:
            break
        if klass is not cls:
            defined.update(vars(klass))
    chain = [info]
    parent = info.parent_type_info
    while ancestors and parent is not None:
        if (
            parent.type_cls is not None
            and isinstance(cls, type)
            and issubclass(cls, parent.type_cls)
        ):
            break
        chain.append(parent)
        parent = parent.parent_type_info
    own = set(vars(cls))
    for ti in chain:
        for f in ti.fields or ():
            if f.name in own or (ti is not info and f.name in defined):
                continue
            if frozen and ti is info:
                f.frozen = True
            setattr(cls, f.name, f.as_property(cls))
            own.add(f.name)
    has_ffi_init = False
    for ti in chain:
        for m in ti.methods:
            if m.name == "__ffi_init__":
                if ti is info:
                    _install_ffi_init_attr(cls, info, m.func)
                    has_ffi_init = True
                continue
            if m.name in own or hasattr(cls, m.name):
                continue
            setattr(cls, m.name, m.as_callable(cls))
            own.add(m.name)
    if not has_ffi_init:
        ffi_init = type_attr(info.type_index, "__ffi_init__")
        if ffi_init is not None:
            _install_ffi_init_attr(cls, info, ffi_init)
    for name in type_attr_names:
        value = type_attr(info.type_index, name)
        if value is not None and name not in vars(cls):
            setattr(cls, name, value)
    return cls


def install_init(cls: type, info: TypeInfo) -> None:
    """``__init__`` through the type's ``__ffi_init__`` (or a TypeError guard when it has none)."""
    if "__init__" in vars(cls):
        return
    ffi_init = find_ffi_init(info)
    if ffi_init is not None:
        from ._dunder import _make_init

        cls.__init__ = _make_init(cls, info, ffi_init=ffi_init)  # type: ignore[misc]
        return
    type_name = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            f"`{type_name}` cannot be constructed directly. "
            "Define a custom __init__ or use a factory method."
        )

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    cls.__init__ = __init__  # type: ignore[misc]


def bind_class(cls: _T, info: TypeInfo, *, init: bool = True, frozen: bool = False) -> _T:
    """Give ``cls`` the fields and methods of ``info`` and use it for that type's objects."""
    fresh = register_by_index(info.type_index, cls)
    add_class_attrs(cls, fresh, frozen=frozen)
    cls.__tvm_ffi_type_info__ = fresh  # type: ignore[attr-defined]
    if init:
        install_init(cls, fresh)
    if "__init_handle_by_constructor__" not in vars(Object):
        cls.__init_handle_by_constructor__ = init_handle_by_constructor  # type: ignore[attr-defined]
    sync_type_table()
    return cls


def register_object(type_key: str | None = None, *, init: bool = True) -> Callable[[_T], _T]:
    """Bind a Python class to the registered FFI type ``type_key`` (default: the class name).

    ``@register_object("my.Type") class MyType(tvmffi.Object): ...``: objects of
    that type come back from FFI calls as ``MyType``; its reflected fields are
    properties, its methods are methods, and ``MyType(*args, **kwargs)`` calls
    the type's ``__ffi_init__`` (unless the class defines ``__init__`` or
    ``init=False``). ValueError when no such type is registered.
    """

    def register(cls: _T) -> _T:
        key = type_key if isinstance(type_key, str) else cls.__name__
        index = type_key_to_index(key)
        if index is None:
            raise ValueError(f"Cannot find object type index for {key}")
        return bind_class(cls, type_info(index), init=init)  # type: ignore[arg-type]

    if isinstance(type_key, type):  # used bare: @register_object
        cls, type_key = type_key, None
        return register(cls)  # type: ignore[return-value]
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError("type_key must be a string, type, or None")
    return register


# -- upstream's methods of every Object ---------------------------------------


def _object_new(cls: type) -> Any:
    return cls.__new__(cls)


def _install_object_methods() -> None:
    """Upstream's ``CObject`` methods that the extension's Object lacks."""

    def __chandle__(self: Any) -> int:
        return chandle_of(self)

    def __ctypes_handle__(self: Any) -> ctypes.c_void_p:
        return ctypes.c_void_p(chandle_of(self))

    def id_(self: Any) -> int:
        """The address of the object (``__chandle__()``); 0 for a null reference."""
        return chandle_of(self)

    def is_(self: Any, other: Any) -> bool:
        """Whether both refer to the same FFI object (``same_as``)."""
        return isinstance(other, Object) and chandle_of(self) == chandle_of(other)

    def _move(self: Any) -> ObjectRValueRef:
        return ObjectRValueRef(self)

    def __move_handle_from__(self: Any, other: Any) -> None:
        ensure_constructed(self)
        _core._init_from(self, other)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # A second __init__ (``super().__init__()`` once the handle is set) does nothing.
        if _NB_STATE_KNOWN and _nb_state(self) == 2:
            return
        _NB_OBJECT_INIT(self, *args, **kwargs)

    def __reduce__(self: Any) -> Any:
        return (_object_new, (type(self),), self.__getstate__())

    def __getstate__(self: Any) -> dict[str, Any]:
        if not chandle_of(self):
            return {"handle": None}
        return {"handle": str(ffi_func("ffi.ToJSONGraphString")(self, None))}

    def __setstate__(self: Any, state: dict[str, Any]) -> None:
        handle = state["handle"]
        if handle is not None:
            init_handle_by_constructor(self, ffi_func("ffi.FromJSONGraphString"), handle)

    patches = {
        "__chandle__": __chandle__,
        "__ctypes_handle__": __ctypes_handle__,
        "id_": property(id_),
        "is_": is_,
        "_move": _move,
        "__move_handle_from__": __move_handle_from__,
        "__init_handle_by_constructor__": init_handle_by_constructor,
        "__reduce__": __reduce__,
        "__getstate__": __getstate__,
        "__setstate__": __setstate__,
    }
    if _NB_STATE_KNOWN:
        Object.__init__ = __init__  # type: ignore[misc]
    for name, value in patches.items():
        if name not in vars(Object):
            setattr(Object, name, value)


_install_object_methods()


def _bind_builtin_classes() -> None:
    """Type records for the classes the extension itself uses (Object, Function, Tensor)."""
    from ._core import Tensor

    for cls, index in ((Object, K_OBJECT), (Function, K_FUNCTION), (Tensor, K_TENSOR)):
        info = type_info(index)
        if info is not None:
            _update_registry(info, cls)
            if "__tvm_ffi_type_info__" not in vars(cls):
                cls.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
    info = type_info(K_OPAQUE_PY_OBJECT)
    if info is not None:
        OpaquePyObject.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
        set_type_cls(info, OpaquePyObject)


_bind_builtin_classes()
