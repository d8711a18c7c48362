"""tvmffi.dataclasses.gen_abi_cpp: C++ structs that mirror the layout of object types.

The header's members must sit where the runtime's reflection table says the
fields are (``TypeInfo.fields``); the compile test includes it in a C++
module and reads (and writes) fields of live ``@py_class`` objects through it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Optional, Union

import pytest

import tvmffi
from tvmffi import Object
from tvmffi.core import TypeField, TypeSchema, _lookup_or_register_type_info_from_type_key
from tvmffi.dataclasses import gen_abi_cpp, py_class
from tvmffi.dataclasses.gen_abi_cpp import _Generator

needs_compiler = pytest.mark.skipif(
    shutil.which(os.environ.get("CXX") or "c++") is None,
    reason="needs a C++ compiler ($CXX or c++) to build the generated header",
)


@py_class("tvmffi_tests.gen_abi_cpp.Leaf")
class Leaf(Object):
    value: int


@py_class("tvmffi_tests.gen_abi_cpp.Base")
class Base(Object):
    flag: bool
    count: int


@py_class("tvmffi_tests.gen_abi_cpp.sub.Derived")
class Derived(Base):
    ratio: float
    name: str
    leaf: Leaf
    leaves: list[Leaf]
    maybe: Optional[Leaf]
    maybe_items: list[Optional[Leaf]]
    either: Union[int, str]
    new: int  # a C++ keyword as a field name


@py_class("tvmffi_tests.gen_abi_cpp.Ωmega")
class Omega(Object):
    value: int


_BASE = "::tvmffi_tests::gen_abi_cpp::BaseObj"
_LEAF = "::tvmffi_tests::gen_abi_cpp::LeafObj"


def _info(key: str) -> Any:
    return _lookup_or_register_type_info_from_type_key(key)


def test_members_sit_at_the_reflected_offsets() -> None:
    header = gen_abi_cpp("tvmffi_tests.gen_abi_cpp.sub.Derived")
    info = _info("tvmffi_tests.gen_abi_cpp.sub.Derived")
    assert info.fields, "a @py_class registers its fields"
    for f in info.fields:
        member = "__ffi_escape_6e6577" if f.name == "new" else f.name
        assert re.search(
            rf" {member};  // offset={f.offset}, size={f.size}, "
            rf"align={f.alignment}\b",
            header,
        ), f.name
        assert f"static_assert(offsetof(DerivedObj, {member}) == {f.offset});" in header
        assert f"static_assert(sizeof(decltype(DerivedObj::{member})) == {f.size});" in header
    assert f"static_assert(sizeof(DerivedObj) == {info.total_size});" in header
    assert "static_assert(alignof(DerivedObj) == 8);" in header
    assert (
        'TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP("tvmffi_tests.gen_abi_cpp.sub.Derived", 2);' in header
    )


def test_field_carriers() -> None:
    header = gen_abi_cpp("tvmffi_tests.gen_abi_cpp.sub.Derived")
    expected = {
        "ratio": "double",
        "name": "::tvm::ffi::String",
        "leaf": f"::tvm::ffi::Arc<{_LEAF}>",
        "leaves": f"::tvm::ffi::List<::tvm::ffi::Arc<{_LEAF}>>",
        # A @py_class keeps Optional / Union fields in a TVMFFIAny ...
        "maybe": "::tvm::ffi::Any",
        "either": "::tvm::ffi::Any",
        # ... but a container's optional objects are nullable object pointers.
        "maybe_items": f"::tvm::ffi::List<::tvm::ffi::ObjectPtr<{_LEAF}>>",
    }
    for name, cpp_type in expected.items():
        assert f"  {cpp_type} {name};  // offset=" in header, name
    assert "  int64_t __ffi_escape_6e6577;  // offset=" in header
    assert "reflected name='new'" in header
    base = gen_abi_cpp("tvmffi_tests.gen_abi_cpp.Base")
    assert "  bool flag;  // offset=24, size=1, align=1" in base
    assert "  int64_t count;  // offset=32, size=8, align=8" in base


def test_parents_come_first_and_references_are_declared() -> None:
    header = gen_abi_cpp("tvmffi_tests.gen_abi_cpp.sub.Derived")
    # The parent is emitted (before the child, which derives from it) without being asked.
    base_at = header.index("struct alignas(8) BaseObj : public ::tvm::ffi::Object {")
    derived_at = header.index(f"struct alignas(8) DerivedObj : public {_BASE} {{")
    assert base_at < derived_at
    # Leaf is only referred to: forward-declared, and a field-less view.
    assert "struct LeafObj;" in header
    assert f"inline constexpr bool tvm::ffi::is_object_subclass_v<{_LEAF}> = true;" in header
    assert (
        "struct LeafObj : public ::tvm::ffi::Object {\n"
        '  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP("tvmffi_tests.gen_abi_cpp.Leaf", 1);\n'
        "};"
    ) in header
    assert "namespace tvmffi_tests {\nnamespace gen_abi_cpp {\nnamespace sub {" in header
    assert header.startswith("#pragma once\n\n#include <tvm/ffi/tvm_ffi.h>\n")
    # Selected too, Leaf gets its members.
    both = gen_abi_cpp(["tvmffi_tests.gen_abi_cpp.sub.Derived", "tvmffi_tests.gen_abi_cpp.Leaf"])
    assert "struct alignas(8) LeafObj : public ::tvm::ffi::Object {" in both
    assert "  int64_t value;  // offset=24, size=8, align=8" in both


def test_selectors() -> None:
    keys = [
        "tvmffi_tests.gen_abi_cpp.Leaf",
        "tvmffi_tests.gen_abi_cpp.Base",
        "tvmffi_tests.gen_abi_cpp.sub.Derived",
        "tvmffi_tests.gen_abi_cpp.Ωmega",
    ]
    whole = gen_abi_cpp(keys)
    assert gen_abi_cpp(list(reversed(keys))) == whole  # deterministic, order-free
    assert gen_abi_cpp("tvmffi_tests.gen_abi_cpp.*") == whole  # a pattern
    assert gen_abi_cpp([*keys, "tvmffi_tests.gen_abi_cpp.L*", "ffi.Function"]) == whole
    # The runtime's own types are declared by tvm_ffi.h: nothing to emit.
    assert "struct" not in gen_abi_cpp("ffi.Function")
    with pytest.raises(ValueError, match="did not match any registered type"):
        gen_abi_cpp("tvmffi_tests.gen_abi_cpp.NoSuchType")
    with pytest.raises(ValueError, match="did not match any registered type"):
        gen_abi_cpp(["tvmffi_tests.gen_abi_cpp.Leaf", "no.such.*"])
    with pytest.raises(ValueError, match="did not match any registered object type"):
        gen_abi_cpp("int")
    with pytest.raises(ValueError, match="no C\\+\\+ class"):
        gen_abi_cpp("ffi.OpaquePyObject")


def test_unicode_type_key_is_escaped() -> None:
    header = gen_abi_cpp("tvmffi_tests.gen_abi_cpp.Ωmega")
    # The whole part is escaped: hex of its UTF-8 bytes.
    name = "__ffi_escape_" + "Ωmega".encode().hex() + "Obj"
    assert f"struct alignas(8) {name} : public ::tvm::ffi::Object {{" in header
    # The key as a literal of UTF-8 bytes (octal escapes), whatever the compiler's charset.
    assert r'"tvmffi_tests.gen_abi_cpp.\316\251mega"' in header


def test_native_types() -> None:
    # The runtime's C++ types registered with reflection are views too.
    path = gen_abi_cpp("ffi.reflection.AccessPath")
    assert "  int32_t depth;  // offset=" in path and "signedness not reflected" in path
    # IntEnum's `value` is another name of Enum's `_int_index`: no second member.
    enum = gen_abi_cpp("ffi.IntEnum")
    assert "struct alignas(8) IntEnumObj : public ::ffi::EnumObj {" in enum
    assert "  // 'value' is another name of _int_index (offset=24)" in enum
    assert "int64_t value;" not in enum
    with pytest.raises(ValueError, match="does not expose fixed total-size metadata"):
        gen_abi_cpp("ffi.StructuralVisitor")


def _native_field(name: str, raw: dict[str, Any], size: int, alignment: int) -> TypeField:
    return TypeField(
        name=name,
        size=size,
        alignment=alignment,
        offset=24,
        field_static_type_index=-1,
        metadata={"type_schema": raw},
        ty=TypeSchema.from_json_obj(raw),
    )


def test_native_field_carriers_follow_schema_and_layout() -> None:
    owner: Any = SimpleNamespace(type_key="tvmffi_tests.gen_abi_cpp.Native")
    gen = _Generator([])

    def lower(raw: dict[str, Any], size: int, alignment: int = 8) -> str:
        return gen._lower_field(_native_field("f", raw, size, alignment), owner).cpp_type

    leaf = {"type": "tvmffi_tests.gen_abi_cpp.Leaf"}
    assert lower(leaf, 8) == f"::tvm::ffi::Arc<{_LEAF}>"
    assert lower({"type": "Optional", "args": [leaf]}, 8) == f"::tvm::ffi::ObjectPtr<{_LEAF}>"
    assert (
        lower({"type": "Optional", "args": [{"type": "ffi.String"}]}, 16)
        == "::tvm::ffi::Optional<::tvm::ffi::String>"
    )
    assert (
        lower({"type": "Variant", "args": [leaf, {"type": "ffi.Function"}]}, 8)
        == "::tvm::ffi::Arc<::tvm::ffi::Object>"
    )
    assert (
        lower({"type": "ffi.Map", "args": [{"type": "ffi.String"}, {"type": "int"}]}, 8)
        == "::tvm::ffi::Map<::tvm::ffi::String, int64_t>"
    )
    assert lower({"type": "int"}, 4, 4) == "int32_t"
    # A C++ Optional<int64_t> and the like: the schema does not say which type it is.
    with pytest.raises(ValueError, match="Ambiguous native Optional carrier"):
        lower({"type": "Optional", "args": [{"type": "int"}]}, 16)
    # Types that read like an owning value but are not one.
    with pytest.raises(ValueError, match=r"'DLTensor\*'"):
        lower({"type": "DLTensor*"}, 8)
    with pytest.raises(ValueError, match="'std::vector'"):
        lower({"type": "std::vector", "args": [{"type": "int"}]}, 24)
    # A size reflection does not agree with.
    with pytest.raises(ValueError, match="reflection reports"):
        lower({"type": "bool"}, 8)
    # No schema: the static type index decides.
    bare = TypeField(name="g", size=8, alignment=8, offset=24, field_static_type_index=130)
    assert gen._lower_field(bare, owner).cpp_type == "::tvm::ffi::ObjectPtr<::tvm::ffi::Object>"


@needs_compiler
def test_generated_header_reads_live_objects(tmp_path: Path) -> None:
    header = gen_abi_cpp(["tvmffi_tests.gen_abi_cpp.*", "ffi.IntEnum", "ffi.reflection.AccessPath"])
    (tmp_path / "abi.h").write_text(header)
    source = r"""
        #include "abi.h"

        using ::tvmffi_tests::gen_abi_cpp::BaseObj;
        using ::tvmffi_tests::gen_abi_cpp::LeafObj;
        using ::tvmffi_tests::gen_abi_cpp::sub::DerivedObj;

        int64_t read_count(const BaseObj* obj) { return obj->count; }
        bool read_flag(const DerivedObj* obj) { return obj->flag; }
        double read_ratio(const DerivedObj* obj) { return obj->ratio; }
        ::tvm::ffi::String read_name(const DerivedObj* obj) { return obj->name; }
        int64_t read_new(const DerivedObj* obj) { return obj->__ffi_escape_6e6577; }
        int64_t read_leaf(const DerivedObj* obj) { return obj->leaf->value; }
        int64_t sum_leaves(const DerivedObj* obj) {
          int64_t total = 0;
          for (const auto& leaf : obj->leaves) total += leaf->value;
          return total;
        }
        void write_count(DerivedObj* obj, int64_t value) { obj->count = value; }
        int32_t derived_type_index() { return DerivedObj::RuntimeTypeIndex(); }
    """
    names = [
        "read_count",
        "read_flag",
        "read_ratio",
        "read_name",
        "read_new",
        "read_leaf",
        "sum_leaves",
        "write_count",
        "derived_type_index",
    ]
    # tvmffi.cpp comes with `import tvmffi` (as upstream's tvm_ffi.cpp does).
    mod = tvmffi.cpp.load_inline(
        name="gen_abi_cpp_live",
        cpp_sources=source,
        functions=names,
        extra_include_paths=[str(tmp_path)],
        build_directory=str(tmp_path / "build"),
    )
    obj = Derived(
        flag=True,
        count=41,
        ratio=0.25,
        name="a name longer than a small string",
        leaf=Leaf(value=7),
        leaves=[Leaf(value=1), Leaf(value=2)],
        maybe=None,
        maybe_items=[None],
        either="x",
        new=9,
    )
    assert mod.read_count(obj) == 41
    assert mod.read_flag(obj) is True
    assert mod.read_ratio(obj) == 0.25
    assert mod.read_name(obj) == "a name longer than a small string"
    assert mod.read_new(obj) == 9
    assert mod.read_leaf(obj) == 7
    assert mod.sum_leaves(obj) == 3
    mod.write_count(obj, 5)
    assert obj.count == 5
    assert mod.derived_type_index() == _info("tvmffi_tests.gen_abi_cpp.sub.Derived").type_index
