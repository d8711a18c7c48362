"""Hostile input from Python never crashes, hangs or corrupts (issue #25, Python half).

One test (or one parametrized family) per class of tests/RELIABILITY.md,
"Hostile input from Python": each asserts the exact exception type and a
fragment of its message, and that nothing else changed. All of them run under
AddressSanitizer + UBSan in CI (.ci/test.sh, run_pytest asan), where a read
after free or an overflow fails the run.
"""

from __future__ import annotations

import ctypes
import gc
import re
import sys
import threading
from types import ModuleType
from typing import Any, Callable

import pytest

import tvmffi

# A Python function registered as an FFI function: its arguments go Python ->
# FFI (the conversion under test) -> Python, and its result back again.
ECHO = tvmffi.Function(lambda x: x)


def py(value: Any) -> Any:
    """FFI containers as plain Python values, for comparisons."""
    if isinstance(value, tvmffi.Array):
        return [py(v) for v in value]
    if isinstance(value, tvmffi.Map):
        return {py(k): py(v) for k, v in value.items()}
    if isinstance(value, tvmffi.Shape):
        return tuple(value)
    return value


def both_ways(value: Any) -> list[Any]:
    """``value`` converted by tvmffi.convert and as a call argument (each its own copy)."""
    return [tvmffi.convert(value), ECHO(value)]


# --------------------------------------------------------------------------
# 1. A container changed while it is converted.
# --------------------------------------------------------------------------
class _Hook:
    """An int-like whose __index__ runs `action` (mid-conversion) and returns `value`."""

    def __init__(self, action: Callable[[], None], value: int = 7) -> None:
        self.action = action
        self.value = value

    def __index__(self) -> int:
        self.action()
        return self.value


def _grow_dict() -> tuple[Any, list[Any], Callable[[Any], None]]:
    d: dict[Any, Any] = {"b": 2}
    d["a"] = _Hook(lambda: d.update({f"new{k}": k for k in range(1000)}))
    d["c"] = 3

    def check(orig: Any) -> None:
        assert len(orig) == 1003 and orig["b"] == 2 and orig["c"] == 3 and orig["new999"] == 999

    return d, [{"b": 2, "a": 7, "c": 3}], check


def _grow_dict_from_key() -> tuple[Any, list[Any], Callable[[Any], None]]:
    d: dict[Any, Any] = {}
    d[_Hook(lambda: d.update({k: k for k in range(100, 1100)}), value=1)] = "x"
    # A key hashes by identity: it is an object, converted to 1 by its __index__.
    d[2] = "y"

    def check(orig: Any) -> None:
        assert len(orig) == 1002 and orig[2] == "y" and orig[1099] == 1099

    return d, [{1: "x", 2: "y"}], check


def _clear_list() -> tuple[Any, list[Any], Callable[[Any], None]]:
    lst: list[Any] = [1, None, 3, "four"]
    lst[1] = _Hook(lst.clear, value=5)

    def check(orig: Any) -> None:
        assert orig == []

    return lst, [[1, 5, 3, "four"]], check


def _grow_list() -> tuple[Any, list[Any], Callable[[Any], None]]:
    lst: list[Any] = [1.5, None, "z"]
    lst[1] = _Hook(lambda: lst.extend(range(100_000)))  # its storage is reallocated

    def check(orig: Any) -> None:
        assert len(orig) == 100_003 and orig[0] == 1.5 and orig[2] == "z"

    return lst, [[1.5, 7, "z"]], check


def _shrink_outer_from_inner() -> tuple[Any, list[Any], Callable[[Any], None]]:
    outer: list[Any] = [[0, None], {"k": None}, "tail"]
    outer[0][1] = _Hook(lambda: outer.__delitem__(slice(1, None)), value=1)
    outer[1]["k"] = 9  # removed from `outer` meanwhile, still converted from the snapshot

    def check(orig: Any) -> None:
        assert len(orig) == 1 and orig[0][0] == 0

    return outer, [[[0, 1], {"k": 9}, "tail"]], check


class _DLPackClears:
    """A tensor producer whose __dlpack__ clears the list it is in."""

    def __init__(self, lst: list[Any], np: ModuleType) -> None:
        self.lst = lst
        self.tensor = tvmffi.from_dlpack(np.arange(3, dtype=np.float32))

    def __dlpack__(self, **kwargs: Any) -> Any:
        self.lst.clear()
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


@pytest.mark.parametrize(
    "make",
    [_grow_dict, _grow_dict_from_key, _clear_list, _grow_list, _shrink_outer_from_inner],
    ids=lambda f: f.__name__.lstrip("_"),
)
def test_1_container_changed_during_conversion(make: Callable[[], Any]) -> None:
    # Each way converts a fresh container (the hook changes the one it is in).
    for way in (tvmffi.convert, ECHO):
        value, (expected,), check = make()
        result = way(value)
        # The items as they were when the container's conversion began ...
        assert py(result) == expected
        # ... and the original has exactly what the hook did to it, nothing else.
        check(value)


def test_1_tensor_producer_changes_container(np: ModuleType) -> None:
    for way in (tvmffi.convert, ECHO):
        lst: list[Any] = [1, None, 2]
        lst[1] = _DLPackClears(lst, np)
        result = way(lst)
        assert lst == []
        assert result[0] == 1 and result[2] == 2
        assert np.from_dlpack(result[1]).tolist() == [0.0, 1.0, 2.0]


def test_1_borrowed_tensor_changed_by_another_argument(torch: ModuleType) -> None:
    # A torch tensor lent through the exchange API's DLTensor (no owner) that a
    # later argument's hook resizes or re-stores: refused, never passed stale.
    # (Through a DLPack capsule the export owns the old storage: then it passes.)
    changed = "changed while the call's arguments were converted"
    take = tvmffi.Function(lambda *args: len(args))
    for change in (lambda t: t.resize_(1 << 20), lambda t: t.set_(torch.ones(8).storage())):
        x = torch.zeros(4)
        try:
            assert take(x, _Hook(lambda: change(x))) == 2
        except ValueError as err:
            assert f"argument #0 (type 'Tensor') {changed}" in str(err)
        try:
            assert take(torch.zeros(3), [x, _Hook(lambda: change(x))]) == 2
        except ValueError as err:
            assert changed in str(err)
    y = torch.zeros(4)
    assert take(y, _Hook(lambda: None), y) == 3  # a hook that changes nothing
    assert y.tolist() == [0.0] * 4


def test_1_lent_numpy_array_changed_by_another_argument(np: ModuleType) -> None:
    # A numpy array lent from its own fields (no buffer view) that a later
    # argument's hook reallocates, re-shapes or re-types: refused, never stale.
    changed = "argument #0 (type 'numpy.ndarray') changed while the call's arguments were converted"
    seen: list[Any] = []
    take = tvmffi.Function(lambda *args: seen.append(args[0].shape))

    def grow(a: Any) -> None:
        a.resize(1 << 16, refcheck=False)

    def reshape(a: Any) -> None:
        a.shape = (2, 2)

    def freeze(a: Any) -> None:
        a.setflags(write=False)

    for change in (grow, reshape, freeze):
        x = np.zeros(4, np.float32)
        with pytest.raises(ValueError, match=re.escape(changed)):
            take(x, _Hook(lambda: change(x)))
    y = np.zeros(4, np.float32)
    take(y, _Hook(lambda: None))  # a hook that changes nothing
    assert seen == [(4,)]


# --------------------------------------------------------------------------
# 2. Self-referential or very deeply nested containers.
# --------------------------------------------------------------------------
_NESTED = "while converting a nested list, tuple or dict to a tvmffi value"
_C_STACK = "nested too deeply to convert on this thread's C stack"


def _self_list() -> Any:
    a: list[Any] = [1]
    a.append(a)
    return a


def _self_dict() -> Any:
    d: dict[str, Any] = {"x": 1}
    d["self"] = d
    return d


def _cycle_through_tuple() -> Any:
    a: list[Any] = []
    a.append(({"k": a},))
    return a


@pytest.mark.parametrize(
    "make", [_self_list, _self_dict, _cycle_through_tuple], ids=lambda f: f.__name__.lstrip("_")
)
def test_2_self_referential_container(make: Callable[[], Any]) -> None:
    value = make()
    before = repr(value)
    for way in (tvmffi.convert, ECHO):
        with pytest.raises(RecursionError, match=_NESTED):
            way(value)
    assert repr(value) == before
    # The recursion depth was given back: a 200-deep value still converts.
    deep: list[Any] = [0]
    for _ in range(200):
        deep = [deep]
    assert tvmffi.convert(deep) is not None


def _deep(n: int) -> list[Any]:
    x: list[Any] = ["leaf"]
    for _ in range(n):
        x = [x]
    return x


def test_2_deep_nesting_past_any_recursion_limit() -> None:
    # With the interpreter's limit out of the way, the C stack check still
    # holds. (Python >= 3.12 counts C recursion apart, with a limit of its own
    # that setrecursionlimit does not raise: that one may come first.)
    value = _deep(200_000)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(10**6)
    try:
        for way in (tvmffi.convert, ECHO):
            with pytest.raises(
                RecursionError,
                match=_C_STACK if sys.version_info < (3, 12) else f"{_C_STACK}|{_NESTED}",
            ):
                way(value)
    finally:
        sys.setrecursionlimit(old)
    with pytest.raises(RecursionError, match=_NESTED):
        tvmffi.convert(value)  # the interpreter's own limit, first


def test_2_deep_nesting_on_a_small_thread_stack() -> None:
    errors: list[BaseException] = []
    value = _deep(5_000)

    def run() -> None:
        try:
            tvmffi.convert(value)
        except BaseException as err:
            errors.append(err)

    old_limit, old_size = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(10**6)
    threading.stack_size(512 * 1024)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    assert len(errors) == 1 and isinstance(errors[0], RecursionError)
    assert _C_STACK in str(errors[0]) or (sys.version_info >= (3, 12) and _NESTED in str(errors[0]))


def test_2_deep_ffi_containers_back_to_python() -> None:
    # FFI -> Python does not recurse in C (containers come back as Array / Map
    # objects); Python code walking a deep one meets the interpreter's limit,
    # and repr (the runtime's ReprPrint) stops at a bounded depth.
    deep: Any = tvmffi.convert([])
    for _ in range(20_000):
        deep = tvmffi.convert([deep])
    assert len(deep) == 1 and isinstance(deep[0], tvmffi.Array)
    assert ECHO(deep).same_as(deep)
    with pytest.raises(RecursionError):
        py(deep)
    assert "..." in repr(deep)
    del deep  # released without recursion (the runtime's bounded release)
    gc.collect()


# --------------------------------------------------------------------------
# 3. A Python callback keeps a tensor it was lent.
# --------------------------------------------------------------------------
def _poke(t: tvmffi.Tensor, index: int, value: float) -> None:
    ctypes.c_float.from_address(t.data_ptr() + 4 * index).value = value


def test_3_callback_keeps_lent_tensor(np: ModuleType) -> None:
    kept: list[Any] = []

    def keep(t: tvmffi.Tensor) -> None:
        kept.append(t)
        kept.append(np.from_dlpack(t))  # a numpy array over the callback's tensor
        _poke(t, 0, 42.0)  # written during the call: reaches the caller

    x = np.arange(4, dtype=np.float32)
    address = x.ctypes.data
    tvmffi.Function(keep)(x)
    assert x.tolist() == [42.0, 1.0, 2.0, 3.0]
    assert kept[0].data_ptr() != address  # the callback's own memory, not a view of x
    _poke(kept[0], 1, -1.0)  # after the call: stays in the callback's copy
    assert x.tolist() == [42.0, 1.0, 2.0, 3.0]
    del x
    gc.collect()
    reuse = [np.full(4, 99.0, dtype=np.float32) for _ in range(64)]  # noqa: F841
    # What the callback kept is its own and still valid (ASan: no read after free).
    assert kept[1].tolist() == [42.0, -1.0, 2.0, 3.0]
    assert np.from_dlpack(kept[0]).tolist() == [42.0, -1.0, 2.0, 3.0]


def test_3_lent_tensor_write_back_is_per_byte(np: ModuleType) -> None:
    # The same memory lent twice: each copy's own changes come back.
    def both(a: tvmffi.Tensor, b: tvmffi.Tensor) -> None:
        _poke(a, 0, 1.0)
        _poke(b, 3, 2.0)

    x = np.zeros(4, dtype=np.float32)
    tvmffi.Function(both)(x, x)
    assert x.tolist() == [1.0, 0.0, 0.0, 2.0]

    # A callback that changes nothing leaves writes made by other means alone.
    y = np.zeros(2, dtype=np.float32)

    def direct(t: tvmffi.Tensor) -> None:
        y[1] = 5.0

    tvmffi.Function(direct)(y)
    assert y.tolist() == [0.0, 5.0]

    # A callback that raises: its error, and its writes so far reach the caller.
    def fail(t: tvmffi.Tensor) -> None:
        _poke(t, 0, 3.0)
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        tvmffi.Function(fail)(y)
    assert y.tolist() == [3.0, 5.0]


def test_3_lent_tensor_returned_from_callback(np: ModuleType) -> None:
    x = np.arange(3, dtype=np.float32)
    back = tvmffi.Function(lambda t: t)(x)  # the callback's tensor comes back, owning
    del x
    gc.collect()
    assert isinstance(back, np.ndarray) and back.tolist() == [0.0, 1.0, 2.0]


def test_3_callback_keeps_lent_cuda_tensor(cuda_torch: ModuleType) -> None:
    # Off the host the framework copies (torch here) and writes back what changed.
    torch = cuda_torch
    kept: list[Any] = []

    def keep(t: tvmffi.Tensor) -> None:
        view = torch.from_dlpack(t)
        kept.append(view)
        view[0] = 42.0

    x = torch.arange(4, dtype=torch.float32, device="cuda")
    tvmffi.Function(keep)(x)
    assert x.tolist() == [42.0, 1.0, 2.0, 3.0]
    assert kept[0].data_ptr() != x.data_ptr()
    kept[0][1] = -1.0  # after the call: stays in the copy
    assert x.tolist() == [42.0, 1.0, 2.0, 3.0]
    del x
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    assert kept[0].tolist() == [42.0, -1.0, 2.0, 3.0]


def test_3_callback_keeps_lent_cupy_tensor(cupy: ModuleType) -> None:
    kept: list[Any] = []

    def keep(t: tvmffi.Tensor) -> None:
        kept.append(t)
        cupy.from_dlpack(t)[1] = 7.0

    x = cupy.arange(3, dtype=cupy.float32)
    tvmffi.Function(keep)(x)
    assert x.tolist() == [0.0, 7.0, 2.0]
    del x
    assert cupy.from_dlpack(kept[0]).tolist() == [0.0, 7.0, 2.0]


# --------------------------------------------------------------------------
# 4. A DLPack C exchange API that is not a "dlpack_exchange_api" capsule.
# --------------------------------------------------------------------------
# A prototype of our own: argtypes set on the shared ctypes.pythonapi.PyCapsule_New
# would be overwritten by (and overwrite) torch's and JAX's declarations of it.
_capsule_new = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))
_WRONG_NAME = b"not_an_exchange_api"  # the capsule keeps a pointer to this name


class _Producer:
    """A well-behaved DLPack producer (the exchange API is what is wrong)."""

    def __init__(self, np: ModuleType) -> None:
        self.tensor = tvmffi.from_dlpack(np.arange(2, dtype=np.float32))

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def _api_cases() -> list[tuple[str, Any, str]]:
    # An address that must never be read: 16 (a real API would be elsewhere).
    return [
        ("__dlpack_c_exchange_api__", 16, "got an object of type 'int'"),
        (
            "__dlpack_c_exchange_api__",
            _capsule_new(16, _WRONG_NAME, None),
            "got a PyCapsule named 'not_an_exchange_api'",
        ),
        ("__c_dlpack_exchange_api__", 2**40, "got an object of type 'int'"),
        ("__dlpack_c_exchange_api__", "dlpack_exchange_api", "got an object of type 'str'"),
    ]


@pytest.mark.parametrize("attr, api, got", _api_cases(), ids=["int", "capsule", "old-name", "str"])
def test_4_exchange_api_must_be_the_named_capsule(
    np: ModuleType, attr: str, api: Any, got: str
) -> None:
    cls = type("BadApi", (_Producer,), {attr: api})
    obj = cls(np)
    message = (
        f"BadApi.{attr} is not a DLPack C exchange API: expected a PyCapsule named "
        f"'dlpack_exchange_api', {got}"
    )
    with pytest.raises(TypeError, match=message):
        tvmffi.from_dlpack(obj)
    with pytest.raises(TypeError, match=message):
        tvmffi.convert([obj])
    with pytest.raises(TypeError, match=r"argument #0 \(type 'BadApi'\): tvmffi: " + message):
        ECHO(obj)
    # Nothing else changed: the producer's own tensor is intact and still passes.
    assert np.from_dlpack(ECHO(obj.tensor)).tolist() == [0.0, 1.0]
    assert getattr(cls, attr) is api


# --------------------------------------------------------------------------
# 5. DLPack arguments of the wrong shape or type.
# --------------------------------------------------------------------------
_DLPACK_BAD = [
    (
        {"max_version": ()},
        TypeError,
        r"max_version must be a tuple \(major, minor\) of two ints, "
        r"got \(\)",
    ),
    ({"max_version": (1,)}, TypeError, r"got \(1,\)"),
    ({"max_version": "ab"}, TypeError, r"max_version must be a tuple .* got 'ab'"),
    ({"max_version": [1, 0]}, TypeError, r"got \[1, 0\]"),
    ({"max_version": (1, "0")}, TypeError, r"of two ints, got \(1, '0'\)"),
    ({"max_version": (1, 0, 0)}, TypeError, r"got \(1, 0, 0\)"),
    (
        {"max_version": (2**70, 0)},
        ValueError,
        r"max_version \(1180591620717411303424, 0\) is out "
        r"of range",
    ),
    (
        {"dl_device": (1,)},
        TypeError,
        r"dl_device must be a tuple \(device_type, device_id\) of "
        r"two ints, got \(1,\)",
    ),
    ({"dl_device": ("a", "b")}, TypeError, r"got \('a', 'b'\)"),
    ({"dl_device": 1}, TypeError, r"dl_device must be a tuple"),
    ({"dl_device": (2, 0)}, BufferError, r"cannot export to another device"),
    ({"dl_device": (1, 2**40)}, BufferError, r"cannot export to another device"),
    ({"copy": "yes"}, TypeError, r"copy must be None or a bool, got an object of type 'str'"),
]


@pytest.mark.parametrize(
    "kwargs, exc, message",
    _DLPACK_BAD,
    ids=[f"{next(iter(k))}={v!r}" for k, _, _ in _DLPACK_BAD for v in k.values()],
)
def test_5_tensor_dlpack_arguments(
    np: ModuleType, kwargs: dict[str, Any], exc: type, message: str
) -> None:
    t = tvmffi.from_dlpack(np.arange(3, dtype=np.float32))
    with pytest.raises(exc, match=message):
        t.__dlpack__(**kwargs)
    # The tensor is unchanged and exports as before.
    assert np.from_dlpack(t).tolist() == [0.0, 1.0, 2.0]
    assert t.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False) is not None


@pytest.mark.parametrize(
    "device, message",
    [
        (
            5,
            r"__dlpack_device__\(\) must return a tuple \(device_type, device_id\), got an object "
            r"of type 'int'",
        ),
        ([1, 0], r"got an object of type 'list'"),
        ((1,), r"got a tuple of type 'tuple'"),
        ((1, 0, 0), r"got a tuple of type 'tuple'"),
        (("cpu", 0), r"'str' object cannot be interpreted as an integer"),
    ],
)
def test_5_dlpack_device_must_be_a_pair(np: ModuleType, device: Any, message: str) -> None:
    class OddDevice(_Producer):
        def __dlpack_device__(self) -> Any:
            return device

    obj = OddDevice(np)
    with pytest.raises(TypeError, match=r"argument #0 \(type 'OddDevice'\): .*" + message):
        ECHO(obj)
    assert np.from_dlpack(ECHO(obj.tensor)).tolist() == [0.0, 1.0]


# --------------------------------------------------------------------------
# 6. Objects made with Type.__new__(Type), never initialised.
# --------------------------------------------------------------------------
def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_subclasses(sub))
    return out


def _uninitialised_classes() -> list[type]:
    import tvmffi.testing

    seen: dict[int, type] = {}
    for cls in [tvmffi.Object, tvmffi.Device, *_subclasses(tvmffi.Object)]:
        seen.setdefault(id(cls), cls)
    return list(seen.values())


_NOT_INIT = "is not initialised"


def test_6_new_without_init_core_classes(np: ModuleType) -> None:
    obj = tvmffi.Object.__new__(tvmffi.Object)
    fn = tvmffi.Function.__new__(tvmffi.Function)
    ten = tvmffi.Tensor.__new__(tvmffi.Tensor)
    dev = tvmffi.Device.__new__(tvmffi.Device)
    arr = tvmffi.Array.__new__(tvmffi.Array)
    mod = tvmffi.Module.__new__(tvmffi.Module)
    for o in (obj, fn, ten, arr, mod):
        with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
            tvmffi.convert(o)
        with pytest.raises(
            TypeError,
            match=r"argument #0 \(type '[\w.]+'\): the tvmffi.Object "
            r"is not initialised",
        ):
            ECHO(o)
        with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
            o.type_key
        assert o == o and o != tvmffi.Object.__new__(tvmffi.Object)  # only itself
        assert not o.same_as(tvmffi.Object.__new__(tvmffi.Object))
        for op in (hash, repr):  # works ("<tvmffi.Tensor (not initialised)>", ...), or
            try:  # a Python class's method meets the check of the call path
                op(o)
            except TypeError as err:
                assert "is not initialised" in str(err)
    with pytest.raises(TypeError, match="the tvmffi.Function is not initialised"):
        fn(1)
    for attr in ("shape", "dtype", "device", "strides", "ndim"):
        with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
            getattr(ten, attr)
    with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
        ten.data_ptr()
    with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
        ten.__dlpack__()
    with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
        np.from_dlpack(ten)
    with pytest.raises(TypeError, match="the tvmffi.Object is not initialised"):
        len(arr)
    dev_msg = r"the tvmffi.Device is not initialised \(made by __new__ without __init__\)"
    for attr in ("type", "index"):
        with pytest.raises(TypeError, match=dev_msg):
            getattr(dev, attr)
    for call in (dev.__dlpack_device__, dev.dlpack_device_type, dev.__str__, dev.__hash__):
        with pytest.raises(TypeError, match=dev_msg):
            call()
    with pytest.raises(TypeError, match=dev_msg):
        tvmffi.convert(dev)
    with pytest.raises(TypeError, match=r"argument #0 \(type '[\w.]*Device'\): " + dev_msg):
        ECHO(dev)
    with pytest.raises(TypeError, match=dev_msg):
        tvmffi.Device(dev)
    with pytest.raises(TypeError, match=dev_msg):
        repr(dev)  # tvmffi's Python repr reads dev.type
    assert dev == dev and dev != tvmffi.device("cpu") and tvmffi.device("cpu") != dev
    # Binding one afterwards makes it a working object (its destructor releases it).
    real = tvmffi.convert([1, 2])
    tvmffi._core._init_from(arr, real)
    assert list(arr) == [1, 2] and arr.same_as(real)
    # nanobind names the class with or without its module, by version.
    with pytest.raises(
        TypeError,
        match=r"a [\w.]*Tensor holds an ffi\.Tensor, not an object "
        r"of type ffi\.Array",
    ):
        tvmffi._core._init_from(ten, real)
    with pytest.raises(TypeError, match="both must be tvmffi.Object instances"):
        tvmffi._core._init_from(ten, 5)


def test_6_unbound_methods_check_self(np: ModuleType) -> None:
    # The extension's methods called unbound with another object as `self`.
    wrong = [
        5,
        "text",
        None,
        tvmffi.convert([1]),
        tvmffi.device("cpu"),
        tvmffi.from_dlpack(np.zeros(1, np.float32)),
        tvmffi.Function(lambda: 0),
    ]
    checked = 0
    for cls in (tvmffi.Object, tvmffi.Function, tvmffi.Tensor, tvmffi.Device):
        for name, attr in vars(cls).items():
            fn = attr.fget if isinstance(attr, property) else attr
            if name in ("__new__", "__init__", "__init_subclass__") or not callable(fn):
                continue
            for self in wrong:
                if isinstance(self, cls):
                    continue
                checked += 1
                try:
                    fn(self)
                except TypeError as err:
                    assert (
                        "expected a tvmffi." in str(err)
                        or "requires" in str(err)
                        or ("argument" in str(err))
                    ), (cls, name, err)
                except Exception:
                    pass
    assert checked > 50


def test_6_reflected_fields_check_the_object_type() -> None:
    # A reflected field read through another object (an unbound property, or a
    # wrapper bound to another type's handle) is refused, never read at its offset.
    from tvmffi._reflection import FFIProperty
    from tvmffi.access_path import AccessPath

    arr = tvmffi.convert([1, 2, 3])
    checked = 0
    for cls in _uninitialised_classes():
        for attr in vars(cls).values():
            if not isinstance(attr, FFIProperty):
                continue
            for obj in (arr, 5, tvmffi.device("cpu")):
                with pytest.raises(
                    TypeError,
                    match=r"cannot be read or written on an object of "
                    r"type ffi.Array|expected a tvmffi.Object",
                ):
                    attr.fget(obj)
                checked += 1
    assert checked >= 10
    path = AccessPath.__new__(AccessPath)
    tvmffi._core._init_from(path, arr)
    with pytest.raises(
        TypeError,
        match=r"field `depth` of ffi.reflection.AccessPath cannot be "
        r"read or written on an object of type ffi.Array",
    ):
        path.depth
    assert list(arr) == [1, 2, 3]


@pytest.mark.parametrize("cls", _uninitialised_classes(), ids=lambda c: c.__qualname__)
def test_6_new_without_init_every_class(cls: type) -> None:
    try:
        obj = cls.__new__(cls)
    except TypeError:
        return  # a class whose __new__ wants arguments
    # Every attribute and no-argument method: a result or an exception, never
    # a read of a garbage handle (ASan would fail the run).
    for name in sorted(set(dir(cls))):
        if name in ("__del__", "__init__", "__new__", "__init_subclass__", "__class__"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:
            continue
        if callable(value) and not isinstance(value, type):
            try:
                value()
            except Exception:
                pass
    for op in (repr, str, hash, bool, len, list):
        try:
            op(obj)
        except Exception:
            pass
    # Passed to FFI: refused as not initialised, unless the class's __new__
    # made a real object (py_class types allocate in __new__).
    for way in (tvmffi.convert, ECHO):
        try:
            way(obj)
        except TypeError as err:
            assert _NOT_INIT in str(err)


# --------------------------------------------------------------------------
# 6b. __init__ run again on an object a call is borrowing.
# --------------------------------------------------------------------------
def test_6_reinit_while_a_call_borrows_the_object(np: ModuleType) -> None:
    # A call borrows the handle of each object argument; a hook run while a
    # later argument converts re-runs __init__ on an earlier one. The object
    # is bound anew (as upstream allows), and the old array, which the call
    # still reads, lives until the object dies (freeing it then was a read
    # after free: the call returned garbage, ASan reported it).
    get = tvmffi.get_global_func("ffi.ArrayGetItem")
    arr = tvmffi.Array([10, 20, 30])

    class Rebind:
        def __index__(self) -> int:
            arr.__init__([99, 98])
            return 1

    assert get(arr, Rebind()) == 20  # the array the call borrowed
    assert list(arr) == [99, 98]  # the object's new array

    class RebindingTensor:
        def __init__(self) -> None:
            self.x = np.zeros(2, dtype=np.float32)

        def __dlpack__(self, **kwargs: Any) -> Any:
            arr.__init__([7, 6, 5])
            return self.x.__dlpack__(**kwargs)

        def __dlpack_device__(self) -> tuple[int, int]:
            return (1, 0)

    size = tvmffi.get_global_func("ffi.ArraySize")
    before = tvmffi.Function(lambda a, t: size(a))
    assert before(arr, RebindingTensor()) == 2  # the [99, 98] borrowed by the call
    assert list(arr) == [7, 6, 5]

    # A callback run during the call rebinds the function's argument.
    held = tvmffi.Array([1, 2, 3, 4])
    seen = []
    probe = tvmffi.Function(lambda: held.__init__([0]))
    body = tvmffi.Function(lambda a: (probe(), seen.append(len(a)), size(a))[-1])
    assert body(held) == 4 and seen == [4]  # the callback's wrapper is its own
    assert list(held) == [0]


def test_6_every_rebinding_path_binds_anew() -> None:
    other = tvmffi.Array([3])
    for rebind in (
        lambda a: a.__init__([5]),
        lambda a: a.__move_handle_from__(tvmffi.Array([5])),
        lambda a: a.__setstate__(tvmffi.Array([5]).__getstate__()),
        lambda a: tvmffi._core._init_from(a, tvmffi.Array([5])),
    ):
        arr = tvmffi.Array([1, 2])
        rebind(arr)
        assert list(arr) == [5]
        del arr  # releases the old array too (a leak would show under ASan)
    fresh = tvmffi.Array.__new__(tvmffi.Array)
    fresh.__move_handle_from__(other)
    assert fresh.same_as(other)
    f = tvmffi.Function(lambda: 1)
    with pytest.raises(TypeError), pytest.warns(RuntimeWarning, match="already-initialized"):
        f.__init__(lambda: 2)  # nanobind refuses it
    assert f() == 1


# --------------------------------------------------------------------------
# 7. Device strings and integers out of range.
# --------------------------------------------------------------------------
_INDEX_RANGE = r"the index must be an integer in \[0, 2147483647\]"


@pytest.mark.parametrize(
    "args, exc, message",
    [
        (
            ("cuda:99999999999999999999",),
            ValueError,
            r"invalid device 'cuda:99999999999999999999': " + _INDEX_RANGE,
        ),
        (("cuda:4294967297",), ValueError, _INDEX_RANGE),
        (("cuda:2147483648",), ValueError, _INDEX_RANGE),
        (("cuda:-1",), ValueError, _INDEX_RANGE),
        (("cuda: 1",), ValueError, _INDEX_RANGE),
        (("cuda:+1",), ValueError, _INDEX_RANGE),
        (("cuda:0x1",), ValueError, _INDEX_RANGE),
        (("cuda:1:2",), ValueError, _INDEX_RANGE),
        (("cuda:",), ValueError, _INDEX_RANGE),
        (("cuda:٣",), ValueError, _INDEX_RANGE),  # an Arabic-Indic digit: not ASCII
        (("garbage",), ValueError, r"invalid device 'garbage': unknown device type 'garbage'"),
        (("",), ValueError, r"unknown device type ''"),
        (
            ("cuda\x00:0",),
            ValueError,
            r"invalid device 'cuda\\x00:0': unknown device type "
            r"'cuda\\x00'",
        ),
        (
            ("cuda", -3),
            ValueError,
            r"invalid device index -3: it must be an integer in "
            r"\[0, 2147483647\]",
        ),
        (("cuda", 2**31), ValueError, r"invalid device index 2147483648"),
        (("cuda", 10**30), ValueError, r"invalid device index 1000000000000000000000000000000"),
        ((2, 2**33), ValueError, r"invalid device index 8589934592"),
        ((-1,), ValueError, r"invalid device type -1: it must be an integer in \[0, 65536\)"),
        ((65536,), ValueError, r"invalid device type 65536"),
        ((10**30,), ValueError, r"invalid device type 1000000000000000000000000000000"),
        (("cuda", 1.5), TypeError, r"'float' object cannot be interpreted as an integer"),
        (("cuda", "1"), TypeError, r"'str' object cannot be interpreted as an integer"),
        ((2.0,), TypeError, r"spec must be a str such as 'cuda:0' or a DLPack device type code"),
    ],
)
def test_7_device_out_of_range(args: tuple[Any, ...], exc: type, message: str) -> None:
    with pytest.raises(exc, match=message):
        tvmffi.Device(*args)
    with pytest.raises(exc):  # tvmffi.device says "Unknown device: NAME" (upstream's text)
        tvmffi.device(*args)


def test_7_no_cpp_exception_leaks_out() -> None:
    # Text that is no UTF-8 (a lone surrogate): the codec's error, never a
    # C++ std::bad_cast as RuntimeError; as an argument, with its position.
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        tvmffi.Device("cuda:\ud800")
    assert tvmffi.device("cuda:0") != "\ud800"
    for value in ("\ud800", ["ok", "\udfff"]):
        with pytest.raises(UnicodeEncodeError) as info:
            ECHO(value)
        assert info.value.__notes__ == [f"argument #0 (type '{type(value).__name__}')"]
    # Past int64: an ffi.BigInt, back as the same int (upstream 0.1.15).
    assert ECHO(2**64) == 2**64


def test_7_device_bounds_that_fit() -> None:
    assert str(tvmffi.device("cuda:2147483647")) == "cuda:2147483647"
    assert tvmffi.device("cuda", 2147483647).index == 2147483647
    assert tvmffi.device(65535, 0).type == 65535
    assert tvmffi.device(2, 0) == tvmffi.device("cuda:0")
    assert ECHO(tvmffi.device("cuda:7")) == tvmffi.device("cuda:7")
    assert tvmffi.device("cpu:0") != "cuda:99999999999999999999"  # no error comparing


# --------------------------------------------------------------------------
# 8a. Overriding or removing the runtime's built-in globals.
# --------------------------------------------------------------------------
def test_8_builtin_override_and_removal_keep_conversion() -> None:
    names = [
        "ffi.Array",
        "ffi.Map",
        "ffi.Shape",
        "ffi.ArraySize",
        "ffi.ArrayGetItem",
        "ffi.MapSize",
        "ffi.MapItems",
    ]
    originals = {n: tvmffi.get_global_func(n) for n in names}
    sentinel = tvmffi.Function(lambda *args: "overridden")
    try:
        for n in names[:4]:
            tvmffi.register_global_func(n, sentinel, override=True)
        for n in names[4:]:
            tvmffi.remove_global_func(n)
        # What the registry returns now is the override (or nothing) ...
        assert tvmffi.get_global_func("ffi.Array")(1, 2) == "overridden"
        assert tvmffi.get_global_func("ffi.MapItems", allow_missing=True) is None
        # ... and conversion and the containers still use the runtime's own.
        arr = tvmffi.convert([1, [2, 3]])
        assert isinstance(arr, tvmffi.Array) and len(arr) == 2 and py(arr) == [1, [2, 3]]
        m = ECHO({"a": 1, "b": (2,)})
        assert isinstance(m, tvmffi.Map) and len(m) == 2 and py(m) == {"a": 1, "b": [2]}
        assert py(tvmffi.convert(tvmffi.Shape((4, 5)))) == (4, 5)
    finally:
        for n, f in originals.items():
            tvmffi.register_global_func(n, f, override=True)
    assert all(tvmffi.get_global_func(n).same_as(f) for n, f in originals.items())


# --------------------------------------------------------------------------
# 8b. A class whose dunder attributes change after its first use.
# --------------------------------------------------------------------------
def test_8_type_classification_follows_class_changes(np: ModuleType) -> None:
    tensor = tvmffi.from_dlpack(np.arange(3, dtype=np.float32))

    class Late:
        pass

    obj = Late()
    unsupported = r"cannot pass an object of type 'Late' to a tvmffi function"
    with pytest.raises(TypeError, match=unsupported):
        ECHO(obj)
    # Becomes a DLPack producer: classified again, it passes as a tensor.
    Late.__dlpack__ = lambda self, **kw: tensor.__dlpack__(**kw)  # type: ignore[attr-defined]
    Late.__dlpack_device__ = lambda self: (1, 0)  # type: ignore[attr-defined]
    assert np.from_dlpack(ECHO(obj)).tolist() == [0.0, 1.0, 2.0]
    # Gains a bad exchange API: refused, not dereferenced.
    Late.__dlpack_c_exchange_api__ = 16  # type: ignore[attr-defined]
    with pytest.raises(
        TypeError,
        match=r"Late.__dlpack_c_exchange_api__ is not a DLPack C "
        r"exchange API",
    ):
        ECHO(obj)
    del Late.__dlpack_c_exchange_api__  # type: ignore[attr-defined]
    assert np.from_dlpack(ECHO(obj)).tolist() == [0.0, 1.0, 2.0]
    # Loses __dlpack__ again: not a stale "tensor"; with __dlpack_device__ alone
    # it is a device (upstream's DLPack device protocol), without it unsupported.
    del Late.__dlpack__  # type: ignore[attr-defined]
    dev = ECHO(obj)
    assert isinstance(dev, tvmffi.Device) and dev.dlpack_device_type() == 1
    del Late.__dlpack_device__  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=unsupported):
        ECHO(obj)

    # An int-like gained through a base class.
    class Base:
        pass

    class Child(Base):
        pass

    with pytest.raises(TypeError, match="cannot convert an object of type 'Child'"):
        tvmffi.convert(Child())
    Base.__index__ = lambda self: 11  # type: ignore[attr-defined]
    assert tvmffi.convert(Child()) == 11 and ECHO(Child()) == 11
