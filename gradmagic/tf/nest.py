"""``tf.nest``: nested lists, tuples (namedtuples too) and dicts, flattened as TensorFlow
flattens them (a dict's values in sorted key order; ``None`` and anything else one leaf),
on the engine's own nests (``core/nest.py``, which tapes and ``custom_gradient`` use)."""

from __future__ import annotations

from ..core.nest import flatten as core_flatten
from ..core.nest import is_nest


def flatten(structure, expand_composites=False):
    """The leaves of ``structure``, in TensorFlow's order."""
    return core_flatten(structure)[0]


def is_nested(seq):
    """Whether ``seq`` is a list, tuple or dict (a nest)."""
    return is_nest(seq)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced by ``flat_sequence``'s, in order."""
    leaves, _, rebuild = core_flatten(structure)
    flat = list(flat_sequence)
    if len(flat) != len(leaves):
        raise ValueError(f"Could not pack sequence. Structure had {len(leaves)} atoms, but "
                         f"flat_sequence had {len(flat)} items.  Structure: {structure}, "
                         f"flat_sequence: {flat_sequence}.")
    return rebuild(flat)


def _shown(value):
    return f"type={type(value).__name__} str={value}"


def outline(value):
    """The structure with each leaf a dot, as TensorFlow's messages draw it (``[., (., .)]``);
    two nests are nested alike where their outlines are equal."""
    leaves, _, rebuild = core_flatten(value)
    return str(rebuild([_Dot()] * len(leaves)))


class _Dot:
    def __repr__(self):
        return "."


def _difference(a, b, check_types):
    """Why nests ``a`` and ``b`` differ, as TensorFlow says it: ``(exception, reason)``, or
    None."""
    if is_nest(a) != is_nest(b):
        nested, leaf = (a, b) if is_nest(a) else (b, a)
        return ValueError, (f'Substructure "{_shown(nested)}" is a sequence, while substructure '
                            f'"{_shown(leaf)}" is not')
    if not is_nest(a):
        return None
    if check_types and type(a) is not type(b):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First structure "
                           f"{_shown(a)} has type {type(a).__name__}, while second structure "
                           f"{_shown(b)} has type {type(b).__name__}")
    if len(a) != len(b):
        return ValueError, (f"The two structures don't have the same number of elements. First "
                            f"structure: {_shown(a)}. Second structure: {_shown(b)}")
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            return ValueError, (f"The two dictionaries don't have the same set of keys. First "
                                f"structure has keys {sorted(a)}, while second structure has keys "
                                f"{sorted(b)}.")
        pairs = [(a[k], b[k]) for k in sorted(a)]
    else:
        pairs = list(zip(a, b))
    for x, y in pairs:
        found = _difference(x, y, check_types)
        if found is not None:
            return found
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises TensorFlow's ValueError (TypeError for a list against a tuple, with
    ``check_types``) where ``nest1`` and ``nest2`` are not nested alike."""
    found = _difference(nest1, nest2, check_types)
    if found is None:
        return
    exc, reason = found
    raise exc(f"The two structures don't have the same nested structure.\n\nFirst structure: "
              f"{_shown(nest1)}\n\nSecond structure: {_shown(nest2)}\n\nMore specifically: "
              f"{reason}\nEntire first structure:\n{outline(nest1)}\nEntire second structure:\n"
              f"{outline(nest2)}")


def map_structure(func, *structure, check_types=True, expand_composites=False):
    """``func`` applied leaf by leaf across ``structure`` (nests of one shape), the result
    nested as the first."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types)
    first, _, rebuild = core_flatten(structure[0])
    flats = [first] + [core_flatten(s)[0] for s in structure[1:]]
    return rebuild([func(*leaves) for leaves in zip(*flats)])


__all__ = ["flatten", "is_nested", "pack_sequence_as", "assert_same_structure", "map_structure"]
