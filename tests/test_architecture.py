"""The package's shape: one-way layers, no import cycle, public seams between modules.

Read from the source with ``ast`` (every import, at the top of a module or inside a
function), so a lazy import cannot hide a cycle or a layer crossed the wrong way.
"""

import ast
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gradmagic as gm

PACKAGE = Path(gm.__file__).resolve().parent
ROOT = PACKAGE.parent


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_package(name):
    return MODULES[name].name == "__init__.py"


def _imports(name):
    """``(imported module, names taken from it, line)`` for every import in module ``name``,
    resolved to gradmagic's modules (others are left out)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    here = name if _is_package(name) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    out.append((alias.name, (), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in MODULES:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in MODULES:  # `from . import ops`: the module ops, and the package,
                    out.append((sub, (), node.lineno))  # whose __init__ runs first
                    out.append((source, (), node.lineno))
                else:
                    out.append((source, (alias.name,), node.lineno))
    return out


GRAPH = {name: sorted({m for m, _, _ in _imports(name) if m != name}) for name in MODULES}


def _cycles():
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, groups, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in GRAPH:
        if v not in index:
            visit(v)
    return groups


def test_the_package_has_no_import_cycle():
    assert _cycles() == []


def test_the_cycle_finder_finds_a_cycle():
    GRAPH["gradmagic.core.tensor"].append("gradmagic.core.ops")  # as tensor.py once did
    try:
        assert ["gradmagic.core.ops", "gradmagic.core.primitive", "gradmagic.core.tensor"] in _cycles()
    finally:
        GRAPH["gradmagic.core.tensor"].remove("gradmagic.core.ops")


def _layer(name):
    parts = name.split(".")
    if len(parts) > 1 and parts[1] in ("core", "debug", "render"):  # a layer's package too
        return parts[1]
    if name in ("gradmagic._backend", "gradmagic._array_api", "gradmagic._dtypes", "gradmagic._scans",
                "gradmagic.errors", "gradmagic.tracebacks"):
        return "base"
    if name == "gradmagic":
        return "package"
    return "face"


# what each layer may import (besides itself); a package's __init__ re-exports its layer
ALLOWED = {"base": {"base"}, "core": {"base"}, "render": {"base", "core"},
           "debug": {"base", "core", "render"}, "face": {"base", "core", "render", "debug", "package"},
           "package": {"base", "core", "render", "debug", "face", "package"}}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_dependencies_run_one_way(name):
    layer = _layer(name)
    wrong = [f"{m} ({_layer(m)})" for m in GRAPH[name]
             if _layer(m) != layer and _layer(m) not in ALLOWED[layer]]
    assert wrong == [], f"{name} ({layer}) imports from a layer above it"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_underscore_name_crosses_a_module_boundary(name):
    crossing = [f"line {line}: {n} from {m}" for m, names, line in _imports(name) for n in names
                if n.startswith("_") and m != name]
    assert crossing == []


def _private_attributes(tree):
    """The private attribute names a module defines: on ``self``, in ``__slots__`` and
    in class bodies."""
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "__dict__" and isinstance(node.slice, ast.Constant)):
            own.add(node.slice.value)  # self.__dict__["_xp"] = ...
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    own.add(target.id)
                    if target.id == "__slots__" and isinstance(node.value, (ast.Tuple, ast.List)):
                        own.update(e.value for e in node.value.elts if isinstance(e, ast.Constant))
    return {a for a in own if a.startswith("_") and not a.startswith("__")}


# private attributes of other libraries that gradmagic reads on purpose, each with its reason
# (IPython's display protocol, ``_repr_html_`` and its kin, is public by convention)
FOREIGN = {"_getframe": "sys._getframe: the user's frame, for naming values",
           "_NoValue": "np._NoValue: NumPy's marker for an argument that was not given",
           "_fields": "a namedtuple's field names, its public API (jax.tree_util's key paths)"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_attribute_of_another_modules_object_is_read(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    own = _private_attributes(tree)
    reads = sorted({f"line {node.lineno}: .{node.attr}" for node in ast.walk(tree)
                    if isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.attr not in own
                    and node.attr not in FOREIGN and not node.attr.startswith("_repr_")})
    assert reads == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_is_short_and_says_its_subject(name):
    text = MODULES[name].read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 600
    doc = ast.get_docstring(ast.parse(text))
    assert doc and doc.strip(), f"{name} has no docstring saying what it is"


def test_no_noqa_for_import_order():
    found = [f"{name}:{k}" for name, path in MODULES.items()
             for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"noqa:.*\b(E402|I001)\b", line)]
    assert found == []


def _import_block(lines):
    """The positions of ``__init__.py``'s top-level ``from . ...`` imports (one line each)."""
    return [k for k, line in enumerate(lines) if line.startswith("from .")]


@pytest.mark.parametrize("order", ["sorted", "reversed"])
def test_the_package_imports_whatever_the_order_of_its_imports(tmp_path, order):
    copy = tmp_path / "gradmagic"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    lines = init.read_text(encoding="utf-8").splitlines()
    block = _import_block(lines)
    assert len(block) >= 8 and all(not lines[k].endswith(("(", ",")) for k in block)
    imports = sorted(lines[k] for k in block)
    if order == "reversed":
        imports.reverse()
    for k, line in zip(block, imports):
        lines[k] = line
    init.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = ("import gradmagic as gm; x = gm.constant(2.0)\n"
            "with gm.GradientTape() as t:\n    t.watch(x); y = x ** 3\n"
            "print(gm.__file__, float(t.gradient(y, x)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(init), "12.0"]


def test_the_trace_module_and_the_trace_function_are_not_confused():
    module = importlib.import_module("gradmagic.debug.trace")
    assert module.__name__ == "gradmagic.debug.trace" and module.trace is gm.trace
    assert callable(gm.trace) and not hasattr(gm.trace, "__path__")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("gradmagic.trace")


def test_the_warning_filter_names_the_engine_and_the_dialects():
    # NumPy's RuntimeWarnings are silenced in the engine's lines and the dialects' rules (as
    # the frameworks are silent), never in the trace, the renderers or the magic
    import warnings
    pattern = next(f[3] for f in warnings.filters  # (action, message, category, module, lineno)
                   if f[0] == "ignore" and f[3] is not None and "gradmagic" in f[3].pattern)
    for name in MODULES:
        assert bool(pattern.match(name)) is name.startswith(
            ("gradmagic.core.", "gradmagic.tf.", "gradmagic.torch.", "gradmagic.jax."))


# -- the operators the op layer installs ---------------------------------------------------
def _installed():
    from gradmagic.core import dispatch
    ops = [(f"__{n}__", p, False) for n, p in dispatch.BINARY.items()]
    ops += [(f"__r{n}__", p, True) for n, p in dispatch.BINARY.items()]
    ops += [(f"__{n}__", f.prim, False) for n, f in dispatch.BINARY_OPS.items()]
    ops += [(f"__r{n}__", f.prim, True) for n, f in dispatch.BINARY_OPS.items()]
    ops += [(f"__{n}__", f.prim, False) for n, f in dispatch.COMPARISONS.items()]
    ops += [(f"__{n}__", f.prim, None) for n, f in dispatch.UNARY.items()]
    return ops


@pytest.mark.parametrize("dunder, prim, reflected", _installed(),
                         ids=[d for d, _, _ in _installed()])
def test_every_operator_of_a_tensor_is_one_op(dunder, prim, reflected):
    import numpy as np
    bitwise = prim.name.startswith("bitwise") or prim.name == "invert"  # (NumPy's: integers)
    x = gm.constant([6, 2] if bitwise else [1.5, 2.0])
    y = gm.constant([3, 7] if bitwise else [0.5, 3.0])
    with gm.trace(ops=True) as tr:
        with gm.GradientTape() as tape:
            tape.watch([] if bitwise else [x, y])  # (an integer has no gradient to follow)
            out = getattr(x, dunder)(*(() if reflected is None else (y,)))
    args = (x.value,) if reflected is None else (y.value, x.value) if reflected else (x.value, y.value)
    np.testing.assert_array_equal(out.value, prim.np(*args))
    # a differentiable op is recorded as itself, once; the rest are not connected
    assert [r.node for r in tr.forward] == ([prim.name] if prim.vjps is not None else [])
    assert getattr(type(x), dunder).__qualname__ == f"Tensor.{dunder}"
