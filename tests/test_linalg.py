"""``np.linalg`` on Tensors: each function's value equals NumPy's, and its gradient (of a
random weighting of the output) agrees with central finite differences in float64, at
first and second order, batched too; hand-derived gradients; float32 stays float32;
singular matrices raise NumPy's LinAlgError; every entry of ``linalg.FUNCTIONS`` has a case.

Inputs are seeded and well-conditioned: ``R @ R.T + n I`` (SPD), ``R + n I`` (general),
plain normals for rectangular ones. Factorizations with a sign gauge (eigh, svd, qr) are
weighted only through sign-invariant quantities.
"""

import functools

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import linalg, triangular
from gradmagic.errors import GradientValueError, NoGradientError

from _cases import assert_same_on_module, module_marks, rng_for, sid

LA = np.linalg
INF = np.inf


# -- inputs ------------------------------------------------------------------------------
def general(*shape):
    def make(rng):
        n = shape[-1]
        return rng.standard_normal(shape) + n * np.eye(n)
    make.shape = shape
    return make


def spd(*shape):
    def make(rng):
        r = rng.standard_normal(shape)
        return r @ np.swapaxes(r, -1, -2) + shape[-1] * np.eye(shape[-1])
    make.shape = shape
    return make


def normal(*shape):
    def make(rng):
        return rng.standard_normal(shape)
    make.shape = shape
    return make


def spread(*shape):
    """Entries of distinct magnitudes (0.3 apart), either sign: no ties in max/min of |x|."""
    def make(rng):
        n = int(np.prod(shape))
        return ((rng.permutation(n) + 1) * 0.3 * rng.choice([-1.0, 1.0], n)).reshape(shape)
    make.shape = shape
    return make


def T(x):
    return np.swapaxes(x, -1, -2)


# sign-invariant views of the factorizations
def eigh_view(uplo="L"):
    def f(a):
        w, v = LA.eigh(a, UPLO=uplo)
        return (v * w[..., None, :] ** 2) @ T(v) + v[..., :, :1] * v[..., None, :, 0] + np.sum(w ** 3, -1)[..., None, None]
    return f


def svd_view(part):
    def f(a):
        u, s, vh = LA.svd(a, full_matrices=False)
        if part == "usv":
            return (u * s[..., None, :] ** 2) @ vh + np.sum(s ** 3, -1)[..., None, None]
        if part == "uu":
            return u[..., :, :1] * u[..., None, :, 0] + u @ T(u)
        return T(vh)[..., :, :1] * vh[..., None, 0, :] + T(vh) @ vh
    return f


def qr_view(a):
    q, r = LA.qr(a)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return np.concatenate([q * signs[..., None, :], T(r) @ r], axis=-2)


FIXED = general(3, 3)(rng_for("fixed"))  # a NumPy array among Tensors

# id, the NumPy function it covers, f (arrays or Tensors in, one array out), inputs
CASES = [
    ("inv", LA.inv, LA.inv, [general(3, 3)]),
    ("inv-batched", LA.inv, LA.inv, [general(2, 3, 3)]),
    ("det", LA.det, LA.det, [general(3, 3)]),
    ("det-batched", LA.det, LA.det, [general(2, 3, 3)]),
    ("slogdet-logabsdet", LA.slogdet, lambda a: LA.slogdet(a).logabsdet, [general(3, 3)]),
    ("slogdet-negative-det", LA.slogdet, lambda a: LA.slogdet(-a)[1], [general(3, 3)]),
    ("slogdet-batched", LA.slogdet, lambda a: LA.slogdet(a)[1], [general(2, 4, 4)]),
    ("solve-vector", LA.solve, LA.solve, [general(3, 3), normal(3)]),
    ("solve-matrix", LA.solve, LA.solve, [general(3, 3), normal(3, 2)]),
    ("solve-batched-a-vector-b", LA.solve, LA.solve, [general(2, 3, 3), normal(3)]),
    ("solve-batched", LA.solve, LA.solve, [general(2, 3, 3), normal(2, 3, 2)]),
    ("solve-broadcast-a", LA.solve, LA.solve, [general(3, 3), normal(2, 3, 2)]),
    ("solve-broadcast-b", LA.solve, LA.solve, [general(2, 3, 3), normal(3, 2)]),
    ("solve-square-b-is-matrix", LA.solve, LA.solve, [general(2, 2), normal(2, 2)]),
    ("solve-numpy-a-tensor-b", LA.solve, lambda b: LA.solve(FIXED, b), [normal(2, 3, 2)]),
    ("cholesky", LA.cholesky, LA.cholesky, [spd(3, 3)]),
    ("cholesky-batched", LA.cholesky, LA.cholesky, [spd(2, 3, 3)]),
    ("cholesky-upper", LA.cholesky, lambda a: LA.cholesky(a, upper=True), [spd(2, 3, 3)]),
    *[(f"matrix_power-n={n}", LA.matrix_power, (lambda n: lambda a: LA.matrix_power(a, n))(n),
       [general(3, 3)]) for n in (1, 2, 3, 5, -1, -2)],
    ("matrix_power-batched-n=3", LA.matrix_power, lambda a: LA.matrix_power(a, 3), [general(2, 3, 3)]),
    ("multi_dot-matrices", LA.multi_dot, lambda a, b, c: LA.multi_dot([a, b, c]),
     [normal(2, 3), normal(3, 4), normal(4, 2)]),
    ("multi_dot-vector-ends", LA.multi_dot, lambda a, b, c, d: LA.multi_dot([a, b, c, d]),
     [normal(3), normal(3, 4), normal(4, 2), normal(2)]),
    ("multi_dot-numpy-middle", LA.multi_dot, lambda a, c: LA.multi_dot([a, FIXED, c]),
     [normal(2, 3), normal(3)]),
    ("multi_dot-two", LA.multi_dot, lambda a, b: LA.multi_dot((a, b)), [normal(2, 3), normal(3)]),
    # norm: vectors
    *[(f"norm-vector-ord={o}", LA.norm, (lambda o: lambda x: LA.norm(x, ord=o))(o), [spread(5)])
      for o in (None, 1, 2, INF, -INF, 3, 0.5, -1.5)],
    ("norm-vector-ord=0-no-gradient", LA.norm, lambda x: LA.norm(x, 0), [spread(5)]),
    ("norm-vector-axis=1", LA.norm, lambda x: LA.norm(x, axis=1), [spread(2, 3)]),
    ("norm-vector-axis=-2-keepdims", LA.norm, lambda x: LA.norm(x, 3, axis=-2, keepdims=True), [spread(2, 3)]),
    ("norm-vector-inf-axis=0", LA.norm, lambda x: LA.norm(x, INF, axis=0), [spread(3, 2)]),
    ("norm-all-elements-3d", LA.norm, LA.norm, [normal(2, 3, 2)]),
    ("norm-all-elements-keepdims", LA.norm, lambda x: LA.norm(x, keepdims=True), [normal(2, 3)]),
    # norm: matrices
    *[(f"norm-matrix-ord={o}", LA.norm, (lambda o: lambda x: LA.norm(x, ord=o))(o), [normal(3, 4)])
      for o in ("fro", "nuc", 1, -1, INF, -INF, 2, -2)],
    *[(f"norm-matrix-ord={o}-axis=(2,0)", LA.norm, (lambda o: lambda x: LA.norm(x, o, axis=(2, 0)))(o),
       [normal(3, 2, 4)]) for o in ("fro", "nuc", 1, -1, INF, -INF, 2, -2)],
    ("norm-matrix-axis=(0,2)-keepdims", LA.norm, lambda x: LA.norm(x, 1, axis=(0, 2), keepdims=True),
     [normal(3, 2, 4)]),
    ("norm-matrix-nuc-keepdims", LA.norm, lambda x: LA.norm(x, "nuc", (-2, -1), True), [normal(2, 3, 3)]),
    # eigh, eigvalsh, svd, qr, pinv
    ("eigh", LA.eigh, eigh_view(), [spd(3, 3)]),
    ("eigh-batched", LA.eigh, eigh_view(), [spd(2, 3, 3)]),
    ("eigh-UPLO=U", LA.eigh, eigh_view("U"), [spd(2, 3, 3)]),
    ("eigvalsh", LA.eigvalsh, LA.eigvalsh, [spd(3, 3)]),
    ("eigvalsh-batched-UPLO=U", LA.eigvalsh, lambda a: LA.eigvalsh(a, UPLO="U"), [spd(2, 3, 3)]),
    *[(f"svd-{part}-{sid(s)}", LA.svd, svd_view(part), [normal(*s)])
      for part in ("usv", "uu", "vv") for s in ((3, 3), (2, 3, 3), (4, 3), (2, 3, 4))],
    ("svd-compute_uv=False", LA.svd, lambda a: LA.svd(a, compute_uv=False), [normal(2, 3, 4)]),
    ("svd-compute_uv=False-tall", LA.svd, lambda a: LA.svd(a, compute_uv=False), [normal(4, 2)]),
    ("svdvals", LA.svdvals, LA.svdvals, [normal(3, 3)]),
    ("svdvals-batched-wide", LA.svdvals, LA.svdvals, [normal(2, 2, 3)]),
    ("qr-square", LA.qr, qr_view, [normal(3, 3)]),
    ("qr-tall-batched", LA.qr, qr_view, [normal(2, 4, 3)]),
    ("qr-mode=r", LA.qr, lambda a: T(LA.qr(a, mode="r")) @ LA.qr(a, mode="r"), [normal(4, 3)]),
    ("pinv-square", LA.pinv, LA.pinv, [normal(3, 3)]),
    ("pinv-tall", LA.pinv, LA.pinv, [normal(4, 3)]),
    ("pinv-wide-batched", LA.pinv, LA.pinv, [normal(2, 3, 4)]),
    ("pinv-rcond", LA.pinv, lambda a: LA.pinv(a, rcond=1e-10), [normal(3, 2)]),
    ("pinv-identity", LA.pinv, LA.pinv, [lambda rng: np.eye(3)]),  # repeated singular values
]
IDS = [c[0] for c in CASES]


def inputs(case):
    name, _, _, makers = case
    rng = rng_for("linalg", name)
    return [m(rng) for m in makers]


# -- values and gradients ------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_value_is_numpys(case):
    f, arrays = case[2], inputs(case)
    expected = f(*arrays)
    got = f(*[gm.constant(a) for a in arrays])
    assert isinstance(got, gm.Tensor)
    assert got.shape == np.shape(expected) and got.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradient_agrees_with_finite_differences(case, order):
    f, arrays = case[2], inputs(case)
    weights = rng_for("weights", case[0]).standard_normal(np.shape(f(*arrays)))

    def weighted(*xs):
        return np.sum(f(*xs) * weights)

    report = gm.check_grad(weighted, *arrays, order=order)
    assert report, str(report)


# a NumPy array among the Tensors is refused on another module (a host array meeting a
# device Tensor), so those cases run on NumPy only
PORTABLE = [pytest.param(m, c, id=f"{m}-{c[0]}", marks=module_marks(m)) for m in ("array_api_strict", "cupy") for c in CASES
            if "numpy" not in c[0]]


@pytest.mark.parametrize("module, case", PORTABLE)
def test_runs_on_another_array_module_to_second_order(module, case):
    assert_same_on_module(module, case[2], inputs(case), ("linalg", case[0]))


def test_every_function_has_a_case():
    covered = {c[1] for c in CASES}
    missing = [f.__name__ for f in linalg.FUNCTIONS if f not in covered]
    assert missing == []


# -- results: NumPy's named tuples, the same factors --------------------------------------
@pytest.mark.parametrize("fn, kwargs, make", [
    (LA.slogdet, {}, general(2, 3, 3)), (LA.eigh, {}, spd(2, 3, 3)), (LA.eigh, {"UPLO": "U"}, spd(3, 3)),
    (LA.svd, {"full_matrices": False}, normal(2, 4, 3)), (LA.svd, {}, normal(3, 3)),
    (LA.qr, {}, normal(2, 4, 3)), (LA.qr, {"mode": "complete"}, normal(3, 3)),
], ids=["slogdet", "eigh", "eigh-UPLO=U", "svd-reduced", "svd-square-full", "qr", "qr-complete-square"])
def test_factorizations_return_numpys_result_type(fn, kwargs, make):
    a = make(rng_for("result", fn.__name__))
    expected = fn(a, **kwargs)
    got = fn(gm.constant(a), **kwargs)
    assert type(got) is type(expected)
    assert got._fields == expected._fields
    for g, e in zip(got, expected):
        assert isinstance(g, gm.Tensor)
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-12, atol=1e-12)


def test_slogdet_sign_has_a_zero_gradient_and_is_numpys():
    # piecewise constant: 0, as TensorFlow gives it (the tape follows the sign; not None)
    a = -general(3, 3)(rng_for("sign"))
    x = gm.constant(a)
    with gm.GradientTape() as tape:
        tape.watch(x)
        sign, _ = LA.slogdet(x)
    assert float(sign) == LA.slogdet(a).sign
    g = tape.gradient(sign, x)
    assert g.shape == (3, 3) and not g.numpy().any()


# -- hand-derived gradients --------------------------------------------------------------------
def grad_of(f, a):
    return gm.grad(f)(a)


def test_det_gradient_is_det_times_inverse_transpose():
    a = general(3, 3)(rng_for("hand", "det"))
    np.testing.assert_allclose(grad_of(LA.det, a), LA.det(a) * LA.inv(a).T, rtol=1e-12)


def test_logabsdet_gradient_is_inverse_transpose():
    a = -general(3, 3)(rng_for("hand", "slogdet"))
    np.testing.assert_allclose(grad_of(lambda x: LA.slogdet(x)[1], a), LA.inv(a).T, rtol=1e-12)


def test_trace_of_inverse_gradient():
    a = general(3, 3)(rng_for("hand", "inv"))
    ai = LA.inv(a)
    got = grad_of(lambda x: np.sum(LA.inv(x) * np.eye(3)), a)
    np.testing.assert_allclose(got, -(ai @ ai).T, rtol=1e-12)


def test_norm_gradient_is_x_over_norm():
    x = np.array([3.0, -4.0])
    np.testing.assert_allclose(grad_of(LA.norm, x), x / 5.0, rtol=1e-15)


def test_cholesky_gradient_lies_on_the_triangle_numpy_reads():
    a = spd(3, 3)(rng_for("hand", "cholesky"))
    lower = grad_of(lambda x: np.sum(LA.cholesky(x) ** 2), a)
    upper = grad_of(lambda x: np.sum(LA.cholesky(x, upper=True) ** 2), a)
    assert np.all(np.triu(lower, 1) == 0) and np.all(np.tril(upper, -1) == 0)
    # sum(L**2) = trace(A): its gradient on the triangle read is the identity
    np.testing.assert_allclose(lower, np.eye(3), atol=1e-12)


@pytest.mark.parametrize("n", [65, 100, 200])
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize("rhs", [(), (3,), (20,)], ids=["vector", "matrix", "wide"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_triangular_solve_by_halves_is_numpys_solve(n, lower, rhs, dtype):
    L = np.linalg.cholesky(spd(n, n)(rng_for("tri", n, lower))).astype(dtype)
    a = L if lower else L.T
    b = rng_for("tri-b", n).standard_normal((n,) + rhs).astype(dtype)
    assert triangular.triangle_of(a) == ("lower" if lower else "upper")
    got, want = triangular.solve_triangular(a, b, lower), np.linalg.solve(a, b)  # by halves
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(a @ got, b, rtol=tol, atol=tol)  # what it solves
    with gm.GradientTape() as tape:  # the op: by halves for a few right-hand sides, else NumPy's LU
        t = gm.constant(a)
        tape.watch(t)
        x = np.linalg.solve(t, b)
    np.testing.assert_array_equal(x.numpy(), got if b.ndim == 1 or b.shape[1] <= triangular.NARROW else want)


def test_a_full_matrix_is_no_triangle_and_mixed_dtypes_promote_as_numpy():
    a = spd(80, 80)(rng_for("full", 80))
    assert triangular.triangle_of(a) is None
    near = np.tril(a)
    near[0, 79] = 1e-300  # one entry above the diagonal: not triangular
    assert triangular.triangle_of(near) is None
    L = np.linalg.cholesky(a)
    ints = np.arange(80)
    assert linalg._solve(np, L, ints).dtype == np.linalg.solve(L, ints).dtype == np.float64
    assert linalg._solve(np, L.astype(np.float32), ints.astype(np.float32)).dtype == np.float32


def test_a_singular_triangular_solve_raises_numpys_error():
    L = np.linalg.cholesky(spd(100, 100)(rng_for("singular", 100)))
    L[90, 90] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        linalg._solve(np, L, np.ones(100))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        np.linalg.solve(gm.constant(L), np.ones(100))


@pytest.mark.parametrize("order", [1, 2])
def test_a_triangular_solve_past_the_halving_size_agrees_with_finite_differences(order):
    L = np.linalg.cholesky(spd(70, 70)(rng_for("tri-fd", order)))
    b = rng_for("tri-fd-b", order).standard_normal(70)
    w = rng_for("tri-fd-w", order).standard_normal(70)
    assert gm.check_grad(lambda m, v: np.sum(np.linalg.solve(np.tril(m), v) * w), L, b, order=order)


@pytest.mark.parametrize("b_shape", [(5,), (5, 3)], ids=["vector", "matrix"])
def test_solve_s_two_rules_share_one_solve(monkeypatch, b_shape):
    """With both inputs differentiated, the rule for a solves a.T once and the rule for b,
    next in the same pass, takes it: one solve forward, one backward (NumPy keeps no LU),
    with the gradients of two separate solves; a later pass solves again."""
    rng = rng_for("solve-shared", b_shape)
    a0, b0 = normal(5, 5)(rng) + 5 * np.eye(5), rng.standard_normal(b_shape)
    w = rng.standard_normal(b_shape)
    calls = []
    real = np.linalg.solve
    def counted(*args):  # the arrays' solves (a call on Tensors dispatches to one)
        calls.extend([1] if all(type(x) is np.ndarray for x in args) else [])
        return real(*args)
    monkeypatch.setattr(np.linalg, "solve", counted)
    a, b = gm.Tensor(a0), gm.Tensor(b0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = np.sum(np.linalg.solve(a, b) * w)
    ga, gb = tape.gradient(y, [a, b])
    assert len(calls) == 2
    want_gb = real(a0.T, w)
    np.testing.assert_allclose(gb.value, want_gb, rtol=1e-12)
    x = real(a0, b0)
    np.testing.assert_allclose(ga.value, -(np.outer(want_gb, x) if len(b_shape) == 1 else want_gb @ x.T), rtol=1e-12)
    only_b = tape.gradient(y, b)  # a pass of its own: b's rule solves (nothing left from before)
    assert len(calls) == 3
    np.testing.assert_allclose(only_b.value, want_gb, rtol=1e-12)


@pytest.mark.parametrize("shape", [(1, 1), (31, 31), (33, 33), (100, 100), (2, 40, 40)], ids=sid)
def test_lower_inv_by_halves_is_the_inverse(shape):
    """On a NumPy array (a plain pass: triangular.lower_inverse) and on a Tensor (the
    engine's ops, which a tape records), the same inverse."""
    L = np.linalg.cholesky(spd(*shape)(rng_for("lower_inv", shape)))
    np.testing.assert_allclose(linalg.lower_inv(L), np.linalg.inv(L), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(linalg.lower_inv(gm.Tensor(L)).value, linalg.lower_inv(L), rtol=1e-12, atol=1e-14)
    single = linalg.lower_inv(L.astype(np.float32))
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, np.linalg.inv(L), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("order", [1, 2])
def test_cholesky_rule_past_the_halving_size_agrees_with_finite_differences(order):
    a = spd(40, 40)(rng_for("cholesky-40", order))  # 40 > 32: cholesky's rule inverts L by halves
    w = rng_for("cholesky-40-w", order).standard_normal((40, 40))
    assert gm.check_grad(lambda x: np.sum(LA.cholesky(x) * w), a, order=order)


def test_eigvalsh_sum_gradient_is_identity():
    a = spd(3, 3)(rng_for("hand", "eigvalsh"))  # sum of eigenvalues = trace
    np.testing.assert_allclose(grad_of(lambda x: np.sum(LA.eigvalsh(x)), a), np.eye(3), atol=1e-12)


def test_nuclear_norm_gradient_is_u_vh():
    a = normal(3, 3)(rng_for("hand", "nuc"))
    u, _, vh = LA.svd(a)
    np.testing.assert_allclose(grad_of(lambda x: LA.norm(x, "nuc"), a), u @ vh, rtol=1e-10)


# -- where the derivative does not exist: as JAX -----------------------------------------
def test_norm_at_zero_has_a_nan_gradient_as_jax():
    with np.errstate(all="ignore"):
        g = grad_of(LA.norm, np.zeros(3))
    assert np.all(np.isnan(g))


def test_norm_inf_ties_share_the_gradient():
    g = grad_of(lambda x: LA.norm(x, INF), np.array([1.0, -1.0, 0.5]))
    np.testing.assert_allclose(g, [0.5, -0.5, 0.0])


def test_eigh_with_repeated_eigenvalues_gives_a_non_finite_gradient_as_jax():
    with np.errstate(all="ignore"):
        g = grad_of(lambda x: np.sum(LA.eigh(x)[1][:, 0] ** 3), np.eye(3))
    assert not np.all(np.isfinite(g))


@pytest.mark.parametrize("values", [lambda x: LA.eigvalsh(x), lambda x: LA.eigh(x).eigenvalues],
                         ids=["eigvalsh", "eigh-eigenvalues"])
def test_repeated_eigenvalues_alone_keep_a_finite_gradient(values):
    # sum(w ** 2) = sum(a ** 2) for a symmetric a: its gradient is 2a on the lower triangle read
    a = np.diag([2.0, 2.0, 5.0])
    g = grad_of(lambda x: np.sum(values(x) ** 2), a)
    np.testing.assert_allclose(g, 2 * a, atol=1e-12)


@pytest.mark.parametrize("a, weights, want", [
    (np.eye(3), [1.0, 2.0, 3.0], None),  # repeated: U diag(g) Vh is some basis's, so sum only
    (np.array([[3.0, 0.0], [0.0, 0.0], [0.0, 0.0]]), [1.0, 0.0], [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),
], ids=["repeated", "zero-of-a-tall-matrix"])
def test_singular_values_alone_keep_a_finite_gradient(a, weights, want):
    g = grad_of(lambda x: np.sum(LA.svdvals(x) * np.array(weights)), a)
    assert np.all(np.isfinite(g))
    if want is None:  # the nuclear norm of I: its gradient U Vh is I in any basis
        g = grad_of(lambda x: np.sum(LA.svdvals(x)), a)
        want = np.eye(3)
    np.testing.assert_allclose(g, want, atol=1e-12)


@pytest.mark.parametrize("f, factor, others", [  # f: NumPy's functions as they are before patching
    (LA.eigvalsh, "eigh", ("eigvalsh",)),
    (functools.partial(LA.svd, compute_uv=False), "svd", ()),
    (LA.svdvals, "svd", ("svdvals",)),
    (functools.partial(LA.norm, ord="nuc"), "svd", ("svdvals",)),
], ids=["eigvalsh", "svd-values", "svdvals", "norm-nuc"])
def test_the_backward_pass_reuses_the_forward_factorization(monkeypatch, f, factor, others):
    calls = []  # the factorizations the engine asks NumPy for
    for name in (factor,) + others:
        original = getattr(LA, name)
        monkeypatch.setattr(LA, name, (lambda o, n: lambda *args, **kw: calls.append(n) or o(*args, **kw))(
            original, name))
    x = gm.constant(spd(3, 3)(rng_for("reuse", factor)))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(f(x) ** 2)
    assert calls == [factor]  # the forward's
    tape.gradient(y, x)
    assert calls == [factor]  # and none in the backward pass


# -- dtypes, mixing, errors -------------------------------------------------------------------
@pytest.mark.parametrize("f", [LA.inv, LA.det, LA.norm, lambda a: LA.svd(a).S,
                               lambda a: LA.eigh(a).eigenvalues, lambda a: LA.solve(a, a[0])],
                         ids=["inv", "det", "norm", "svd", "eigh", "solve"])
def test_float32_stays_float32(f):
    a = spd(3, 3)(rng_for("f32")).astype(np.float32)
    x = gm.constant(a)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(f(x))
    assert y.dtype == np.float32
    assert tape.gradient(y, x).dtype == np.float32


def test_a_tensor_and_a_numpy_array_mix():
    a = general(3, 3)(rng_for("mix"))
    b = np.ones(3)
    g = grad_of(lambda x: np.sum(LA.solve(x, b)), a)
    ai = LA.inv(a)
    np.testing.assert_allclose(g, -(ai.T @ np.ones(3))[:, None] * (ai @ b)[None, :], rtol=1e-12)


@pytest.mark.parametrize("f", [LA.inv, lambda a: LA.solve(a, np.ones(2))], ids=["inv", "solve"])
def test_a_singular_matrix_raises_linalgerror(f):
    with pytest.raises(LA.LinAlgError):
        f(gm.constant(np.array([[1.0, 2.0], [2.0, 4.0]])))


@pytest.mark.parametrize("call, error", [
    (lambda x: LA.norm(x, "bogus"), GradientValueError),
    (lambda x: LA.norm(x[0], "fro"), GradientValueError),
    (lambda x: LA.norm(x, 3, axis=(0, 1)), GradientValueError),
    (lambda x: LA.norm(x, axis=(0, 0)), GradientValueError),
    (lambda x: LA.eigh(x, UPLO="X"), GradientValueError),
    (lambda x: LA.svd(x[:, :2]), NoGradientError),
    (lambda x: LA.svd(x, hermitian=True), NoGradientError),
    (lambda x: LA.qr(x[:2]), NoGradientError),
    (lambda x: LA.qr(x, mode="raw"), NoGradientError),
    (lambda x: LA.multi_dot([x], out=np.empty((3, 3))), NoGradientError),
    (lambda x: LA.matrix_power(x, 1.5), TypeError),
], ids=["norm-ord", "norm-fro-of-vector", "norm-matrix-ord=3", "norm-duplicate-axes", "eigh-UPLO",
        "svd-full-non-square", "svd-hermitian", "qr-wide", "qr-mode=raw", "multi_dot-out",
        "matrix_power-float"])
def test_bad_arguments_raise_clear_errors(call, error):
    with pytest.raises(error):
        call(gm.constant(general(3, 3)(rng_for("errors"))))


def test_matrix_power_zero_is_the_identity():
    r = LA.matrix_power(gm.constant(general(2, 3, 3)(rng_for("power0"))), 0)
    np.testing.assert_array_equal(r.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))


@pytest.mark.parametrize("matrix, adjugate_t", [
    ([[1.0, 2.0], [2.0, 4.0]], [[4.0, -2.0], [-2.0, 1.0]]),
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[-3.0, 6.0, -3.0], [6.0, -12.0, 6.0],
                                                             [-3.0, 6.0, -3.0]]),
    (np.zeros((3, 3)).tolist(), np.zeros((3, 3)).tolist()),
])
def test_det_has_a_gradient_at_a_singular_matrix(matrix, adjugate_t):
    """det's gradient is the transposed adjugate, which a singular matrix has too (JAX 0.10.2
    gives the values below; the rule det * inv.T raised LinAlgError there). A second
    derivative there is an error that says so."""
    a = gm.constant(np.array(matrix))
    with gm.GradientTape() as outer:
        outer.watch(a)
        with gm.GradientTape() as tape:
            tape.watch(a)
            d = np.linalg.det(a)
        g = tape.gradient(d, a)
        np.testing.assert_allclose(g.value, adjugate_t, atol=1e-9)
        with pytest.raises(ValueError, match="second derivative of det at a singular matrix"):
            outer.gradient(np.sum(g), a)
    import gradmagic.jax as jax
    import gradmagic.jax.numpy as jnp
    np.testing.assert_allclose(jax.grad(jnp.linalg.det)(jnp.array(matrix)), adjugate_t, atol=1e-4)


def test_det_of_a_stack_with_one_singular_matrix():
    a = np.array([[[2.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 4.0]]])
    x = gm.constant(a)
    with gm.GradientTape() as tape:
        tape.watch(x)
        d = np.linalg.det(x)
    np.testing.assert_allclose(tape.gradient(d, x).value, [[[3.0, -1.0], [-1.0, 2.0]], [[4.0, -2.0], [-2.0, 1.0]]],
                               atol=1e-9)
