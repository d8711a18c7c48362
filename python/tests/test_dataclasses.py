"""tvmffi.dataclasses: ``@py_class`` (types defined in Python), ``@c_class``, ``field``.

``@py_class`` needs only the runtime; the ``@c_class`` tests bind fixture
types of the testing library and skip without it (TVMFFI_TESTING_LIB).
"""

from __future__ import annotations

import copy
import gc
import itertools
from typing import Any, ClassVar, Optional

import pytest

import tvmffi
import tvmffi.testing as testing
from tvmffi import core
from tvmffi.dataclasses import (
    KW_ONLY,
    MISSING,
    Field,
    asdict,
    astuple,
    c_class,
    field,
    fields,
    is_dataclass,
    py_class,
    replace,
)

needs_fixtures = pytest.mark.skipif(
    testing.fixture_library() is None,
    reason="no fixture library (set TVMFFI_TESTING_LIB to a libtvm_ffi_testing.so)",
)

_keys = itertools.count()


def _key(name: str) -> str:
    return f"tvmffi_tests.dataclasses.{name}_{next(_keys)}"


# -- field ---------------------------------------------------------------------


def test_field_validation() -> None:
    f = field(default=1, repr=False)
    assert isinstance(f, Field) and f.default == 1 and f.repr is False and f.name is None
    assert f.default_factory is MISSING and f.hash is None and f.kw_only is None
    with pytest.raises(ValueError, match="both default and default_factory"):
        field(default=1, default_factory=list)
    with pytest.raises(TypeError, match="default_factory must be a callable"):
        field(default_factory=3)
    with pytest.raises(ValueError, match="structural_eq"):
        field(structural_eq="bogus")


# -- py_class --------------------------------------------------------------------


def test_py_class_basic() -> None:
    @py_class(_key("Point"))
    class Point(core.Object):
        x: int
        y: float = 1.5
        label: str = field(default="p", repr=False)

    p = Point(1)
    assert (p.x, p.y, p.label) == (1, 1.5, "p")
    assert isinstance(p, tvmffi.Object) and is_dataclass(p) and is_dataclass(Point)
    p.x = True  # bool converts to int
    assert p.x == 1 and type(p.x) is int
    with pytest.raises(TypeError, match="expected int, got str"):
        p.x = "no"
    with pytest.raises(TypeError):
        Point()
    assert [f.name for f in fields(Point)] == ["x", "y", "label"]
    assert asdict(Point(2, 3.0, "q")) == {"x": 2, "y": 3.0, "label": "q"}
    assert astuple(Point(2)) == (2, 1.5, "p")
    assert Point.__match_args__ == ("x", "y", "label")
    assert "label" not in repr(p) and "x=1" in repr(p)


def test_py_class_is_an_ffi_type() -> None:
    @py_class(_key("Node"), eq=True, unsafe_hash=True)
    class Node(core.Object):
        value: int
        children: Optional[tuple[Any, ...]] = None

    info = Node.__tvm_ffi_type_info__
    assert core._type_cls_to_type_info(Node) is info
    assert core._object_type_key_to_index(info.type_key) == info.type_index
    leaf = Node(1)
    root = Node(0, (leaf, Node(2)))
    # The runtime reads the fields through the reflection table.
    echo = tvmffi.get_global_func("ffi.DeepCopy")
    clone = echo(root)
    assert isinstance(clone, Node) and not clone.same_as(root)
    assert clone == root and hash(clone) == hash(root)
    assert tvmffi.structural_equal(clone, root)
    # Made by reflection (the type's __ffi_new__ and field setters), defaults filled in.
    from tvmffi import _reflection

    made = _reflection.make_object(info.type_key, value=5)
    assert isinstance(made, Node) and made.value == 5 and made.children is None


def test_py_class_kw_only_inheritance_and_copy() -> None:
    @py_class(_key("Base"))
    class Base(core.Object):
        a: int
        _: KW_ONLY
        b: int = 2

    @py_class(_key("Derived"))
    class Derived(Base):
        c: str = "c"

    d = Derived(1, b=3)
    assert (d.a, d.b, d.c) == (1, 3, "c")
    with pytest.raises(TypeError):
        Derived(1, 3)
    assert Derived.__tvm_ffi_type_info__.parent_type_info is Base.__tvm_ffi_type_info__
    shallow = copy.copy(d)
    assert not shallow.same_as(d) and (shallow.a, shallow.b, shallow.c) == (1, 3, "c")
    other = replace(d, c="z")
    assert other.c == "z" and d.c == "c"


def test_py_class_frozen_and_escape_hatch() -> None:
    @py_class(_key("Frozen"), frozen=True)
    class Frozen(core.Object):
        v: int

    f = Frozen(1)
    with pytest.raises(AttributeError):
        f.v = 2
    type(f).v.set(f, 3)
    assert f.v == 3


def test_py_class_storage_comes_from_the_runtime() -> None:
    # The runtime's getters, setters, deleter and copy run no Python, so an
    # object may die while an exception is pending (here: the temporary Inner
    # of a refused assignment), and the AttributeError arrives as it is.
    for name in (
        "ffi.MakeFieldGetter",
        "ffi.MakeFieldSetter",
        "ffi._PyClassRegisterTypeAttrColumns",
    ):
        assert tvmffi.get_global_func(name, allow_missing=True) is not None

    @py_class(_key("FrozenInner"), frozen=True)
    class Inner(core.Object):
        val: int
        ratio: float = 0.5
        flag: bool = False
        name: str = "n"

    @py_class(_key("FrozenOuter"), frozen=True)
    class Outer(core.Object):
        child: Inner

    outer = Outer(Inner(10, 1.5, True, "x"))
    assert (outer.child.val, outer.child.ratio, outer.child.flag, outer.child.name) == (
        10,
        1.5,
        True,
        "x",
    )
    with pytest.raises(AttributeError):
        outer.child = Inner(20)
    twin = copy.copy(outer)
    assert twin.child.same_as(outer.child) and not twin.same_as(outer)
    deep = copy.deepcopy(outer)
    assert not deep.child.same_as(outer.child) and deep.child.name == "x"
    with pytest.raises(TypeError):
        type(outer.child).val.set(outer.child, "not an int")


def test_py_class_any_field_holds_python_objects() -> None:
    @py_class(_key("Box"))
    class Box(core.Object):
        item: Any = None

    class Thing:
        pass

    thing = Thing()
    box = Box(thing)
    assert box.item is thing
    box.item = [1, 2]
    assert list(box.item) == [1, 2]


def test_py_class_releases_field_references() -> None:
    @py_class(_key("Holder"))
    class Holder(core.Object):
        ref: Optional[core.Object] = None

    target = tvmffi.convert([1])
    holder = Holder(target)
    shared = holder.ref
    assert shared.same_as(target)
    del holder, shared
    gc.collect()
    assert sys_refcount_of_handle(target) == 1


def sys_refcount_of_handle(obj: Any) -> int:
    """The strong count of an FFI object (the low 32 bits of its header's first word)."""
    import ctypes

    return ctypes.c_uint64.from_address(obj.__chandle__()).value & 0xFFFFFFFF


def test_py_class_forward_reference() -> None:
    @py_class(_key("LinkedNode"))
    class LinkedNode(core.Object):
        value: int
        next: Optional[LinkedNode] = None

    chain = LinkedNode(1, LinkedNode(2))
    assert chain.next.value == 2 and chain.next.next is None
    with pytest.raises(TypeError, match=r"expected .*LinkedNode_\d+, got int"):
        chain.next = 3


def test_py_class_default_that_does_not_convert() -> None:
    @py_class(_key("BadDefault"))
    class BadDefault(core.Object):
        a: int
        b: Optional[core.Object] = 5  # type: ignore[assignment]

    # The default goes through the field's setter, as a passed value does, and the
    # error names the field and that its default was the value.
    with pytest.raises(TypeError, match=r"__ffi_init__\(\) default for field 'b'"):
        BadDefault(1)
    with pytest.raises(TypeError, match=r"__ffi_init__\(\) field 'b'"):
        BadDefault(1, 5)
    assert BadDefault(1, None).b is None


def test_py_class_user_init_and_super_init() -> None:
    @py_class(_key("WithInit"))
    class WithInit(core.Object):
        x: int

        def __init__(self, raw: str) -> None:
            super().__init__()
            type(self).x.set(self, int(raw))

    obj = WithInit("42")
    assert obj.x == 42 and obj.__chandle__() != 0


def test_py_class_rejects_duplicate_key_and_bad_options() -> None:
    key = _key("Dup")

    @py_class(key)
    class One(core.Object):
        pass

    with pytest.raises(ValueError, match="already registered"):

        @py_class(key)
        class Two(core.Object):
            pass

    with pytest.raises(ValueError, match="order=True requires eq=True"):
        py_class(order=True)


def test_method_registration() -> None:
    @py_class(_key("Adder"))
    class Adder(core.Object):
        base: int

        @tvmffi.method
        def add(self, x: int) -> int:
            return self.base + x

    info = Adder.__tvm_ffi_type_info__
    add = next(m for m in info.methods if m.name == "add")
    assert add.func(Adder(2), 3) == 5
    assert "Callable" in add.metadata["type_schema"]["type"] or add.metadata


# -- c_class -------------------------------------------------------------------


@pytest.fixture
def rebinding() -> Any:
    """Give the fixture types their tvmffi.testing classes back after a test rebinds them."""
    saved = {
        key: core._type_cls_to_type_info(cls) and cls
        for key, cls in (
            ("testing.TestIntPair", testing.TestIntPair),
            ("testing.TestObjectBase", testing.TestObjectBase),
        )
    }
    yield
    for key, cls in saved.items():
        index = core._object_type_key_to_index(key)
        if cls and index is not None:
            core._register_object_by_index(index, cls)


@needs_fixtures
def test_c_class_binds_a_fixture_type(rebinding: Any) -> None:
    @c_class("testing.TestIntPair", eq=True)
    class Pair(core.Object):
        a: int
        b: int

    p = Pair(1, 2)
    assert (p.a, p.b) == (1, 2) and p.sum() == 3
    assert p == Pair(1, 2) and p != Pair(2, 1)
    assert [f.name for f in fields(Pair)] == ["a", "b"]
    assert all(f.type is int for f in fields(Pair))
    assert is_dataclass(Pair) and repr(p).startswith("testing.TestIntPair(")
    clone = copy.deepcopy(p)
    assert clone == p and not clone.same_as(p)


@needs_fixtures
def test_c_class_warns_about_unannotated_fields(rebinding: Any) -> None:
    with pytest.warns(UserWarning, match="does not annotate"):

        @c_class("testing.TestObjectBase")
        class Base(core.Object):
            pass


# -- enums -------------------------------------------------------------------------


def test_enum_class_is_the_collection_of_its_entries() -> None:
    from tvmffi.dataclasses import Enum, entry

    class Op(Enum, type_key=_key("Op")):
        arity: int = 0
        neg = entry(arity=1)
        add = entry(arity=2)

    assert list(Op) == [Op.neg, Op.add] and len(Op) == 2
    assert list(reversed(Op)) == [Op.add, Op.neg]
    assert Op.add in Op and "neg" in Op and 1 in Op and "sub" not in Op and 2 not in Op
    assert Op["add"].same_as(Op.add) and Op("neg").same_as(Op.neg) and Op(1).same_as(Op.add)
    assert Op(Op.add) is Op.add
    with pytest.raises(KeyError):
        Op["sub"]
    with pytest.raises(ValueError, match="not a valid Op"):
        Op(5)

    class Empty(Enum, type_key=_key("Empty")):
        pass

    assert len(Empty) == 0 and list(Empty) == [] and bool(Empty)  # a class is true


def test_types_past_reserved_child_slots_get_classes() -> None:
    # A type with child slots leaves a gap in the type table (the slots no
    # subclass has taken); the types registered after it still get classes.
    from tvmffi import _core
    from tvmffi import _reflection as r

    def alloc(key: str, slots: int, parent: int, depth: int) -> int:
        return _core._type_alloc_index(key, depth, parent, child_slots=slots)

    base = alloc(_key("SlotsBase"), 16, r.K_OBJECT, 1)
    after = alloc(_key("AfterSlots"), 0, r.K_OBJECT, 1)
    assert after > base + 16
    r.sync_type_table()
    cls = r.TYPE_INDEX_TO_CLS.get(after)
    assert cls is not None and cls.__tvm_ffi_type_info__.type_index == after


def test_enum_reads_the_entries_of_a_library_built_for_0_1_12() -> None:
    # apache-tvm-ffi 0.1.12's C++ EnumDef set `__ffi_enum_entries__` (name ->
    # entry), which 0.1.13 replaced by `__ffi_enum__`; TileLang 0.1.15's
    # compiler still sets it. Its entries bind to the class's ClassVar aliases.
    from tvmffi import _reflection as r
    from tvmffi.dataclasses import Enum

    key = _key("Legacy")

    @py_class(key)
    class Raw(r.fallback_class(r.type_key_to_index("ffi.Enum"))):  # type: ignore[misc]
        pass

    a, b = Raw(_int_index=0, _str_index="a"), Raw(_int_index=1, _str_index="b")
    index = r.type_key_to_index(key)
    r.register_type_attr(index, "__ffi_enum_entries__", tvmffi.Dict({"a": a, "b": b}))
    assert r.type_attr(index, "__ffi_enum__") is None

    class Legacy(Enum, type_key=key):
        a: ClassVar[Legacy]
        b: ClassVar[Legacy]

    assert Legacy.a.same_as(a) and Legacy.b.same_as(b)
    assert len(Legacy) == 2 and Legacy(1).same_as(b) and Legacy["a"].same_as(a)
    with pytest.raises(RuntimeError, match="no enum at string index 'c'"):

        class Missing(Enum, type_key=key):
            c: ClassVar[Missing]


def test_str_enum_subscript_takes_aliases_and_string_indices() -> None:
    from tvmffi.dataclasses import StrEnum

    class Sym(StrEnum, type_key=_key("Sym")):
        PLUS = "+"
        ADD = "+"

    assert list(Sym) == [Sym.PLUS] and Sym.ADD.same_as(Sym.PLUS)
    assert Sym["ADD"].same_as(Sym.PLUS) and Sym["+"].same_as(Sym.PLUS)
    assert Sym("+").same_as(Sym.PLUS)


def test_enum_entries_are_checked_where_the_class_is_defined() -> None:
    from tvmffi.dataclasses import Enum, IntEnum, StrEnum, entry

    with pytest.raises(TypeError, match=r"Bad\.x: invalid enum entry"):

        class Bad(Enum, type_key=_key("Bad")):
            arity: int = 0
            x = entry(arity="not an int")

    with pytest.raises(TypeError, match="value must be int"):

        class BadInt(IntEnum, type_key=_key("BadInt")):
            X = "x"

    with pytest.raises(TypeError, match="value must be str"):

        class BadStr(StrEnum, type_key=_key("BadStr")):
            X = 1

    with pytest.raises(OverflowError):

        class Huge(IntEnum, type_key=_key("Huge")):
            X = 1 << 63

    with pytest.raises(TypeError, match="requires an integer value"):

        class Bare(IntEnum, type_key=_key("Bare")):
            X: ClassVar[Bare]

    with pytest.raises(TypeError, match="indices are inferred"):

        class Indexed(Enum, type_key=_key("Indexed")):
            x = entry(_int_index=3)


def test_enum_registry_is_the_ffi_type_attribute() -> None:
    from tvmffi import serialization
    from tvmffi.dataclasses import Enum, EnumState, IntEnum, auto
    from tvmffi.dataclasses.enum import ENUM_STATE_ATTR

    class Flag(Enum, type_key=_key("Flag")):
        OFF = auto()
        ON = auto()

    class Level(IntEnum, type_key=_key("Level")):
        LOW = -3
        HIGH = 7

    state = core._lookup_type_attr(Flag.__tvm_ffi_type_info__.type_index, ENUM_STATE_ATTR)
    assert isinstance(state, EnumState)
    assert list(state.entries) == [Flag.OFF, Flag.ON]
    assert state.indexes["ON"].same_as(Flag.ON) and state.indexes[0].same_as(Flag.OFF)
    # The runtime finds the entries through it: JSON gives back the singletons.
    for member in (Flag.ON, Level.LOW, Level.HIGH):
        text = serialization.to_json_graph_str(member)
        assert serialization.from_json_graph_str(text).same_as(member)


def test_enum_attrs_are_kept_by_entry() -> None:
    from tvmffi.dataclasses import Enum, auto
    from tvmffi.dataclasses.enum import ENUM_STATE_ATTR

    class Color(Enum, type_key=_key("Color")):
        RED = auto()
        BLUE = auto()

    rgb = Color.def_attr("rgb", default=0)
    assert rgb[Color.RED] == 0 and Color.RED not in rgb
    rgb[Color.RED] = 0xFF0000
    assert rgb[Color.RED] == 0xFF0000 and Color.RED in rgb and rgb.get(Color.BLUE) is None
    state = core._lookup_type_attr(Color.__tvm_ffi_type_info__.type_index, ENUM_STATE_ATTR)
    assert state.attrs["rgb"][Color.RED] == 0xFF0000
    assert Color.attr_dict["rgb"][Color.RED] == 0xFF0000
    with pytest.raises(TypeError, match="expected Color"):
        rgb["RED"] = 1


def test_enum_fields_take_payloads() -> None:
    from tvmffi.dataclasses import IntEnum, StrEnum

    class Prio(IntEnum, type_key=_key("Prio")):
        LOW = 1
        HIGH = 2

    class Sym(StrEnum, type_key=_key("SymField")):
        ADD = "+"

    @py_class(_key("Task"))
    class Task(core.Object):
        prio: Prio
        sym: Sym

    task = Task(prio=2, sym="+")
    assert task.prio.same_as(Prio.HIGH) and task.sym.same_as(Sym.ADD)
    task.prio = 1
    assert task.prio.same_as(Prio.LOW)
    with pytest.raises(TypeError, match="expected"):
        task.prio = 9
    assert task.prio.same_as(Prio.LOW)


@needs_fixtures
def test_c_class_enum_fields_take_payloads_when_the_enum_is_bound_later() -> None:
    # testing binds the holder type before its enum types' classes exist.
    holder = testing._TestCxxEnumHolder(
        priority=testing._TestCxxIntEnum.low, opcode=testing._TestCxxStrEnum.add
    )
    holder.priority = 20
    holder.opcode = "*"
    assert holder.priority.same_as(testing._TestCxxIntEnum.high)
    assert holder.opcode.same_as(testing._TestCxxStrEnum.mul)
    assert testing._TestCxxIntEnum(10).same_as(testing._TestCxxIntEnum.low)
    assert len(testing._TestCxxIntEnum) == 2


def test_object_metaclass_can_be_subclassed() -> None:
    meta = type(core.Object)
    assert meta is tvmffi._core.ObjectMeta and type(tvmffi.Function) is meta

    class Meta(meta):
        def describe(cls) -> str:
            return f"class {cls.__name__}"

    class Thing(core.Object, metaclass=Meta):
        pass

    assert Thing.describe() == "class Thing" and isinstance(Thing(), core.Object)


def test_ffi_class_with_mixin_bases() -> None:
    class Mixin:
        def shout(self) -> str:
            return "hi"

    @py_class(_key("MixBase"))
    class Base(core.Object):
        x: int

    class Child(Mixin, Base):
        pass

    obj = Child(x=3)
    assert obj.x == 3 and obj.shout() == "hi" and isinstance(obj, Base)


def test_make_namedtuple() -> None:
    from tvmffi.dataclasses.common import _make_namedtuple

    @py_class(f"testing.dc.NT{next(_keys)}")
    class Point(core.Object):
        x: int
        y: float

    fs = fields(Point)
    T = _make_namedtuple("PointValues", fs)
    v = T(1, 2)
    assert T.__bases__ == (tuple,)
    assert v == (1, 2.0) and type(v.y) is float  # converted as the field converts
    assert T.__annotations__ == {"x": int, "y": float}
    assert type(T._make([3, 4]).y) is float
    assert type(v._replace(y=5).y) is float
    with pytest.raises(TypeError, match=r"PointValues\.x"):
        T("no", 1)
    with pytest.raises(TypeError):
        T(1)  # every item is required
    assert not is_dataclass(T)
    assert fs[1]._ty_schema is not None and fs[1].type is float  # the fields are unchanged


class _Marker:
    """An annotation type an extension gives meaning to (no field of its own)."""


def test_field_metadata_extra_options_and_hooks() -> None:
    f = field(metadata={"k": 1}, custom=2)
    assert (f.metadata, f.extra_kwargs) == ({"k": 1}, {"custom": 2})
    twin = copy.copy(f)
    twin.metadata["k"] = 3
    twin.extra_kwargs.clear()
    assert f.metadata == {"k": 1} and f.extra_kwargs == {"custom": 2}  # copies own their dicts
    assert field(structural_eq="def-simple").structural_eq == "def-simple"
    seen: list[Any] = []

    @py_class(f"testing.dc.Ext{next(_keys)}")
    class Base(core.Object):
        __ffi_field_markers__ = (_Marker,)
        a: int = field(custom=5)
        gap: _Marker

        def __ffi_hook__(info: Any, own: Any) -> None:  # type: ignore[misc]
            for f in own:
                if "custom" in f.extra_kwargs:
                    f.metadata["custom"] = f.extra_kwargs.pop("custom")
            seen.append((info.type_key, [f.name for f in own]))

        __ffi_hook__.__ffi_on_fields_resolved__ = True  # type: ignore[attr-defined]

    assert fields(Base)[0].metadata == {"custom": 5}
    assert seen == [(Base.__tvm_ffi_type_info__.type_key, ["a"])]
    assert Base.__tvm_ffi_type_info__._decorator_args["field_markers"] == (
        (_Marker, Base, "gap", 1),
    )
    assert Base(1).a == 1
    with pytest.raises(TypeError, match=r"Plain\.a: unrecognized field options: nope"):

        @py_class(f"testing.dc.Ext{next(_keys)}")
        class Plain(core.Object):
            a: int = field(nope=1)


def test_type_attr_names_and_inherited_hooks() -> None:
    @py_class(f"testing.dc.Attr{next(_keys)}")
    class Parent(core.Object):
        __ffi_type_attr_names__ = ("__my_tag__", "__my_hook__")
        __ffi_inherit_type_attrs__ = ("__my_hook__",)
        __my_tag__: ClassVar[tuple] = ("a", 1)
        v: int

        def __my_hook__(self) -> int:
            return self.v + 1

    info = Parent.__tvm_ffi_type_info__
    assert tuple(core._lookup_type_attr(info.type_index, "__my_tag__")) == ("a", 1)
    assert "__my_tag__" not in [m.name for m in info.methods]

    @py_class(f"testing.dc.Attr{next(_keys)}")
    class Child(Parent):
        pass

    child = Child.__tvm_ffi_type_info__
    assert core._lookup_type_attr(child.type_index, "__my_hook__")(Child(2)) == 3  # copied
    assert core._lookup_type_attr(child.type_index, "__my_tag__") is None  # not listed

    @py_class(f"testing.dc.Attr{next(_keys)}")
    class Off(Parent):
        __my_hook__ = None

    assert core._lookup_type_attr(Off.__tvm_ffi_type_info__.type_index, "__my_hook__") is None
    with pytest.raises(TypeError, match="__ffi_type_attr_names__"):

        @py_class(f"testing.dc.Attr{next(_keys)}")
        class Bad(core.Object):
            __ffi_type_attr_names__ = "__x__"


def test_raw_ffi_init_takes_a_field_named_self() -> None:
    @py_class(f"testing.dc.Self{next(_keys)}", init=False)
    class Rec(core.Object):
        self: int

    obj = core.Object.__new__(Rec)
    Rec.__ffi_init__(obj, self=4)
    assert obj.self == 4
