"""Shape and layout functions of NumPy (flips, rolls, tiles, pads, stacks, splits ...),
composed from the op catalogue's primitives, so that they differentiate to any order
with no rule of their own. ``FUNCTIONS`` maps each NumPy function onto its form here;
``core/dispatch.py`` routes NumPy's calls on Tensors through it.
"""

FUNCTIONS = {}  # numpy function -> its differentiable form
