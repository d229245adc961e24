"""Nests: lists, tuples and dicts of values, flattened as TensorFlow's ``nest`` flattens
them (a dict's values in sorted key order) and rebuilt with new leaves. Tapes flatten
their targets and sources with it, ``custom_gradient`` its arguments and results.
"""


NESTS = (list, tuple, dict)


def is_nest(value):
    """Whether ``value`` is a list, tuple or dict (a nest whose leaves are flattened)."""
    return isinstance(value, NESTS)


def _keys(d, ordered):
    if ordered:
        try:
            return sorted(d)  # as TensorFlow's nest: a dict's values in sorted key order
        except TypeError:
            pass
    return list(d)


def flatten(value, name="", ordered=True):
    """The leaves of a nest of lists, tuples and dicts, with their names (``xs[0]``,
    ``cfg['w']``); anything else is one leaf. Returns ``(leaves, names, rebuild)``, where
    ``rebuild(new_leaves)`` gives the same structure with the new leaves. ``ordered``: a
    dict's values in sorted key order, as TensorFlow's (else in the dict's own order)."""
    if not is_nest(value):
        return [value], [name], lambda leaves: leaves[0]
    leaves, names, parts = [], [], []
    keys = _keys(value, ordered) if isinstance(value, dict) else range(len(value))
    for k in keys:
        sub, sub_names, rebuild = flatten(value[k], f"{name}[{k!r}]" if isinstance(value, dict)
                                          else f"{name}[{k}]", ordered)
        parts.append((k, len(sub), rebuild))
        leaves += sub
        names += sub_names

    def build(new):
        items, at = {}, 0
        for k, n, rebuild in parts:
            items[k] = rebuild(new[at:at + n])
            at += n
        if isinstance(value, dict):
            return {k: items[k] for k in value}
        seq = [items[k] for k in range(len(value))]
        return type(value)(*seq) if hasattr(type(value), "_fields") else type(value)(seq)
    return leaves, names, build
