"""``np.linalg.det`` on Tensors, with a gradient everywhere. ``det(a) * inv(a).T`` is the
gradient where ``a`` is invertible; where it is singular ``inv`` has none, and the gradient
is its continuous extension, the transposed adjugate (JAX's answer). Through the singular
value decomposition ``a = U S Vh``, ``adj(a).T = det(U) det(Vh) U diag(p) Vh``, with
``p_i`` the product of the singular values other than ``s_i``."""

import numpy as np

from ..errors import GradientValueError
from .linalg import T, check_square, inv
from .ops import expand_dims
from .primitive import Primitive, apply, defvjp

DET = Primitive("det", lambda xp, a: xp.linalg.det(a))


def _adjugate_t(xp, a):
    u, s, vh = xp.linalg.svd(a)
    n = s.shape[-1]
    others = xp.prod(xp.where(xp.eye(n, dtype=bool), 1, s[..., None, :]), axis=-1)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    return sign[..., None, None] * xp.matmul(u * others[..., None, :], vh)


def _no_second_order(g, ans, a):
    raise GradientValueError("the second derivative of det at a singular matrix is not supported: "
                             "its first derivative there is the adjugate, which gradmagic computes "
                             "by an SVD, whose derivative it does not take")


ADJUGATE_T = Primitive("adjugate_t", _adjugate_t)
defvjp(ADJUGATE_T, _no_second_order, labels=("(the second derivative of det at a singular matrix)",))


def det(a):
    check_square(a)
    return apply(DET, a)


def det_vjp(g, ans, a):
    try:
        return expand_dims(expand_dims(g * ans, -1), -1) * T(inv(a))
    except np.linalg.LinAlgError:  # singular: inv has no answer there, the adjugate has
        return expand_dims(expand_dims(g, -1), -1) * apply(ADJUGATE_T, a)


defvjp(DET, det_vjp, labels=("det * inv({0}).T (the adjugate where singular)",))
FUNCTIONS = {np.linalg.det: det}
