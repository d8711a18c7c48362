"""tvmffi.module: load_module, Module access, listing, metadata, doc, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import tvmffi

CPU_FUNCTIONS = {
    "add",
    "add_bias",
    "add_int",
    "add_one",
    "fill",
    "fill_all",
    "greet",
    "nop3",
    "scale",
    "scale_alloc",
    "sum",
    "sum_all",
}


def test_load_returns_module(cpu_kernels: tvmffi.Module, cpu_kernels_path: Path) -> None:
    assert isinstance(cpu_kernels, tvmffi.Module)
    assert isinstance(cpu_kernels, tvmffi.Object)
    assert cpu_kernels.kind == "library"
    assert Path(cpu_kernels.path).resolve() == cpu_kernels_path.resolve()
    assert "libtvmffi_cpu_kernels" in repr(cpu_kernels)


def test_load_accepts_pathlike(cpu_kernels_path: Path) -> None:
    mod = tvmffi.load_module(Path(cpu_kernels_path))
    assert mod.add_int(2, 3) == 5


def test_attribute_and_item_access(cpu_kernels: tvmffi.Module) -> None:
    f = cpu_kernels.add_int
    assert isinstance(f, tvmffi.Function)
    assert f(40, 2) == 42
    assert cpu_kernels["add_int"](1, -3) == -2
    assert cpu_kernels.get_function("greet")("py") == "Hello, py!"
    # attribute access is cached on the module object
    assert cpu_kernels.add_int is cpu_kernels.add_int


def test_listing(cpu_kernels: tvmffi.Module) -> None:
    names = cpu_kernels.list_functions()
    assert set(names) == CPU_FUNCTIONS
    assert CPU_FUNCTIONS <= set(dir(cpu_kernels))
    assert "scale" in cpu_kernels
    assert "nope" not in cpu_kernels
    assert 3 not in cpu_kernels
    assert cpu_kernels.implements_function("sum")
    assert not cpu_kernels.implements_function("nope")


def test_metadata_and_doc(cpu_kernels: tvmffi.Module) -> None:
    meta = cpu_kernels.get_function_metadata("add_int")
    assert isinstance(meta, dict)
    assert meta["name"] == "add_int"
    assert [a["type"] for a in meta["args"]] == ["int", "int"]
    assert meta["ret"] == "int"
    assert cpu_kernels.get_function_doc("add_int") == "a + b on 64-bit integers"
    assert "Optional" in cpu_kernels.get_function_metadata("add")["args"][2]["type"]


def test_missing_function_is_attribute_error(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(AttributeError, match="no function `nope`"):
        cpu_kernels.nope
    with pytest.raises(AttributeError, match="nope"):
        cpu_kernels["nope"]
    assert cpu_kernels.get_function_doc("nope") is None
    assert cpu_kernels.get_function_metadata("nope") is None
    with pytest.raises(TypeError, match="function name"):
        cpu_kernels[0]  # type: ignore[index]


def test_dunder_lookup_is_not_a_function_lookup(cpu_kernels: tvmffi.Module) -> None:
    assert not hasattr(cpu_kernels, "__array_interface__")


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        tvmffi.load_module("/nonexistent/libnothing.so")


def test_library_that_does_not_load(tmp_path: Path) -> None:
    bogus = tmp_path / "libbogus.so"
    bogus.write_bytes(b"this is not an ELF file")
    with pytest.raises(RuntimeError, match="libbogus.so"):
        tvmffi.load_module(bogus)


def test_bad_path_type() -> None:
    with pytest.raises(TypeError):
        tvmffi.load_module(42)  # type: ignore[arg-type]


def test_system_lib() -> None:
    mod = tvmffi.system_lib()
    assert isinstance(mod, tvmffi.Module)
    assert mod.kind == "system"
    with pytest.raises(AttributeError):
        mod.no_such_symbol_here


def test_upstream_module_methods(cpu_kernels: tvmffi.Module) -> None:
    # upstream's Module methods over the runtime's virtual ModuleObj methods:
    # a loaded library is runnable, keeps no source and cannot be re-written.
    assert cpu_kernels.get_property_mask() == tvmffi.module.ModulePropertyMask.RUNNABLE == 0b010
    assert cpu_kernels.is_runnable()
    assert not cpu_kernels.is_binary_serializable()
    assert not cpu_kernels.is_compilation_exportable()
    assert cpu_kernels.inspect_source() == ""
    assert cpu_kernels.inspect_source("asm") == ""
    assert cpu_kernels.get_write_formats() == []
    with pytest.raises(RuntimeError, match=r"Module\[library\] does not support WriteToFile"):
        cpu_kernels.write_to_file("out.so", "so")


def test_clear_imports() -> None:
    lib = tvmffi.system_lib("test_clear_imports_")
    other = tvmffi.system_lib("test_clear_imports_other_")
    lib.import_module(other)
    assert [m.same_as(other) for m in lib.imports] == [True]
    with pytest.raises(RuntimeError, match="cycle"):
        other.import_module(lib)
    lib.clear_imports()
    assert lib.imports == []
    other.import_module(lib)  # no cycle any more
    other.clear_imports()


def test_module_reflection() -> None:
    # ffi.Module's reflection as upstream registers it: ModuleObj's size
    # (vtable, header, imports_, a private slot) and the read-only imports_.
    info = tvmffi.core._lookup_or_register_type_info_from_type_key("ffi.Module")
    assert info.total_size == 48
    (field,) = info.fields
    assert (field.name, field.offset, field.size, field.frozen) == ("imports_", 24, 8, True)
    lib = tvmffi.system_lib("test_module_reflection_")
    other = tvmffi.system_lib("test_module_reflection_other_")
    assert len(lib.imports_) == 0
    lib.import_module(other)
    assert [m.same_as(other) for m in lib.imports_] == [True]
    assert [m.same_as(other) for m in field.getter(lib)] == [True]
