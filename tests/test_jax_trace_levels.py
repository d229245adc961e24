"""What the trace shows of a ``custom_jvp``/``custom_vjp`` call now that only the innermost
differentiating level runs its rule (``gradmagic.jax.levels``): the call's forward row folds
the ops that made its outputs (a ``custom_jvp``'s: its rule's primal code, which here calls
the function itself, so its ``log``, ``add`` and ``exp``; never the rule's tangent code), and
``ops=True`` shows them, under ``grad``, ``jvp`` and ``grad`` of ``grad``. Observing never
changes a value.
"""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax import custom_vjp, grad


from _jax_examples import f, log1pexp  # noqa: E402  (JAX's guide's rules)


@custom_vjp
def h(x):
    return jnp.sin(x)


def h_fwd(x):  # (not calling h: under jax.jvp of jax.grad, h called in it is JAX's TypeError)
    return jnp.sin(x), jnp.cos(x)


def h_bwd(cos_x, g):
    return (cos_x * g,)


h.defvjp(h_fwd, h_bwd)

JVP_BODY = [("log1pexp", "exp"), ("log1pexp", "add"), ("log1pexp", "log")]
VJP_BODY = [("f", "sin"), ("f", "multiply"), ("f", "cos"), ("f", "sin")]

RUNS = {
    "jvp_grad": lambda: grad(lambda x: 2 * log1pexp(x))(3.),
    "jvp_jvp": lambda: jax.jvp(log1pexp, (3.,), (1.,)),
    "jvp_grad_grad": lambda: grad(grad(log1pexp))(3.),
    "jvp_hessian": lambda: jax.hessian(log1pexp)(3.),
    "jvp_vjp": lambda: jax.vjp(log1pexp, 3.)[1](1.),
    "vjp_grad": lambda: grad(lambda x, y: 3 * f(x, y), argnums=(0, 1))(2., 3.),
    "vjp_jvp_of_grad": lambda: jax.jvp(grad(lambda x: 3 * h(x)), (2.,), (1.,)),
    "vjp_grad_of_grad": lambda: grad(grad(lambda x: 3 * h(x)))(2.),
    "vjp_grad_grad": lambda: grad(grad(lambda x: f(x, 3.)))(2.),
}


def _row(tr, name):
    (row,) = [r for r in tr.forward if r.node == name]
    return row


def _op_rows(tr, name):
    """(context, op) of each op row the trace shows inside function ``name``."""
    return [(r.context, r.node) for r in tr.forward if r.context.split(" › ")[0] == name]


@pytest.mark.parametrize("run", ["jvp_grad", "jvp_jvp", "jvp_grad_grad", "jvp_hessian", "jvp_vjp"])
def test_a_custom_jvp_row_folds_the_three_ops_of_its_primal(run):
    with gm.trace() as tr:
        RUNS[run]()
    assert _row(tr, "log1pexp").note == "3 ops folded"
    with gm.trace(ops=True) as tr:
        RUNS[run]()
    # the primal code the rule ran (its own call of log1pexp is no row of its own), not the
    # tangent code (exp, add, divide, subtract, multiply), which its step stands for
    assert _op_rows(tr, "log1pexp") == JVP_BODY


def test_a_custom_jvp_under_jvp_has_one_forward_mode_row_of_its_rule():
    with gm.trace() as tr:
        y, y_dot = jax.jvp(log1pexp, (3.,), (1.,))
    (row,) = tr.forward_mode
    assert row.node == "log1pexp" and np.isclose(float(row.downstream[0]), 0.95257413)
    assert [r.node for r in tr.forward] == ["log1pexp"]


def test_a_custom_jvp_under_a_hessian_keeps_the_outer_levels_forward_mode_row():
    # jacfwd over jacrev: the outer jvp differentiates the rule's call of log1pexp by the rule
    with gm.trace() as tr:
        jax.hessian(log1pexp)(3.)
    rows = [r for r in tr.forward_mode if r.node == "log1pexp"]
    assert len(rows) == 1 and np.isclose(float(rows[0].downstream[0]), 0.95257413)


def test_a_custom_jvp_row_under_grad_of_grad_and_its_gradients():
    with gm.trace() as tr:
        g2 = grad(grad(log1pexp))(3.)
    assert _row(tr, "log1pexp").note == "3 ops folded"
    assert np.isclose(float(g2), 0.045176655)
    assert [r.node for r in tr.backward if r.level == 1] == ["log1pexp"]


@pytest.mark.parametrize("run", ["vjp_grad", "vjp_grad_grad"])
def test_a_custom_vjp_row_folds_the_ops_of_its_fwd(run):
    with gm.trace() as tr:
        RUNS[run]()
    assert _row(tr, "f").note == "4 ops folded"
    with gm.trace(ops=True) as tr:
        RUNS[run]()
    assert _op_rows(tr, "f") == VJP_BODY


@pytest.mark.parametrize("run", ["vjp_jvp_of_grad", "vjp_grad_of_grad"])
def test_a_custom_vjp_row_folds_the_ops_of_its_fwd_under_two_levels(run):
    with gm.trace() as tr:
        RUNS[run]()
    assert _row(tr, "h").note == "2 ops folded"
    with gm.trace(ops=True) as tr:
        RUNS[run]()
    assert _op_rows(tr, "h") == [("h", "sin"), ("h", "cos")]


def test_a_custom_vjp_under_jvp_of_grad_gives_jaxs_numbers():
    # JAX 0.10.2: the outer jvp differentiates fwd and bwd as plain code
    y, y_dot = RUNS["vjp_jvp_of_grad"]()
    assert np.isclose(float(y), 3 * np.cos(2.)) and np.isclose(float(y_dot), -3 * np.sin(2.))


def test_a_custom_vjp_refuses_jvp_traced_or_not():
    for observed in (False, True):
        with gm.trace() if observed else _nothing():
            with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
                jax.jvp(lambda x: f(x, 3.), (2.,), (1.,))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _values(v):
    return jax.tree_util.tree_map(lambda a: np.asarray(a).tolist(), v)


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("options", [{}, {"ops": True}, {"check": True}])
def test_observing_changes_no_value(run, options):
    plain = _values(RUNS[run]())
    with gm.trace(**options):
        traced = _values(RUNS[run]())
    assert traced == plain


def test_the_values_are_jaxs():
    # JAX 0.10.2 (CPU): the rule's numbers, at 100 too, where f's own would be nan
    assert np.isclose(float(grad(lambda x: 2 * log1pexp(x))(3.)), 1.9051483)
    assert float(grad(log1pexp)(100.)) == 1.0
    with gm.trace():
        assert float(grad(log1pexp)(100.)) == 1.0
    gx, gy = RUNS["vjp_grad"]()
    assert np.isclose(float(gx), -3.7453213) and np.isclose(float(gy), 2.7278922)
