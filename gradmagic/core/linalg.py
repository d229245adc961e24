"""``np.linalg`` on Tensors: its primitives, their gradient rules (beside them, in the
rule table's style) and the functions composed from them. ``FUNCTIONS`` maps each NumPy
function onto its form here; ``core/dispatch.py`` routes NumPy's calls on Tensors
through it.
"""

FUNCTIONS = {}  # numpy function -> its differentiable form
