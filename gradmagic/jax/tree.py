"""``jax.tree``: ``jax.tree_util``'s functions under their short names (``jax.tree.map``)."""

from .tree_util import tree_all as all  # noqa: A001  (JAX's names)
from .tree_util import tree_flatten as flatten
from .tree_util import tree_leaves as leaves
from .tree_util import tree_map as map  # noqa: A001
from .tree_util import tree_reduce as reduce
from .tree_util import tree_structure as structure
from .tree_util import tree_unflatten as unflatten

__all__ = ["all", "flatten", "leaves", "map", "reduce", "structure", "unflatten"]
