"""``jax.errors``: the error classes of JAX that gradmagic.jax raises or user code catches.
``ConcretizationTypeError`` is raised where a transformation (``grad``, ``vjp``, ``jvp``,
``jacfwd``, ``jacrev``, ``hessian``) follows an array that code turns into a Python number
with ``float()`` or ``complex()`` (``math.sin(x)`` too), or a list with ``tolist()``: the
number would be a constant to the gradient, silently wrong."""


class JAXTypeError(TypeError):
    """A TypeError raised by JAX."""


class ConcretizationTypeError(JAXTypeError):
    """A value a transformation follows was needed as a concrete Python value."""


class TracerArrayConversionError(JAXTypeError):
    """A value a transformation follows was turned into a NumPy array."""


class TracerIntegerConversionError(JAXTypeError):
    """A value a transformation follows was used as a Python integer."""


class TracerBoolConversionError(ConcretizationTypeError):
    """A value a transformation follows was used as a Python bool."""


class UnexpectedTracerError(Exception):
    """A traced value escaped the transformation that made it."""


URL = "https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError"


def concretization(x, problem):
    """JAX's error for the array ``x`` (its shape and dtype) needed as a Python value;
    ``problem``: the sentence that says where."""
    aval = f"{x.dtype.name}[{','.join(str(n) for n in x.shape)}]"
    return ConcretizationTypeError("Abstract tracer value encountered where concrete value is "
                                   f"expected: traced array with shape {aval}\n"
                                   f"{problem.format(aval=aval)}\n\nSee {URL}")


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.errors.{name} does not exist: it maps ConcretizationTypeError, "
                         "TracerArrayConversionError, TracerIntegerConversionError, "
                         "TracerBoolConversionError, UnexpectedTracerError, JAXTypeError")
