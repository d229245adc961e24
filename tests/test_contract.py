"""The contractions and diagonals of ``core/contract.py`` (tensordot, einsum, inner, vdot,
kron, cross, trace, diagonal, diag, diagflat, tril, triu): on Tensors each gives NumPy's
value, and its gradient of a randomly weighted output agrees with central finite
differences in float64, at first and second order; float32 stays float32; a few
gradients derived by hand; NumPy's own errors come through; every entry of
``contract.FUNCTIONS`` has a case here.
"""

import warnings

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import contract
from gradmagic.core.primitive import Composite

from _cases import assert_op, assert_same_on_module, module_marks, rng_for, tape_grads, uniform

# ---------------------------------------------------------------------------------------
# helpers (as in test_ops)
# ---------------------------------------------------------------------------------------


def draw(shapes, *key, domain=uniform(-2, 2)):
    rng = rng_for(*key)
    return [np.array(domain(rng, s), dtype=np.float64) for s in shapes]


A23 = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])  # a constant operand (a NumPy array)

# ---------------------------------------------------------------------------------------
# the cases: NumPy function, id, operand shapes, call
# ---------------------------------------------------------------------------------------

CASES = [
    # tensordot
    (np.dot, "dot-matrices", [(2, 3), (3, 4)], lambda a, b: np.dot(a, b)),
    (np.dot, "dot-scalar", [(), (2, 3)], lambda a, b: np.dot(a, b)),
    (np.dot, "dot-3d-2d", [(2, 2, 3), (3, 4)], lambda a, b: np.dot(a, b)),
    (np.dot, "dot-3d-3d", [(2, 3), (2, 3, 2)], lambda a, b: np.dot(a, b)),
    (np.dot, "dot-3d-vector", [(2, 2, 3), (3,)], lambda a, b: np.dot(a, b)),
    (np.dot, "dot-method", [(2, 2, 3), (3, 2)], lambda a, b: a.dot(b) if hasattr(a, "dot") else np.dot(a, b)),
    (np.tensordot, "tensordot-default-axes-2", [(2, 3, 4), (3, 4, 2)], lambda a, b: np.tensordot(a, b)),
    (np.tensordot, "tensordot-int-1", [(2, 3), (3, 4)], lambda a, b: np.tensordot(a, b, 1)),
    (np.tensordot, "tensordot-int-0-outer", [(2,), (2, 3)], lambda a, b: np.tensordot(a, b, 0)),
    (np.tensordot, "tensordot-axes-lists", [(3, 2, 4), (4, 2, 3)],
     lambda a, b: np.tensordot(a, b, axes=([0, 2], [2, 0]))),
    (np.tensordot, "tensordot-axes-int-pair", [(2, 3), (4, 3)], lambda a, b: np.tensordot(a, b, axes=(1, 1))),
    (np.tensordot, "tensordot-negative-axes", [(2, 3, 4), (4, 3)],
     lambda a, b: np.tensordot(a, b, axes=([-1, -2], [0, 1]))),
    (np.tensordot, "tensordot-empty-axes-lists", [(2,), (3,)], lambda a, b: np.tensordot(a, b, axes=([], []))),
    (np.tensordot, "tensordot-numpy-array-second", [(4, 2)], lambda a: np.tensordot(a, A23, 1)),
    (np.tensordot, "tensordot-numpy-array-first", [(3, 2)], lambda b: np.tensordot(A23, b, axes=1)),
    # einsum: the forms that worked before
    (np.einsum, "einsum-matmul", [(2, 3), (3, 4)], lambda a, b: np.einsum("ij,jk->ik", a, b)),
    (np.einsum, "einsum-implicit-matmul", [(2, 3), (3, 4)], lambda a, b: np.einsum("ij,jk", a, b)),
    (np.einsum, "einsum-implicit-transposed-output", [(3, 2), (4, 3)], lambda a, b: np.einsum("ji,kj", a, b)),
    (np.einsum, "einsum-inner-product", [(3,), (3,)], lambda a, b: np.einsum("i,i->", a, b)),
    (np.einsum, "einsum-outer-product", [(3,), (4,)], lambda a, b: np.einsum("i,j->ij", a, b)),
    (np.einsum, "einsum-batched", [(5, 2, 3), (5, 3, 4)], lambda a, b: np.einsum("bij,bjk->bik", a, b)),
    (np.einsum, "einsum-letter-only-first-has", [(2, 3), (4,)], lambda a, b: np.einsum("ij,k->ik", a, b)),
    (np.einsum, "einsum-letter-only-second-has", [(2, 3), (3, 4)], lambda a, b: np.einsum("ij,jk->i", a, b)),
    (np.einsum, "einsum-spaces", [(2, 3), (3,)], lambda a, b: np.einsum("ij, j -> i", a, b)),
    (np.einsum, "einsum-three-operands", [(2, 3), (3, 4), (4, 2)],
     lambda a, b, c: np.einsum("ij,jk,kl->il", a, b, c)),
    (np.einsum, "einsum-one-operand-transpose", [(2, 3)], lambda a: np.einsum("ij->ji", a)),
    (np.einsum, "einsum-one-operand-sum", [(2, 3)], lambda a: np.einsum("ij->", a)),
    (np.einsum, "einsum-one-operand-implicit", [(2, 3, 4)], lambda a: np.einsum("kij", a)),
    # einsum: more operands, ellipsis, repeated indices, broadcasting, the interleaved form
    (np.einsum, "einsum-four-operands", [(2, 3), (3, 2), (2, 4), (4,)],
     lambda a, b, c, d: np.einsum("ab,bc,cd,d->a", a, b, c, d)),
    (np.einsum, "einsum-three-operands-implicit", [(3,), (3, 2), (2,)], lambda a, b, c: np.einsum("i,ij,j", a, b, c)),
    (np.einsum, "einsum-ellipsis-batched-matmul", [(2, 2, 3), (3, 4)],
     lambda a, b: np.einsum("...ij,jk->...ik", a, b)),
    (np.einsum, "einsum-ellipsis-broadcast-implicit", [(2, 1, 2, 3), (4, 3, 2)],
     lambda a, b: np.einsum("...ij,...jk", a, b)),
    (np.einsum, "einsum-ellipsis-sum-last", [(2, 3, 4)], lambda a: np.einsum("...i->...", a)),
    (np.einsum, "einsum-ellipsis-leading-axis-moved", [(3, 2, 4)], lambda a: np.einsum("i...->...i", a)),
    (np.einsum, "einsum-ellipsis-middle", [(2, 3, 4, 5)], lambda a: np.einsum("i...j->ji...", a)),
    (np.einsum, "einsum-ellipsis-of-no-axes", [(3,)], lambda a: np.einsum("...i->", a)),
    (np.einsum, "einsum-ellipsis-implicit-one-operand", [(2, 3, 4)], lambda a: np.einsum("...ba", a)),
    (np.einsum, "einsum-diagonal", [(3, 3)], lambda a: np.einsum("ii->i", a)),
    (np.einsum, "einsum-trace", [(3, 3)], lambda a: np.einsum("ii->", a)),
    (np.einsum, "einsum-trace-implicit", [(3, 3)], lambda a: np.einsum("ii", a)),
    (np.einsum, "einsum-repeated-with-free-axis", [(3, 3, 2)], lambda a: np.einsum("iij->ji", a)),
    (np.einsum, "einsum-triple-diagonal", [(2, 2, 2)], lambda a: np.einsum("iii->i", a)),
    (np.einsum, "einsum-two-repeated-letters", [(2, 3, 2, 3)], lambda a: np.einsum("ijij->ij", a)),
    (np.einsum, "einsum-batched-diagonal-ellipsis", [(2, 3, 3)], lambda a: np.einsum("...ii->...i", a)),
    (np.einsum, "einsum-diagonal-times-vector", [(3, 3), (3,)], lambda a, b: np.einsum("ii,i->i", a, b)),
    (np.einsum, "einsum-bilinear-form-diagonal", [(3, 3), (3, 3)], lambda a, b: np.einsum("ij,jj->i", a, b)),
    (np.einsum, "einsum-size-1-broadcast", [(2, 3), (1, 4)], lambda a, b: np.einsum("ij,jk", a, b)),
    (np.einsum, "einsum-uppercase-implicit-order", [(2, 3), (3, 4)], lambda a, b: np.einsum("bA,Ac", a, b)),
    (np.einsum, "einsum-numpy-array-operand", [(3, 4)], lambda b: np.einsum("ij,jk->ik", A23, b)),
    (np.einsum, "einsum-interleaved", [(2, 3), (3, 4)], lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [2, 0])),
    (np.einsum, "einsum-interleaved-implicit", [(2, 3), (3,)], lambda a, b: np.einsum(a, [0, 1], b, [1])),
    (np.einsum, "einsum-interleaved-ellipsis", [(2, 2, 3), (3,)],
     lambda a, b: np.einsum(a, [Ellipsis, 1], b, [1], [Ellipsis])),
    (np.einsum, "einsum-optimize-keyword", [(2, 3), (3, 4), (4,)],
     lambda a, b, c: np.einsum("ij,jk,k->i", a, b, c, optimize=True)),
    (np.einsum, "einsum-optimize-greedy-with-diagonal", [(3, 3), (3, 2), (2,)],
     lambda a, b, c: np.einsum("ii,ij,j->i", a, b, c, optimize="greedy")),
    (np.einsum, "einsum-optimize-path", [(2, 3), (3, 4), (4,)],
     lambda a, b, c: np.einsum("ij,jk,k->i", a, b, c,
                               optimize=["einsum_path", (1, 2), (0, 1)])),
    # inner, vdot
    (np.inner, "inner-1d-1d", [(3,), (3,)], lambda a, b: np.inner(a, b)),
    (np.inner, "inner-2d-1d", [(2, 3), (3,)], lambda a, b: np.inner(a, b)),
    (np.inner, "inner-2d-3d", [(2, 3), (4, 2, 3)], lambda a, b: np.inner(a, b)),
    (np.inner, "inner-scalar-array", [(), (2, 3)], lambda a, b: np.inner(a, b)),
    (np.inner, "inner-numpy-array", [(4, 3)], lambda a: np.inner(A23, a)),
    (np.vdot, "vdot-1d", [(3,), (3,)], lambda a, b: np.vdot(a, b)),
    (np.vdot, "vdot-2d-flattened", [(2, 3), (3, 2)], lambda a, b: np.vdot(a, b)),
    # kron
    (np.kron, "kron-1d-1d", [(2,), (3,)], lambda a, b: np.kron(a, b)),
    (np.kron, "kron-2d-2d", [(2, 2), (2, 3)], lambda a, b: np.kron(a, b)),
    (np.kron, "kron-1d-2d-ndim-differ", [(2,), (2, 3)], lambda a, b: np.kron(a, b)),
    (np.kron, "kron-3d-2d", [(2, 1, 2), (3, 2)], lambda a, b: np.kron(a, b)),
    (np.kron, "kron-scalar-matrix", [(), (2, 3)], lambda a, b: np.kron(a, b)),
    # cross
    (np.cross, "cross-3", [(3,), (3,)], lambda a, b: np.cross(a, b)),
    (np.cross, "cross-batched-broadcast", [(4, 3), (3,)], lambda a, b: np.cross(a, b)),
    (np.cross, "cross-batched-both", [(2, 1, 3), (4, 3)], lambda a, b: np.cross(a, b)),
    (np.cross, "cross-axisa-axisb", [(3, 4), (4, 3)], lambda a, b: np.cross(a, b, axisa=0, axisb=-1)),
    (np.cross, "cross-axisc", [(4, 3), (4, 3)], lambda a, b: np.cross(a, b, axisc=0)),
    (np.cross, "cross-axis", [(3, 2), (3, 2)], lambda a, b: np.cross(a, b, axis=0)),
    (np.cross, "cross-numpy-array", [(2, 3)], lambda a: np.cross(a, np.array([1.0, -2.0, 0.5]))),
    (np.cross, "cross-2-2", [(4, 2), (2,)], lambda a, b: np.cross(a, b)),
    (np.cross, "cross-2-3", [(2,), (3,)], lambda a, b: np.cross(a, b)),
    (np.cross, "cross-3-2", [(4, 3), (4, 2)], lambda a, b: np.cross(a, b)),
    # trace, diagonal
    (np.trace, "trace", [(3, 3)], lambda a: np.trace(a)),
    (np.trace, "trace-offset-positive", [(3, 4)], lambda a: np.trace(a, 1)),
    (np.trace, "trace-offset-negative", [(4, 3)], lambda a: np.trace(a, offset=-2)),
    (np.trace, "trace-axis1-axis2", [(2, 3, 3)], lambda a: np.trace(a, axis1=1, axis2=2)),
    (np.trace, "trace-batched-default-axes", [(3, 3, 2)], lambda a: np.trace(a)),
    (np.trace, "trace-offset-past-the-end", [(2, 3)], lambda a: np.trace(a, 5) + np.sum(a)),
    (np.trace, "trace-of-a-product", [(3, 3)], lambda a: np.trace(a @ a)),
    (np.diagonal, "diagonal", [(3, 4)], lambda a: np.diagonal(a)),
    (np.diagonal, "diagonal-offset-positive", [(3, 4)], lambda a: np.diagonal(a, 2)),
    (np.diagonal, "diagonal-offset-negative", [(4, 3)], lambda a: np.diagonal(a, offset=-1)),
    (np.diagonal, "diagonal-axes-3d", [(3, 2, 4)], lambda a: np.diagonal(a, 1, axis1=0, axis2=2)),
    (np.diagonal, "diagonal-reversed-axes", [(3, 4)], lambda a: np.diagonal(a, 1, 1, 0)),
    (np.diagonal, "diagonal-negative-axes", [(2, 3, 3)], lambda a: np.diagonal(a, 0, -1, -2)),
    # diag, diagflat
    (np.diag, "diag-1d-to-matrix", [(3,)], lambda v: np.diag(v)),
    (np.diag, "diag-1d-k-positive", [(3,)], lambda v: np.diag(v, 2)),
    (np.diag, "diag-1d-k-negative", [(2,)], lambda v: np.diag(v, k=-1)),
    (np.diag, "diag-2d-to-diagonal", [(3, 3)], lambda a: np.diag(a)),
    (np.diag, "diag-2d-k-positive", [(3, 4)], lambda a: np.diag(a, 1)),
    (np.diag, "diag-2d-k-negative", [(4, 3)], lambda a: np.diag(a, k=-2)),
    (np.diagflat, "diagflat-2d", [(2, 2)], lambda v: np.diagflat(v)),
    (np.diagflat, "diagflat-k-negative", [(3,)], lambda v: np.diagflat(v, -1)),
    (np.diagflat, "diagflat-k-positive", [(1, 2)], lambda v: np.diagflat(v, k=2)),
    # tril, triu
    (np.tril, "tril", [(3, 4)], lambda m: np.tril(m)),
    (np.tril, "tril-k-positive", [(3, 3)], lambda m: np.tril(m, 1)),
    (np.tril, "tril-k-negative", [(4, 3)], lambda m: np.tril(m, k=-1)),
    (np.tril, "tril-batched", [(2, 3, 3)], lambda m: np.tril(m)),
    (np.tril, "tril-1d", [(3,)], lambda m: np.tril(m)),
    (np.triu, "triu", [(3, 4)], lambda m: np.triu(m)),
    (np.triu, "triu-k-positive", [(3, 3)], lambda m: np.triu(m, 1)),
    (np.triu, "triu-k-negative", [(4, 3)], lambda m: np.triu(m, k=-2)),
    (np.triu, "triu-batched", [(2, 3, 4)], lambda m: np.triu(m, 1)),
    (np.triu, "triu-1d", [(3,)], lambda m: np.triu(m)),
]

TWO_VECTOR = {"cross-2-2", "cross-2-3", "cross-3-2"}  # deprecated by NumPy 2.0: it warns


def _numpy_takes_2_vectors():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.ones(2), np.ones(2))
        except ValueError:  # refused by later NumPy versions
            return False
    return True


TAKES_2_VECTORS = _numpy_takes_2_vectors()


def _param(case, *marks):
    func, name, shapes, fn = case
    if name in TWO_VECTOR:
        marks += (pytest.mark.filterwarnings("ignore::DeprecationWarning"),
                  pytest.mark.skipif(not TAKES_2_VECTORS, reason="this NumPy refuses 2-vectors in cross"))
    return pytest.param(name, shapes, fn, id=name, marks=marks)


@pytest.mark.parametrize("name,shapes,fn", [_param(c) for c in CASES])
def test_matches_numpy_and_finite_differences(name, shapes, fn):
    arrays = draw(shapes, name)
    assert_op(fn, *arrays, key=(name,))


@pytest.mark.parametrize("name,shapes,fn", [_param(c) for c in CASES])
def test_second_order_matches_finite_differences(name, shapes, fn):
    # cubed, so that even a linear function (trace, diagonal ...) has a second derivative
    arrays = draw(shapes, "second", name)
    assert_op(lambda *xs: fn(*xs) ** 3, *arrays, key=("second", name), order=2)


def test_every_function_has_a_case():
    covered = {c[0] for c in CASES}
    assert set(contract.FUNCTIONS) <= covered
    assert covered <= set(contract.FUNCTIONS)


def test_numpy_dispatch_reaches_every_function():
    from gradmagic.core import dispatch
    for func, impl in contract.FUNCTIONS.items():
        assert dispatch.FUNCTIONS[func] is impl


# ---------------------------------------------------------------------------------------
# float32 stays float32
# ---------------------------------------------------------------------------------------

FLOAT32 = [
    ("tensordot", [(2, 3), (3, 4)], lambda a, b: np.tensordot(a, b, 1)),
    ("einsum-trace", [(3, 3)], lambda a: np.einsum("ii", a)),
    ("einsum-ellipsis", [(2, 2, 3), (3,)], lambda a, b: np.einsum("...j,j->...", a, b)),
    ("diag-1d", [(3,)], lambda v: np.diag(v, 1)),
    ("diagonal", [(3, 3)], lambda a: np.diagonal(a)),
    ("tril", [(3, 3)], lambda m: np.tril(m)),
    ("kron", [(2,), (2, 2)], lambda a, b: np.kron(a, b)),
    ("cross", [(2, 3), (3,)], lambda a, b: np.cross(a, b)),
]


@pytest.mark.parametrize("name,shapes,fn", [pytest.param(*c, id=c[0]) for c in FLOAT32])
def test_float32_stays_float32(name, shapes, fn):
    arrays32 = [a.astype(np.float32) for a in draw(shapes, "float32", name)]
    xs = [gm.constant(a) for a in arrays32]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.numpy(), fn(*[a.astype(np.float64) for a in arrays32]),
                               rtol=1e-5, atol=1e-5)
    for g in tape.gradient(y, xs):
        assert g.dtype == np.float32


# ---------------------------------------------------------------------------------------
# gradients derived by hand
# ---------------------------------------------------------------------------------------

HAND = [
    # d trace(A) / dA = I
    ("trace-is-identity", np.trace, [np.zeros((3, 3))], [np.eye(3)], None),
    # d trace(A, 1) / dA: ones on the first superdiagonal
    ("trace-offset", lambda a: np.trace(a, 1), [np.zeros((2, 3))], [[[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]], None),
    ("einsum-trace", lambda a: np.einsum("ii", a), [np.zeros((2, 2))], [np.eye(2)], None),
    # the diagonal's upstream gradient lands on the diagonal
    ("einsum-diagonal", lambda a: np.einsum("ii->i", a), [np.zeros((2, 2))], [[[5.0, 0.0], [0.0, 7.0]]],
     [5.0, 7.0]),
    ("diagonal-offset-negative", lambda a: np.diagonal(a, -1), [np.zeros((3, 2))],
     [[[0.0, 0.0], [5.0, 0.0], [0.0, 7.0]]], [5.0, 7.0]),
    # diag(v, 1) picks v back from the superdiagonal of the upstream gradient
    ("diag-vector-to-matrix", lambda v: np.diag(v, 1), [[0.0, 0.0]], [[2.0, 6.0]],
     [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
    # tensordot of vectors over one axis is a dot product: grad a = b, grad b = a
    ("tensordot-vectors", lambda a, b: np.tensordot(a, b, 1), [[1.0, 2.0], [3.0, 4.0]],
     [[3.0, 4.0], [1.0, 2.0]], None),
    # sum(kron(a, b)) = sum(a) sum(b)
    ("kron-sum", lambda a, b: np.sum(np.kron(a, b)), [[1.0, 2.0], [3.0, 4.0, 5.0]],
     [[12.0, 12.0], [3.0, 3.0, 3.0]], None),
    # (a x b) . w = a . (b x w) = b . (w x a): with a = e1, b = e2, w = (1, 2, 3),
    # grad a = b x w = (3, 0, -1), grad b = w x a = (0, 3, -2)
    ("cross-triple-product", lambda a, b: np.cross(a, b), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
     [[3.0, 0.0, -1.0], [0.0, 3.0, -2.0]], [1.0, 2.0, 3.0]),
    # vdot(a, b) = sum a_ij b_ij (flattened)
    ("vdot", np.vdot, [[[1.0, 2.0], [3.0, 4.0]], [5.0, 6.0, 7.0, 8.0]],
     [[[5.0, 6.0], [7.0, 8.0]], [1.0, 2.0, 3.0, 4.0]], None),
    ("tril-mask", lambda m: np.tril(m, -1), [np.zeros((3, 3))],
     [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]], None),
    ("triu-mask", lambda m: np.triu(m, 1), [np.zeros((2, 3))], [[[0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]], None),
]


@pytest.mark.parametrize("fn,inputs,expected,og", [pytest.param(*c[1:], id=c[0]) for c in HAND])
def test_hand_derived_gradient(fn, inputs, expected, og):
    grads = tape_grads(fn, inputs, og)
    assert len(grads) == len(expected)
    for g, e in zip(grads, expected):
        assert g is not None
        assert g.dtype == np.float64
        assert g.shape == np.shape(e)
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-12, atol=1e-12)


def test_second_derivative_of_a_quadratic_form_by_hand():
    # f(x) = einsum("i,ij,j", x, A, x): grad = (A + A^T) x, Hessian-vector product (A + A^T) v
    a = np.array([[1.0, 2.0], [0.0, 3.0]])
    x = gm.constant(np.array([1.0, -1.0]))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = np.einsum("i,ij,j", x, a, x)
        g = inner.gradient(y, x)
        gv = np.sum(g * np.array([1.0, 0.0]))
    np.testing.assert_allclose(g.numpy(), [(1 + 1) * 1 + (2 + 0) * -1, (0 + 2) * 1 + (3 + 3) * -1])
    np.testing.assert_allclose(outer.gradient(gv, x).numpy(), [2.0, 2.0])


# ---------------------------------------------------------------------------------------
# warnings and errors
# ---------------------------------------------------------------------------------------

@pytest.mark.skipif(not TAKES_2_VECTORS, reason="this NumPy refuses 2-vectors in cross")
def test_cross_of_2_vectors_warns_as_numpy_does():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        y = np.cross(gm.constant(a), gm.constant(b))
    assert float(y) == 1.0 * 4.0 - 2.0 * 3.0


@pytest.mark.skipif(TAKES_2_VECTORS, reason="this NumPy still takes 2-vectors in cross")
def test_cross_of_2_vectors_is_refused_as_numpy_refuses_it():
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with pytest.raises(ValueError) as numpy_error:
        np.cross(a, b)
    with pytest.raises(ValueError) as ours:
        np.cross(gm.constant(a), gm.constant(b))
    assert str(ours.value) == str(numpy_error.value)


def test_cross_of_3_vectors_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.cross(gm.constant(np.ones(3)), gm.constant(np.arange(3.0)))


NUMPY_ERRORS = [
    ("tensordot-shape-mismatch", lambda a, b: np.tensordot(a, b, 1), [(2, 3), (4, 3)]),
    ("tensordot-axis-out-of-range", lambda a, b: np.tensordot(a, b, ([2], [0])), [(2, 3), (3, 2)]),
    ("inner-shape-mismatch", np.inner, [(2, 3), (2,)]),
    ("vdot-size-mismatch", np.vdot, [(2, 3), (5,)]),
    ("einsum-wrong-operand-count", lambda a, b: np.einsum("ij->i", a, b), [(2, 3), (3,)]),
    ("einsum-size-mismatch", lambda a, b: np.einsum("ij,jk", a, b), [(2, 3), (2, 4)]),
    ("einsum-repeated-index-sizes-differ", lambda a: np.einsum("ii->i", a), [(2, 3)]),
    ("einsum-output-letter-not-in-inputs", lambda a: np.einsum("ij->k", a), [(2, 3)]),
    ("einsum-ellipsis-missing-in-output", lambda a: np.einsum("...i->i", a), [(2, 3)]),
    ("einsum-too-many-letters", lambda a: np.einsum("ijk->i", a), [(2, 3)]),
    ("cross-length-4", np.cross, [(4,), (4,)]),
    ("cross-axisa-out-of-range", lambda a, b: np.cross(a, b, axisa=2), [(3,), (3,)]),
    ("diagonal-same-axes", lambda a: np.diagonal(a, 0, 1, 1), [(3, 3)]),
    ("diagonal-1d", np.diagonal, [(3,)]),
    ("diagonal-axis-out-of-range", lambda a: np.diagonal(a, 0, 0, 5), [(3, 3)]),
    ("diag-3d", np.diag, [(2, 2, 2)]),
    ("trace-1d", np.trace, [(3,)]),
]


@pytest.mark.parametrize("name,fn,shapes", [pytest.param(*c, id=c[0]) for c in NUMPY_ERRORS])
def test_numpy_errors_come_through_unchanged(name, fn, shapes):
    arrays = draw(shapes, "error", name)
    with pytest.raises(Exception) as numpy_error:
        fn(*arrays)
    with pytest.raises(type(numpy_error.value)) as ours:
        fn(*[gm.constant(a) for a in arrays])
    assert type(ours.value) is type(numpy_error.value)
    assert str(ours.value) == str(numpy_error.value)


UNSUPPORTED = [
    ("trace-out", lambda t: np.trace(t, out=np.empty(()))),
    ("trace-dtype", lambda t: np.trace(t, dtype=np.float32)),
    ("einsum-out", lambda t: np.einsum("ij->i", t, out=np.empty(2))),
    ("einsum-dtype", lambda t: np.einsum("ij->i", t, dtype=np.float32)),
    ("vdot-complex", lambda t: np.vdot(t, np.ones((2, 2), dtype=complex))),
]


@pytest.mark.parametrize("fn", [pytest.param(f, id=i) for i, f in UNSUPPORTED])
def test_unsupported_argument_raises_no_gradient_error(fn):
    with pytest.raises(gm.NoGradientError):
        fn(gm.constant(np.array([[2.0, 1.0], [1.0, 3.0]])))


def test_einsum_is_one_primitive_and_the_others_need_no_new_rule():
    # tensordot is transpose + reshape + matmul: with ops=True the trace shows those
    # existing primitives under a tensordot row that is a group of them, not a rule
    a, b = gm.constant(np.ones((2, 3))), gm.constant(np.ones((3, 4)))
    with gm.trace(ops=True) as tr:
        with gm.GradientTape() as tape:
            tape.watch([a, b])
            np.tensordot(a, b, 1)
            np.einsum("ij,jk", a, b)
    rows = {r.node: r for r in tr.forward}
    assert rows["einsum"].context == "" and rows["matmul"].context == "tensordot"
    assert isinstance(rows["tensordot"].source, Composite)
    assert not hasattr(contract, "TENSORDOT")


# ---------------------------------------------------------------------------------------
# portability: the same derivatives on an array-API module (standing for a device
# array) and, where a GPU is usable, on CuPy
# ---------------------------------------------------------------------------------------

PORTABLE = [(m, c) for m in ("array_api_strict", "cupy") for c in CASES
            if "numpy-array" not in c[1]  # a host constant meets a device Tensor: refused
            and not (m == "array_api_strict" and c[0] is np.einsum)]  # it has no einsum


@pytest.mark.parametrize("module,name,shapes,fn", [
    pytest.param(m, *_param(c).values, id=f"{m}-{c[1]}", marks=_param(c).marks + tuple(module_marks(m)))
    for m, c in PORTABLE])
def test_runs_on_another_array_module_to_second_order(module, name, shapes, fn):
    assert_same_on_module(module, fn, draw(shapes, "portable", name), (name,))
