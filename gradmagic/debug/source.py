"""The user's own code read back, so that a fix can be written from it: what a
``grad_fn`` (or a PyTorch ``backward``) returns, as written."""

from __future__ import annotations

import ast
import linecache

from .snapshot import code_of


def _definition(fn):
    """The ``def`` or ``lambda`` node of ``fn`` in its source, or None."""
    f = code_of(fn)
    if f is None:
        return None
    code = f.__code__
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and code.co_name == "<lambda>":
            if node.lineno == code.co_firstlineno and [a.arg for a in node.args.args] == list(
                    code.co_varnames[:code.co_argcount]):
                return node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (node.lineno, first):
                return node
    return None


def _returns(node):
    """The ``return`` statements of a function, not of the functions inside it."""
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return) and child.value is not None:
            out.append(child)
        elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            out += _returns(child)
    return out


def returned(fn, n):
    """``(its parameter names, the expression of each of its ``n`` results)`` as ``fn``'s
    source writes them (its last ``return``), or None where that cannot be read."""
    node = _definition(fn)
    if node is None:
        return None
    if isinstance(node, ast.Lambda):
        value = node.body
    else:
        returns = _returns(node)
        if not returns:
            return None
        value = returns[-1].value
    params = [a.arg for a in node.args.args]
    if n == 1:
        return params, [value]
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == n:
        return params, list(value.elts)
    return None


def times_upstream(fn, n, lead, which):
    """``fn``'s return statement rewritten so that results ``which`` are multiplied by its
    upstream parameter (the one after ``lead`` leading parameters), or None."""
    found = returned(fn, n)
    if found is None:
        return None
    params, values = found
    if len(params) <= lead:
        return None
    up = ast.Name(params[lead], ast.Load())
    parts = [ast.unparse(ast.BinOp(up, ast.Mult(), v)) if k in which else ast.unparse(v)
             for k, v in enumerate(values)]
    return "return " + ", ".join(parts)
