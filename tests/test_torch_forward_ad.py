"""gradmagic.torch: forward-mode AD (``torch.autograd.forward_ad``): dual tensors, a
``Function``'s ``jvp``, and ``gradcheck(check_forward_ad=True)``, as PyTorch's tutorial
*Forward-mode Automatic Differentiation* uses them.

Expected values were printed by PyTorch 2.13.0+cpu running the same code with ``import
torch``: every test below but the trace's passes there, the import lines aside. The JVPs are
also checked against reverse mode's Jacobian and finite differences.
"""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.torch as torch
import gradmagic.torch.autograd.forward_ad as fwAD
from gradmagic.torch.autograd.gradcheck import GradcheckError


def tangent(x):
    return fwAD.unpack_dual(x).tangent


# -- the tutorial's basic usage ---------------------------------------------------------------------
def test_basic_usage_gives_the_directional_derivative_and_drops_it_on_exit():
    primal = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    direction = torch.tensor([[0.5, 1.0], [-1.0, 2.0]])
    plain_tensor = torch.tensor([[2.0, 0.0], [1.0, -1.0]])

    def fn(x, y):
        return x ** 2 + y ** 2

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, direction)
        assert fwAD.unpack_dual(dual_input).tangent is direction  # laid out as the primal: itself
        transposed = direction.T
        dual_input_alt = fwAD.make_dual(primal, transposed)
        assert fwAD.unpack_dual(dual_input_alt).tangent is not transposed  # else a copy
        assert fwAD.unpack_dual(dual_input_alt).tangent.tolist() == [[0.5, -1.0], [1.0, 2.0]]
        dual_output = fn(dual_input, plain_tensor)
        jvp = fwAD.unpack_dual(dual_output).tangent
        assert fwAD.unpack_dual(dual_output).primal.tolist() == [[5.0, 4.0], [1.25, 10.0]]
    assert jvp.tolist() == [[1.0, -4.0], [-1.0, 12.0]]  # 2 x direction
    assert fwAD.unpack_dual(dual_output).tangent is None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_jvps_of_common_ops_match_reverse_mode_and_finite_differences(dtype):
    """f(x) = sum over rows of tanh(x @ W + b) * exp(-x), broadcasting b over a batch:
    forward mode's J v equals reverse mode's Jacobian times v, and central differences."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((3, 2))
    w = torch.tensor(rng.standard_normal((2, 2)), dtype=dtype)
    b = torch.tensor(rng.standard_normal(2), dtype=dtype)
    v0 = rng.standard_normal((3, 2))

    def f(x):
        return (torch.tanh(x @ w + b) * torch.exp(-x)).sum(0)

    x = torch.tensor(x0, dtype=dtype)
    v = torch.tensor(v0, dtype=dtype)
    with fwAD.dual_level():
        jv = tangent(f(fwAD.make_dual(x, v)))
    assert jv.dtype == dtype and tuple(jv.shape) == (2,)
    jac = torch.autograd.functional.jacobian(f, x)  # (2, 3, 2), by reverse mode
    by_reverse = (jac * v).sum((1, 2))
    xs = torch.tensor(x0, dtype=torch.float64)
    wd, bd = w.double(), b.double()
    step = 1e-6

    def f64(x):
        return (torch.tanh(x @ wd + bd) * torch.exp(-x)).sum(0)
    vd = torch.tensor(v0, dtype=torch.float64)
    by_differences = (f64(xs + step * vd) - f64(xs - step * vd)) / (2 * step)
    tol = 1e-5 if dtype == torch.float32 else 1e-10
    np.testing.assert_allclose(jv.tolist(), by_reverse.tolist(), rtol=tol, atol=tol)
    np.testing.assert_allclose(jv.double().tolist(), by_differences.tolist(), rtol=1e-5, atol=1e-6)


def test_tangents_follow_in_place_ops_views_clone_and_item_assignment():
    p = torch.tensor([1.0, 2.0, 3.0])
    t = torch.tensor([1.0, 10.0, 100.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(p, t)
        y = d * 1
        y.mul_(d)  # y = d^2: tangent 2 d t
        assert tangent(y).tolist() == [2.0, 40.0, 600.0]
        assert tangent(d.clone()).tolist() == [1.0, 10.0, 100.0]
        z = d * 1
        z[0] = 5.0  # a constant written: its tangent 0 there
        assert tangent(z).tolist() == [0.0, 10.0, 100.0]
        z.zero_()  # and everywhere, after zero_ or fill_
        assert tangent(z).tolist() == [0.0, 0.0, 0.0]
        w = torch.tensor([0.0, 0.0, 0.0])
        w.copy_(d)  # a plain tensor that copies a dual one gets its tangent
        assert tangent(w).tolist() == [1.0, 10.0, 100.0]
        v = y[1:]
        y.add_(d)  # the view sees its base's change, tangent included
        assert tangent(v).tolist() == [50.0, 700.0] and tangent(y).tolist() == [3.0, 50.0, 700.0]
        with torch.no_grad():  # forward AD does not depend on grad mode
            assert tangent(d * 3).tolist() == [3.0, 30.0, 300.0]
        assert tangent(torch.exp(d).detach()) is None
        m = torch.tensor([[1.0, 2.0], [3.0, 4.0]]) @ fwAD.make_dual(torch.tensor([1.0, 1.0]),
                                                                   torch.tensor([0.0, 1.0]))
        assert tangent(m).tolist() == [2.0, 4.0]
        np.testing.assert_allclose(tangent(torch.nn.functional.softplus(d)).tolist(),
                                   [0.7310586, 8.8079708, 95.2574127], rtol=1e-6)


# Tangents printed by PyTorch 2.13.0 (rounded to 4 places) for p = [[1, -2, 3], [0.5, 4, -1]]
# and t = [[1, 10, 100], [-1, 0.5, 2]] in float64: ops made of other ops (sort, topk, median,
# gather, scatter_add ...) and losses give theirs too; none is silently dropped.
P, T = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], [[1.0, 10.0, 100.0], [-1.0, 0.5, 2.0]]
OP_TANGENTS = {
    "abs": (lambda d: d.abs(), [1.0, -10.0, 100.0, -1.0, 0.5, -2.0]),
    "where": (lambda d: torch.where(d > 0, d, d * 2), [1.0, 20.0, 100.0, -1.0, 0.5, 4.0]),
    "max_dim": (lambda d: d.max(dim=1).values, [100.0, 0.5]),
    "fancy": (lambda d: d[[0, 1], [2, 0]], [100.0, -1.0]),
    "clamp": (lambda d: d.clamp(-1.5, 2.5), [1.0, 0.0, 0.0, -1.0, 0.0, 2.0]),
    "norm": (lambda d: torch.linalg.norm(d), [50.1774]),
    "std": (lambda d: d.std(), [15.4949]),
    "softmax": (lambda d: torch.softmax(d, 1), [-10.2784, -0.4586, 10.737, -0.0427, 0.0327, 0.01]),
    "sort": (lambda d: d.sort(1).values, [10.0, 1.0, 100.0, 2.0, -1.0, 0.5]),
    "cumsum": (lambda d: d.cumsum(1), [1.0, 11.0, 111.0, -1.0, -0.5, 1.5]),
    "gather": (lambda d: d.gather(1, torch.tensor([[0, 2], [1, 1]])), [1.0, 100.0, 0.5, 0.5]),
    "masked_fill": (lambda d: d.masked_fill(d < 0, 0.0), [1.0, 0.0, 100.0, -1.0, 0.5, 0.0]),
    "prod": (lambda d: d.prod(1), [-176.0, 7.75]),
    "topk": (lambda d: d.topk(2, 1).values, [100.0, 1.0, 0.5, -1.0]),
    "chunk": (lambda d: d.chunk(3, 1)[1], [10.0, 0.5]),
    "roll": (lambda d: torch.roll(d, 1, 1), [100.0, 1.0, 10.0, 2.0, -1.0, 0.5]),
    "median": (lambda d: d.median(), [-1.0]),
    "einsum": (lambda d: torch.einsum("ij,ij->i", d, d), [562.0, -1.0]),
    "scatter_add": (lambda d: torch.zeros(2, 3, dtype=torch.float64).scatter_add(
        1, torch.tensor([[0, 0, 1], [2, 2, 2]]), d), [11.0, 100.0, 0.0, 0.0, 0.0, 1.5]),
    "gelu": (lambda d: torch.nn.functional.gelu(d), [1.0833, -0.8523, 101.1946, -0.8675, 0.5003, -0.1666]),
    "cross_entropy": (lambda d: torch.nn.functional.cross_entropy(d, torch.tensor([2, 0])), [-5.3982]),
    "huber": (lambda d: torch.nn.functional.huber_loss(d, torch.zeros_like(d)), [14.8333]),
}


@pytest.mark.parametrize("name", sorted(OP_TANGENTS))
def test_every_kind_of_op_gives_pytorchs_tangent(name):
    fn, expected = OP_TANGENTS[name]
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(P, dtype=torch.float64), torch.tensor(T, dtype=torch.float64))
        got = tangent(fn(d))
    assert got is not None
    np.testing.assert_allclose(got.reshape(-1).tolist(), expected, rtol=1e-4, atol=1e-4)


# -- a custom Function's jvp ----------------------------------------------------------------------
class Fn(torch.autograd.Function):
    """The tutorial's: exp, its jvp from the result kept on ctx, and no backward."""
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


def test_a_functions_jvp_gives_its_outputs_tangents_and_gradcheck_checks_it():
    primal = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.double, requires_grad=True)
    direction = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])
    with fwAD.dual_level():
        dual_output = Fn.apply(fwAD.make_dual(primal, direction))
        jvp = fwAD.unpack_dual(dual_output).tangent
    np.testing.assert_allclose(jvp.tolist(), [[1.6487213, 0.7357589], [-7.3890561, 0.6420127]],
                               rtol=1e-7)
    assert jvp.dtype == torch.float64 and jvp.grad_fn.name() == "MulBackward0"
    assert dual_output.grad_fn.name() == "FnBackward"
    assert torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                    check_backward_ad=False, check_undefined_grad=False,
                                    check_batched_grad=False)

    class Twice(Fn):
        @staticmethod
        def jvp(ctx, gI):
            return gI * ctx.result * 2

    with pytest.raises(GradcheckError,
                       match="Jacobian computed with forward mode mismatch for output 0 with "
                             "respect to input 0"):
        torch.autograd.gradcheck(Twice.apply, (primal,), check_forward_ad=True,
                                 check_backward_ad=False, check_undefined_grad=False,
                                 check_batched_grad=False)
    assert not torch.autograd.gradcheck(Twice.apply, (primal,), check_forward_ad=True,
                                        check_backward_ad=False, raise_exception=False)


def test_save_for_forward_and_an_input_that_is_no_tensor():
    seen = []

    class CubeAndScale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x, x ** 3)
            ctx.k = k
            return x ** 3, x * k

        @staticmethod
        def jvp(ctx, gx, gk):
            x, = ctx.saved_tensors  # save_for_forward's, in jvp
            seen.append(gk)
            return 3 * x ** 2 * gx, gx * ctx.k

    with fwAD.dual_level():
        x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        y, z = CubeAndScale.apply(x, 2.0)
        assert tangent(y).tolist() == [3.0, 12.0] and tangent(z).tolist() == [2.0, 2.0]
        y, _ = CubeAndScale.apply(torch.tensor([1.0, 2.0]), 2.0)  # no tangent in: jvp not called
        assert tangent(y) is None
    assert seen == [None]


def test_misuse_is_refused_in_pytorchs_words():
    class NoJvp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class OneOfTwo(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, g):
            return g * 2

    class Summed(NoJvp):
        @staticmethod
        def jvp(ctx, g):
            return g.sum()

    p = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(p, t)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[2, 2\] while the given forward "
                                               r"gradient is of size \[3\]"):
            fwAD.make_dual(p, torch.ones(3))
        d = fwAD.make_dual(p, t)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level 0"):
            fwAD.make_dual(d, t)
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex, but "
                                             "got: torch.int64"):
            fwAD.make_dual(torch.tensor([1, 2]), torch.tensor([1, 1]))
        with pytest.raises(TypeError, match="must be Tensor, not float"):
            fwAD.unpack_dual(3.0)
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            with fwAD.dual_level():
                pass
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            NoJvp.apply(d)
        with pytest.raises(RuntimeError, match=r"invalid number of forward gradients \(expected 2 "
                                               r"but got 1\)"):
            OneOfTwo.apply(d)
        with pytest.raises(RuntimeError, match=r"of size \[2, 2\] while the given forward gradient "
                                               r"is of size \[\]"):
            Summed.apply(d)
        assert fwAD.unpack_dual(p).tangent is None  # a tensor that is not dual


# -- the printout, the trace (gradmagic's own), a level left after an error ----------------------
def test_a_dual_tensor_prints_its_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.0], dtype=torch.float64))
        assert repr(d) == "tensor([1., 2.], tangent=tensor([0.5000, 0.0000], dtype=torch.float64))"
    assert repr(d) == "tensor([1., 2.])"


def test_the_trace_shows_a_functions_jvp_as_a_forward_mode_row():
    primal = torch.tensor([0.5, -1.0], dtype=torch.double)
    with gm.trace() as tr:
        with fwAD.dual_level():
            out = Fn.apply(fwAD.make_dual(primal, torch.tensor([1.0, 2.0], dtype=torch.double)))
            y = (out * 2).sum()
            jvp = tangent(y)
    assert [r.node for r in tr.forward] == ["Fn", "multiply", "sum"]  # no row for make_dual's view
    fn_row = tr.forward_mode[0]
    cells = fn_row.cells()
    assert fn_row.node == "Fn" and cells["x"] == "foo=[0.5, -1]"
    assert (cells["upstream"], cells["local"], cells["downstream"]) == (  # tangent in, tangent
        "foo=[1, 2]", "[1.649, 0.3679]", "[1.649, 0.7358]")  # out / in (exp(x)), out from jvp
    assert jvp.item() == pytest.approx(2 * (np.exp(0.5) * 1 + np.exp(-1.0) * 2))


def test_a_dual_level_is_left_clean_after_an_error():
    with pytest.raises(ZeroDivisionError):
        with fwAD.dual_level():
            fwAD.make_dual(torch.tensor([1.0]), torch.tensor([1.0]))
            1 / 0
    with fwAD.dual_level():  # a new level can be entered: the old one is gone
        d = fwAD.make_dual(torch.tensor([2.0]), torch.tensor([3.0]))
        assert tangent(d * d).tolist() == [12.0]
