"""``np.sinc`` on Tensors: ``sin(pi x) / (pi x)``, 1 at 0, with every derivative right
there too; ``softmax`` and ``log_softmax``, which every dialect's namespace maps, and the
constants and formulas of the activations they share (``selu``'s, ``gelu``'s two forms),
and ``erf``, ``erfc`` and ``erfinv``, which NumPy lacks and the exact ``gelu`` needs, and SciPy's ``xlogy``,
``xlog1py``, ``gammaln`` (``lgamma``) and ``polygamma`` (``digamma`` its order 0); and
NumPy's elementwise functions that are ops of their own here (``heaviside``, ``copysign``,
``fmax``, ``fmin``, ``fix``), with ``float_power``, composed (``UFUNCS``, ``UFUNC_FUNCTIONS``).

``sin(y) / y`` differentiated as written has ``0 / 0`` at 0, and a ``where`` that picks
1 there gives the right value and first derivative but a second derivative of 0 (it is
``-pi^2 / 3``). So the op carries the order of the derivative it computes: ``SINC`` with
``k`` is the ``k``-th derivative of ``np.sinc``, and its rule is ``SINC`` with ``k + 1``,
to any order. Each is computed where it is accurate: by the Maclaurin series for
``|pi x| < 1`` (exact at 0), and elsewhere by the recurrence that differentiating
``y s(y) = sin(y)`` ``k`` times gives, ``s^(k) = (sin(y + k pi / 2) - k s^(k-1)) / y``,
whose errors grow by at most ``k / |y| <= k`` a step. ``FUNCTIONS`` maps NumPy's function
onto its form here.
"""

import math

import numpy as np

from .._backend import kind, numpy_dtype, to_host
from ..errors import GradientValueError, NoGradientError
from . import ops
from .primitive import Primitive, apply, composite, defvjp
from .tensor import raw

_TERMS = 12  # of the series: the last is below 1 / 22! for |y| < 1


def _series(k):
    """``(coefficient, power)`` of the terms of ``s^(k)(y) = sum_m (-1)^m y^(2m-k)
    (2m)! / ((2m-k)! (2m+1)!)``, ``s(y) = sin(y) / y``."""
    first = (k + 1) // 2
    return [((-1) ** m * math.factorial(2 * m) / (math.factorial(2 * m - k) * math.factorial(2 * m + 1)),
             2 * m - k) for m in range(first, first + _TERMS)]


def _sinc(xp, x, k=0):
    """The ``k``-th derivative of ``np.sinc`` at ``x``: ``pi^k s^(k)(pi x)``."""
    y = math.pi * x
    near = (xp.abs(y) < 1) if k else (y == 0)  # the value itself: NumPy's sin(y) / y but at 0
    far = xp.where(near, 1.0, y)
    d = xp.sin(far) / far
    for j in range(1, k + 1):
        d = (xp.sin(far + j * math.pi / 2) - j * d) / far
    close = xp.where(near, y, 0.0)
    series = sum(c * close ** p for c, p in _series(k))
    return xp.where(near, series, d) * math.pi ** k


SINC = Primitive("sinc", _sinc, elementwise=True)
defvjp(SINC, lambda g, ans, x, k=0: g * apply(SINC, x, k=k + 1), labels=("sinc'(x)",))


def sinc(x):
    """``np.sinc(x)``: ``sin(pi x) / (pi x)``, 1 at 0; finite derivatives of every order,
    exact at 0 (``sinc'(0) = 0``, ``sinc''(0) = -pi^2 / 3``)."""
    return apply(SINC, x)


@composite("softmax * (upstream - sum(upstream * softmax))")
def softmax(x, axis=-1):
    """``exp(x - logsumexp(x, axis))``: stable for any ``x``."""
    return ops.exp(x - ops.logsumexp(x, axis=axis, keepdims=True))


@composite("upstream - softmax * sum(upstream)")
def log_softmax(x, axis=-1):
    """``x - logsumexp(x, axis)``."""
    return x - ops.logsumexp(x, axis=axis, keepdims=True)


# the activations every dialect's namespace has, each with its framework's convention at 0:
# their shared constants and formulas
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


@composite("1 where x > 0, else 0", elementwise=True)
def relu(x):
    """``max(x, 0)``: gradient 0 at 0, as every framework's, and NaN kept, as theirs (a
    ``where(x > 0, x, 0)`` would make it 0). One row in a trace, named ``relu``."""
    return ops.where(x <= 0, 0, x)


@composite("1 strictly between 0 and 6", elementwise=True)
def relu6(x):
    """``min(max(x, 0), 6)``: gradient 1 strictly between 0 and 6, NaN kept."""
    return ops.where(x <= 0, 0, ops.where(x >= 6, 6, x))


def gelu_tanh(x):
    """The tanh form of gelu, ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``."""
    return 0.5 * x * (1 + ops.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))


def gelu_erf(x):
    """The exact gelu, ``x P(X <= x)`` for a standard normal X: ``0.5 x (1 + erf(x / sqrt(2)))``
    (the default of PyTorch's ``F.gelu`` and TensorFlow's ``tf.nn.gelu``)."""
    return 0.5 * x * (1 + erf(x * math.sqrt(0.5)))


# -- erf: NumPy has none -------------------------------------------------------------------
def _host_float(xp, x, compute):
    """``compute`` (float64 NumPy in and out) of ``x``, in the float dtype NumPy's ufuncs
    give ``x``: values of another module (CuPy's) are computed on the host and sent back, and
    a 0-d NumPy result is a NumPy scalar, as ufuncs give."""
    host = np.asarray(to_host(x))
    dtype = np.sin(np.zeros((), host.dtype)).dtype  # NumPy's: float32 stays, int32 is float64
    out = compute(host.astype(np.float64)).astype(dtype, copy=False)
    if xp is np:
        return out[()] if not out.shape else out
    return xp.asarray(out)


def _each(fn):
    """A float64 array's elements through Python's ``fn`` (``math.erf``, ``math.lgamma``)."""
    return lambda z: np.fromiter(map(fn, z.ravel().tolist()), np.float64, z.size).reshape(z.shape)


def _erf(xp, x):
    """The error function, element by element with Python's ``math.erf`` (correctly rounded
    in float64, about 0.15 us an element)."""
    return _host_float(xp, x, _each(math.erf))


ERF = Primitive("erf", _erf, elementwise=True)
defvjp(ERF, lambda g, ans, x: g * (2 / math.sqrt(math.pi)) * ops.exp(-(x * x)),
       labels=("2 exp(-x^2) / sqrt(pi)",))


def erf(x):
    """The error function ``2 / sqrt(pi) * integral of exp(-t^2) from 0 to x``, with its
    derivative ``2 exp(-x^2) / sqrt(pi)`` (differentiable to any order)."""
    return apply(ERF, x)


# 1 - erf(x) is 0 in float64 from x = 6 on (erfc(6) = 2e-17), and all of it lost far sooner
ERFC = Primitive("erfc", lambda xp, x: _host_float(xp, x, _each(math.erfc)), elementwise=True)
defvjp(ERFC, lambda g, ans, x: g * (-2 / math.sqrt(math.pi)) * ops.exp(-(x * x)),
       labels=("-2 exp(-x^2) / sqrt(pi)",))


def erfc(x):
    """``1 - erf(x)``, computed as itself (Python's ``math.erfc``), so that it keeps its
    digits where ``erf`` is near 1; derivative ``-2 exp(-x^2) / sqrt(pi)``."""
    return apply(ERFC, x)


# -- erfinv: Giles' approximation, refined to float64 ----------------------------------------
_ROOT_PI_2 = math.sqrt(math.pi) / 2
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefficients, w):
    p = np.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = c + p * w
    return p


def _erfinv_float64(x, rest=None):
    """The inverse error function of float64 array ``x``: Giles' single-precision
    approximation, then Halley's steps on ``erf`` (Newton's on ``log(erfc)`` for ``|x| > 1/2``),
    to float64 accuracy; ``+-inf`` at ``+-1``, NaN outside. ``rest`` is ``1 - |x|`` where the
    caller has it with more digits than ``x`` (``ndtri``'s ``2 p`` for a tiny ``p``)."""
    a = np.abs(x)
    with np.errstate(all="ignore"):
        rest = 1 - a if rest is None else rest
        w = -np.log(rest * (2 - rest))
        y = a * np.where(w < 5, _horner(_GILES_CENTRAL, w - 2.5), _horner(_GILES_TAIL, np.sqrt(w) - 3))
        far = -np.log(rest)  # beyond Giles' range (1 - |x| < 1e-16): erfc(y) ~ exp(-y^2) / (y sqrt(pi))
        y = np.where(w < 36, y, np.sqrt(far - np.log(np.pi * far) / 2))
        inside = rest > 0
        y = np.where(inside, y, 0.0)
        tail = a > 0.5
        for _ in range(6):
            # the centre: Halley's steps on erf(y) = |x| (f'' = -2y f'); the tails: Newton's on
            # log(erfc(y)) = log(1 - |x|), nearly a parabola, with erfc(y) exp(y^2) taken
            # from its asymptotic series where erfc(y) would underflow
            c = erfc(y)
            under = c < 1e-280
            scaled = np.where(under, _erfcx_far(y), c * np.exp(np.where(under, 0.0, y * y)))
            log_c = np.where(under, np.log(scaled) - y * y, np.log(c))
            step = np.where(tail, (log_c - np.log(rest)) * scaled,
                            (a - erf(y)) * np.exp(np.where(tail, 0.0, y * y))) * _ROOT_PI_2
            y = y + np.where(tail, step, step / (1 - y * step))
        y = np.where(inside, y, np.where(rest == 0, np.inf, np.nan))
    return np.copysign(y, x)


def _erfcx_far(y):
    """``exp(y^2) erfc(y)`` for large ``y`` (> 25), by its asymptotic series."""
    v = 1 / (2 * y * y)
    return (1 - v * (1 - 3 * v * (1 - 5 * v * (1 - 7 * v)))) / (y * math.sqrt(math.pi))


ERFINV = Primitive("erfinv", lambda xp, x: _host_float(xp, x, _erfinv_float64), elementwise=True)
defvjp(ERFINV, lambda g, ans, x: g * _ROOT_PI_2 * ops.exp(ans * ans), labels=("sqrt(pi) / 2 exp(erfinv(x)^2)",))


def erfinv(x):
    """The inverse of ``erf`` on (-1, 1) (``+-inf`` at ``+-1``, NaN outside), to float64
    accuracy; its derivative ``sqrt(pi) / 2 exp(erfinv(x)^2)``, to any order."""
    return apply(ERFINV, x)


def _ndtri_float64(q):
    rest = np.where(q < 0.5, 2 * q, 2 * (1 - q))  # 1 - |2q - 1|, with q's own digits
    return _erfinv_float64(2 * q - 1, rest) * math.sqrt(2)


NDTRI = Primitive("ndtri", lambda xp, p: _host_float(xp, p, _ndtri_float64), elementwise=True)
defvjp(NDTRI, lambda g, ans, p: g * math.sqrt(2 * math.pi) * ops.exp(ans * ans / 2),
       labels=("sqrt(2 pi) exp(ndtri(p)^2 / 2)",))


def ndtri(p):
    """The inverse of the standard normal's distribution function, to float64 accuracy far
    into both tails (``sqrt(2) erfinv(2 p - 1)`` is -inf below p = 6e-17); derivative
    ``sqrt(2 pi) exp(ndtri(p)^2 / 2)``."""
    return apply(NDTRI, p)


# -- xlogy, xlog1py: SciPy's, with JAX's derivatives -------------------------------------
def _xlogy(xp, x, y):
    zero = x == 0
    return xp.where(zero, 0, x * xp.log(xp.where(zero, 1, y)))


def _xlog1py(xp, x, y):
    zero = x == 0
    return xp.where(zero, 0, x * xp.log1p(xp.where(zero, 0, y)))


XLOGY = Primitive("xlogy", _xlogy, elementwise=True)
defvjp(XLOGY, lambda g, ans, x, y: g * ops.log(y), lambda g, ans, x, y: g * x / y,
       labels=("log(y)", "x / y"))
XLOG1PY = Primitive("xlog1py", _xlog1py, elementwise=True)
defvjp(XLOG1PY, lambda g, ans, x, y: g * ops.log1p(y), lambda g, ans, x, y: g * x / (1 + y),
       labels=("log(1 + y)", "x / (1 + y)"))


def xlogy(x, y):
    """``x log(y)``, 0 where ``x`` is 0 (``scipy.special.xlogy``); its derivatives are
    ``log(y)`` and ``x / y`` everywhere, as JAX's (``-inf`` and NaN where both are 0)."""
    return apply(XLOGY, x, y)


def xlog1py(x, y):
    """``x log(1 + y)``, 0 where ``x`` is 0; derivatives ``log(1 + y)`` and ``x / (1 + y)``."""
    return apply(XLOG1PY, x, y)


# -- lgamma and the polygamma functions: NumPy has none --------------------------------
def _lgamma(v):
    """Python's ``math.lgamma``, ``inf`` at a pole (where it raises)."""
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


# Bernoulli numbers B2, B4 ... B20, for the asymptotic series at z >= 10 + n
BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
             43867 / 798, -174611 / 330)


def _polygamma_host(z, n):
    """The ``n``-th derivative of digamma: shifted up by the recurrence ``psi^(n)(x) =
    psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)`` until ``x >= 10 + n``, then the asymptotic
    series. Digamma of a negative ``x`` reflects first, ``psi(1 - x) - pi / tan(pi x)``.
    At a pole (an integer <= 0): NaN, or +inf for odd ``n``, as JAX gives."""
    out = np.full(z.shape, np.nan)
    pole = (z <= 0) & (z == np.floor(z))
    ok = np.isfinite(z) & ~pole
    x, extra = z[ok], 0.0
    if n == 0:
        reflect = x < 0
        extra = np.where(reflect, -math.pi / np.tan(math.pi * np.where(reflect, x, 0.5)), 0.0)
        x = np.where(reflect, 1 - x, x)
    sign, fact = (-1) ** (n + 1), math.factorial(n)
    acc = np.zeros_like(x)
    while x.size and x.min() < 10 + n:
        low = x < 10 + n
        step = -1 / x if n == 0 else sign * fact / x ** (n + 1)
        acc += np.where(low, step, 0.0)
        x = np.where(low, x + 1, x)
    if n == 0:
        series = np.log(x) - 1 / (2 * x) - sum(b / (2 * k * x ** (2 * k)) for k, b in enumerate(BERNOULLI, 1))
    else:
        series = sign * (math.factorial(n - 1) / x ** n + fact / (2 * x ** (n + 1)) + sum(
            b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
            for k, b in enumerate(BERNOULLI, 1)))
    out[ok] = series + acc + extra
    out[z == math.inf] = math.inf if n == 0 else 0.0
    if n % 2:
        out[pole] = math.inf
    return out


LGAMMA = Primitive("lgamma", lambda xp, x: _host_float(xp, x, _each(_lgamma)), elementwise=True)
POLYGAMMA = Primitive("polygamma", lambda xp, x, n=0: _host_float(xp, x, lambda z: _polygamma_host(z, n)),
                      elementwise=True)
defvjp(LGAMMA, lambda g, ans, x: g * apply(POLYGAMMA, x, n=0), labels=("digamma(x)",))
defvjp(POLYGAMMA, lambda g, ans, x, n=0: g * apply(POLYGAMMA, x, n=n + 1), labels=("polygamma(n + 1, x)",))


def gammaln(x):
    """``log |Gamma(x)|`` (``lgamma``), ``inf`` at the poles; its derivative is ``digamma``."""
    return apply(LGAMMA, x)


def polygamma(n, x):
    """The ``n``-th derivative of ``digamma`` (``n = 0``: digamma itself), to any order."""
    if isinstance(n, bool) or int(n) != n or n < 0:
        raise GradientValueError(f"polygamma(n={n!r}): n must be a non-negative integer")
    return apply(POLYGAMMA, x, n=int(n))


def digamma(x):
    """``d/dx log Gamma(x)``: ``polygamma(0, x)``."""
    return polygamma(0, x)


# -- NumPy's elementwise functions the op catalogue lacks ---------------------------------
def _heaviside(xp, x1, x2):
    if xp is np:
        return np.heaviside(x1, x2)
    return xp.where(x1 < 0, 0, xp.where(x1 > 0, 1, xp.where(x1 == 0, x2, x1)))  # NaN stays NaN


def _copysign(xp, x1, x2):
    return np.copysign(x1, x2) if xp is np else xp.copysign(x1, x2)


def _fpick(larger):
    """fmax (fmin): ``x1`` where it is the larger (smaller) or ``x2`` is NaN, else ``x2``."""
    def pick(xp, x1, x2):
        if xp is np:
            return (np.fmax if larger else np.fmin)(x1, x2)
        return xp.where(((x1 >= x2) if larger else (x1 <= x2)) | xp.isnan(x2), x1, x2)
    return pick


def _fix(xp, x):
    return np.fix(x) if xp is np else xp.trunc(x) if kind(x.dtype) in "fc" else x


HEAVISIDE = Primitive("heaviside", _heaviside, elementwise=True)
COPYSIGN = Primitive("copysign", _copysign, elementwise=True)
FMAX = Primitive("fmax", _fpick(True), elementwise=True)
FMIN = Primitive("fmin", _fpick(False), elementwise=True)
FIX = Primitive("fix", _fix, elementwise=True)
# piecewise constant in x1; the value is x2 where x1 is 0, so x2's derivative is 1 there
defvjp(HEAVISIDE, lambda g, ans, x1, x2: ops.zeros_like(g), lambda g, ans, x1, x2: ops.where(x1 == 0, g, 0),
       labels=("0", "[x1 == 0]"))
# |x1| sign(x2): |x1|'s derivative (sign(x1), 0 at 0, as abs's) times x2's sign bit's sign
defvjp(COPYSIGN, lambda g, ans, x1, x2: ops.where(ops.signbit(x2), -g, g) * ops.sign(x1),
       lambda g, ans, x1, x2: ops.zeros_like(g), labels=("sign(x1) copysign(1, x2)", "0"))


def _first_of(test):
    """fmax's (fmin's) choice: x1 where ``test`` holds (a tie: x1, as ``maximum``'s rule) or
    x2 is NaN; so the gradient goes to the operand that is not NaN (x1 where both are)."""
    def chosen(x1, x2):
        return test(x1, x2) | ops.isnan(x2)
    return chosen


_FMAX_X1, _FMIN_X1 = _first_of(ops.greater_equal), _first_of(ops.less_equal)
defvjp(FMAX, lambda g, ans, x1, x2: ops.where(_FMAX_X1(x1, x2), g, 0),
       lambda g, ans, x1, x2: ops.where(_FMAX_X1(x1, x2), 0, g), labels=("[x1 >= x2 or x2 NaN]", "[else]"))
defvjp(FMIN, lambda g, ans, x1, x2: ops.where(_FMIN_X1(x1, x2), g, 0),
       lambda g, ans, x1, x2: ops.where(_FMIN_X1(x1, x2), 0, g), labels=("[x1 <= x2 or x2 NaN]", "[else]"))
defvjp(FIX, lambda g, ans, x: ops.zeros_like(g), labels=("0",))


def heaviside(x1, x2):
    """``np.heaviside``: 0 below 0, 1 above, ``x2`` at 0; derivative 0 in ``x1`` (piecewise
    constant: 0 at the jump too), and in ``x2`` 1 where ``x1`` is 0 (the value is ``x2`` there)."""
    return apply(HEAVISIDE, x1, x2)


def copysign(x1, x2):
    """``np.copysign``: ``|x1|`` with ``x2``'s sign bit; derivative ``sign(x1)`` times that
    sign in ``x1`` (0 at ``x1 = 0``, as ``abs``'s), 0 in ``x2``."""
    return apply(COPYSIGN, x1, x2)


def fmax(x1, x2):
    """``np.fmax``: the larger, NaN ignored (NaN only where both are); the gradient goes to
    the operand chosen: at a tie to ``x1``, as ``np.maximum``'s rule here (TensorFlow's)."""
    return apply(FMAX, x1, x2)


def fmin(x1, x2):
    """``np.fmin``: the smaller, NaN ignored; the gradient as ``fmax``'s (a tie: ``x1``)."""
    return apply(FMIN, x1, x2)


def fix(x, out=None):
    """``np.fix``: rounded toward 0, NumPy's dtype (integers stay integers); derivative 0."""
    ops.unsupported("np.fix", out=out)
    return apply(FIX, x)


def _float64(x):
    """``x`` cast up to float64 as ``np.float_power`` computes it (a number stays a number)."""
    if isinstance(x, (bool, int, float)):
        return float(x)
    dtype = getattr(raw(x), "dtype", None)
    if dtype is None:
        return ops.astype(np.asarray(x), np.float64)
    return x if numpy_dtype(dtype) == np.float64 else ops.astype(x, np.float64)


def float_power(x1, x2, out=None, dtype=None, **kwargs):
    """``np.float_power``: ``x1 ** x2`` computed in float64 (so always a float64 result),
    composed as a cast and ``power``, so every derivative is ``power``'s."""
    ops.unsupported("np.float_power", out=out, **kwargs)
    if any(kind(getattr(raw(v), "dtype", np.dtype(float))) == "c" for v in (x1, x2)):
        raise NoGradientError("np.float_power of complex values has no gradient in gradmagic: "
                              "it differentiates real values only")
    y = ops.power(_float64(x1), _float64(x2))
    return y if dtype is None else ops.astype(y, dtype)


FUNCTIONS = {np.sinc: sinc}
UFUNCS = {np.heaviside: HEAVISIDE, np.copysign: COPYSIGN, np.fmax: FMAX, np.fmin: FMIN}  # ufunc -> Primitive
UFUNC_FUNCTIONS = {np.float_power: float_power}  # ufunc -> its form here, keyword arguments and all
