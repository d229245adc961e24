"""Write the tutorial notebooks from the cells below and execute them, storing outputs.

    python scripts/build_notebooks.py [NAME ...]

The notebooks in notebooks/ are what readers open and what nbval checks; this script is
how they are made, so a change to a lesson is a change here, then a rebuild.
"""

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "notebooks"


def md(text):
    return nbformat.v4.new_markdown_cell(text.strip())


def code(text, tags=()):
    cell = nbformat.v4.new_code_cell(text.strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


SETUP = code("""
%load_ext gradmagic
import numpy as np
import gradmagic as gm
""")

NOTEBOOKS = {}

NOTEBOOKS["01_upstream_gradient"] = [
    md("""
# 1. The upstream gradient, seen

TensorFlow's documentation of `tf.custom_gradient` shows a `grad_fn(upstream)` that returns
`upstream * (local derivative)`, and many readers stop there: *what is `upstream`, and why
multiply by it?* This notebook answers with numbers.

For `y = f(g(h(x)))` the chain rule says `dy/dx = f'(g(h(x))) · g'(h(x)) · h'(x)`. A
backward pass computes that product **from the output back to the input**, one function at
a time. When it reaches a function, the product of the derivatives of everything *after*
it has already been computed: that is the **upstream** gradient, `dy / d(this function's
output)`. The function multiplies it by its own **local** derivative and passes the result
**downstream**, to the function before it.
"""),
    SETUP,
    md("""
Here is the example from the question-and-answer thread: `foo(x) = x**2`, whose local
derivative is `2x`, with a custom gradient written the way the documentation writes it.
"""),
    code("""
@gm.custom_gradient
def foo(x):
    def grad_fn(upstream):
        return upstream * 2 * x      # downstream = upstream × local
    return x ** 2, grad_fn
"""),
    md("""
`%%gradtrace` runs a cell as usual and then shows what happened: every forward value, and
every backward step with its `x`, `upstream`, `local` and `downstream`. `--plot` adds a
picture of the chain. The last line of the cell is still the cell's value.
"""),
    code("""
%%gradtrace --plot
x = gm.constant(2.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = foo(foo(foo(x)))          # y = x ** 8
dy_dx = tape.gradient(y, x)
dy_dx
"""),
    md("""
Read the backward table from the top: the pass starts at the output, where the upstream
gradient is `dy/dy = 1`.

* The last `foo` saw `x = 16`; its local derivative is `2 · 16 = 32`; it passes
  `1 × 32 = 32` downstream.
* The middle `foo` receives `32` as its upstream, multiplies by its local `2 · 4 = 8`,
  and passes `256`.
* The first `foo` receives `256`, multiplies by `2 · 2 = 4`: `1024`, which is
  `d(x⁸)/dx = 8 · 2⁷` at `x = 2`.

Without `upstream`, each function would only know its own slope; with it, each one knows
how much the final result cares about its output.
"""),
    md("""
## Forgetting to multiply by upstream

Now the same function with a `grad_fn` that returns only the local derivative. `--check`
compares what `grad_fn` gave with the derivative of the function's own body, which the tape
recorded as it ran, and calls `grad_fn` again with other upstreams (doubled, zero) to see
whether it scales with them. It checks each function once per input shape, and changes
nothing in the program.
"""),
    code("""
@gm.custom_gradient
def foo_forgot(x):
    def grad_fn(upstream):
        return 2 * x                 # the local derivative alone
    return x ** 2, grad_fn
"""),
    code("""
%%gradtrace --check
x = gm.constant(2.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = foo_forgot(foo_forgot(foo_forgot(x)))
tape.gradient(y, x)
"""),
    md("""
The answer is `4`, the local derivative of the innermost call alone: every step threw
away what came from above it, exactly as if `gm.stop_gradient` cut the chain there. The
note under row 3, the call `--check` looked at, says so, shows the number it would have
passed on with the upstream multiplied in, and writes the fix from `grad_fn` itself. The
other rows say that their `local` is only what this `grad_fn` gave.
"""),
    code("""
print("with upstream:", float(dy_dx),
      "   forgetting it:", float(gm.grad(lambda v: foo_forgot(foo_forgot(foo_forgot(v))))(2.0)))
"""),
]

NOTEBOOKS["02_stable_gradients"] = [
    md("""
# 2. Numerically stable gradients

The documentation's first example: `log(1 + exp(x))`, which turns up in cross entropy and
log likelihoods. At `x = 100` in float32 its gradient comes out `NaN`. Where is it born?
"""),
    SETUP,
    code("""
def log1pexp_naive(x):
    return np.log(1 + np.exp(x))
"""),
    code("""
%%gradtrace
x = gm.constant(100.0)               # float32, as tf.constant(100.)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = log1pexp_naive(x)
tape.gradient(y, x)
"""),
    md("""
`exp(100)` is about `2.7e43`, beyond float32's largest value (`3.4e38`): it overflows to
`inf`, and the forward value is `inf` too. Backward, `log` passes `1 / inf = 0` down, `add`
passes `0` on, and `exp` multiplies that upstream `0` by its local derivative `exp(100) =
inf`: `0 × inf = NaN`. The note under that row names the step, the cause and the fix.

The documentation's fix simplifies the derivative by hand so that nothing overflows:
`d/dx log(1 + eˣ) = 1 − 1 / (1 + eˣ)`.
"""),
    code("""
@gm.custom_gradient
def log1pexp(x):
    e = np.exp(x)
    def grad_fn(upstream):
        return upstream * (1 - 1 / (1 + e))
    return np.log(1 + e), grad_fn
"""),
    code("""
%%gradtrace
x = gm.constant(100.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = log1pexp(x)
tape.gradient(y, x)
"""),
    md("""
The gradient is now `1.0`; the forward value is still `inf` (as in TensorFlow: only the
gradient was fixed). `gm.softplus` computes both stably, as `max(x, 0) + log1p(exp(−|x|))`:
"""),
    code("""
%%gradtrace
x = gm.constant(100.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = gm.softplus(x)
tape.gradient(y, x)
"""),
    md("""
## float64 moves the threshold, it does not remove it

`exp` overflows above `log(max float)`: about 88.72 in float32 and 709.78 in float64.
"""),
    code("""
for dtype in (np.float32, np.float64):
    for v in (88.0, 89.0, 709.0, 710.0):
        x = gm.constant(v, dtype=dtype)
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp_naive(x)
        print(f"{np.dtype(dtype).name:8} x={v:<6} gradient={float(tape.gradient(y, x))}")
print("thresholds:", float(np.log(np.finfo(np.float32).max)), float(np.log(np.finfo(np.float64).max)))
"""),
]

NOTEBOOKS["03_inputs_outputs_variables"] = [
    md("""
# 3. Several inputs, several outputs, and variables

A `grad_fn` returns one gradient per input. With several outputs it receives one upstream
per output. When the function reads variables, it also returns their gradients.
"""),
    SETUP,
    md("""
## Several inputs: the documentation's `z = x * y`

`∂z/∂x = y` and `∂z/∂y = x`, each multiplied by the upstream.
"""),
    code("""
@gm.custom_gradient
def bar(x, y):
    def grad_fn(upstream):
        dz_dx = y
        dz_dy = x
        return upstream * dz_dx, upstream * dz_dy
    z = x * y
    return z, grad_fn
"""),
    code("""
%%gradtrace
x = gm.constant(2.0)
y = gm.constant(3.0)
with gm.GradientTape(persistent=True) as tape:
    tape.watch([x, y])
    z = bar(x, y)
tape.gradient(z, x), tape.gradient(z, y)
"""),
    md("""
## Several outputs

`grad_fn` receives one upstream per output. An output nobody differentiated gets an
upstream of zeros.
"""),
    code("""
@gm.custom_gradient
def polar(r, theta):
    def grad_fn(up_x, up_y):
        return (up_x * np.cos(theta) + up_y * np.sin(theta),
                -up_x * r * np.sin(theta) + up_y * r * np.cos(theta))
    return (r * np.cos(theta), r * np.sin(theta)), grad_fn

r, theta = gm.constant(2.0), gm.constant(0.5)
with gm.GradientTape() as tape:
    tape.watch([r, theta])
    px, py = polar(r, theta)
    loss = px + 3 * py
dr, dtheta = tape.gradient(loss, [r, theta])
print(f"d/dr = {float(dr):.4f}   d/dtheta = {float(dtheta):.4f}")
"""),
    md("""
## Variables

A function that reads a `gm.Variable` it was not given as an input gets the variables in
`grad_fn(..., variables=[...])` and returns `(input gradients, variable gradients)`.
"""),
    code("""
w = gm.Variable(np.array([0.5, -1.0, 2.0]), name="w")

@gm.custom_gradient
def scale(x):
    def grad_fn(upstream, variables=None):
        return upstream * w, [np.sum(upstream * x, axis=0)]
    return x * w, grad_fn
"""),
    code("""
%%gradtrace
x = gm.constant(np.arange(6.0).reshape(2, 3))
with gm.GradientTape() as tape:
    tape.watch(x)
    loss = np.sum(scale(x))
grad_x, grad_w = tape.gradient(loss, [x, w])
grad_w
"""),
    md("""
The `unbroadcast` row is the step people forget: `w` has shape `(3,)` but was used across
2 rows, so its gradient sums over that axis.

## What a `None` gradient means

`tape.gradient` gives `None` for a source the target does not depend on through recorded
ops. The trace says which link is missing.
"""),
    code("""
%%gradtrace
a = gm.constant(1.0)
b = gm.constant(2.0)
with gm.GradientTape() as tape:
    tape.watch(a)
    c = a * gm.stop_gradient(b) + b        # b is never watched
tape.gradient(c, [a, b])
"""),
]

NOTEBOOKS["04_nested_and_higher_order"] = [
    md("""
# 4. Nested custom gradients and higher order

The documentation warns: *nesting custom gradients can lead to unintuitive results; the
default behavior does not correspond to n-th order derivatives.* Here is what that means,
with `y = x³` at `x = 2` (first derivative `3x² = 12`, second `6x = 12`).
"""),
    SETUP,
    md("""
## Nested tapes give higher derivatives

An outer tape records what an inner tape's backward pass computes, so its gradient of the
first derivative is the second derivative.
"""),
    code("""
%%gradtrace
x = gm.constant(np.float64(2.0))
with gm.GradientTape() as outer:
    outer.watch(x)
    with gm.GradientTape() as inner:
        inner.watch(x)
        y = x ** 3
    dy_dx = inner.gradient(y, x)
d2y_dx2 = outer.gradient(dy_dx, x)
float(dy_dx), float(d2y_dx2)
"""),
    md("""
## The documentation's nesting pattern

`grad_fn` is itself a custom-gradient function returning `(gdy, grad_grad_fn)`.
`grad_grad_fn` is the derivative of `grad_fn` **with respect to its upstream `dy`**, not the
second derivative with respect to `x`; and `x`, which `grad_fn` captures from the
enclosing scope, gets no gradient through that path. It shows when the upstream itself
depends on `x`, as in a Hessian-vector product or a loss built from a gradient. Below the
upstream is `x` itself, so `g = x · 3x² = 3x³` and the true `dg/dx = 9x² = 36`.
"""),
    code("""
@gm.custom_gradient
def cube(x):
    @gm.custom_gradient
    def grad_fn(dy):
        gdy = dy * 3 * x ** 2
        def grad_grad_fn(ddy):       # not the second derivative with respect to x
            return ddy * 3 * x ** 2
        return gdy, grad_grad_fn
    return x ** 3, grad_fn
"""),
    code("""
%%gradtrace --check
x = gm.constant(np.float64(2.0))
with gm.GradientTape() as outer:
    outer.watch(x)
    with gm.GradientTape() as inner:
        inner.watch(x)
        y = cube(x)
    g = inner.gradient(y, x, output_gradients=x * 1.0)
outer.gradient(g, x)
"""),
    md("""
`12` instead of `36`: the term `6x · dy = 24` that flows through the captured `x` is lost.
The note under the second-order row shows both numbers and the fix: make the inner custom
gradient take `x` explicitly, so its own rule gives `x`'s gradient.
"""),
    code("""
@gm.custom_gradient
def cube_fixed(x):
    x_grad = 3 * x ** 2
    def grad_fn(dy):
        @gm.custom_gradient
        def first_order(x):
            return x_grad, lambda ddy: ddy * 6 * x
        return dy * first_order(x)
    return x ** 3, grad_fn
"""),
    code("""
def second(f):
    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, output_gradients=x * 1.0)
    return float(outer.gradient(g, x))

print("nested pattern:", second(cube), "   fixed pattern:", second(cube_fixed), "   true: 36")
"""),
    md("""
## Where `grad_grad_fn` is meant to be used: forward mode

The documentation says `grad_grad_fn` is *used to generate forward-mode gradient graphs from
backward-mode gradient graphs*. Forward mode pushes a tangent `t` forward and gives `J·t`;
gradmagic builds it from the backward rules, which give `Jᵀ·u`: it runs `grad_fn` on a
placeholder upstream `u` and differentiates the result **with respect to `u`**. That derivative
is exactly what `grad_grad_fn` defines, so for `cube` forward mode calls `grad_grad_fn` with
the tangent, and what it returns is the tangent of `y`. `gm.jvp(f, primals, tangents)` is
forward mode; the trace shows its steps in a section of their own.
"""),
    code("""
%%gradtrace
x = gm.constant(np.float64(2.0))
y, y_dot = gm.jvp(cube, (x,), (1.0,))      # tangent 1 for x: y_dot = dy/dx
float(y), float(y_dot)
"""),
    md("""
`12 = 3x²`, the first derivative, as reverse mode gives it. Here `grad_grad_fn` is used as its
definition says (the derivative with respect to `dy`), so nothing is lost: the captured `x`
only matters when a gradient is differentiated again. TensorFlow's
`tf.autodiff.ForwardAccumulator` (in `gradmagic.tf.autodiff` too) calls `grad_grad_fn` at the
same place, but keeps the tangent of the function's own ops where those are connected.
"""),
    md("""
## Checking second derivatives

`gm.check_grad(f, x, order=2)` compares Hessian-vector products from nested tapes with
finite differences of the first derivative. (Printed as the report is, it shows each
input's largest errors; here only the verdict, since errors at the level of finite
differences' noise differ from one machine to the next.)
"""),
    code("""
report = gm.check_grad(lambda x: np.sum(np.tanh(x) ** 3), np.linspace(-1, 1, 4), order=2)
print("agrees:", bool(report), "| largest absolute error under 1e-8:", report.rows[0].max_abs < 1e-8)
"""),
]

NOTEBOOKS["05_debugging_gradients"] = [
    md("""
# 5. Debugging gradients: a gallery of pitfalls

Each cell below has one of the mistakes people make with gradients. The trace finds it
while the code runs and explains it next to the row where it happens.
"""),
    SETUP,
    md("## Upstream ignored"),
    code("""
@gm.custom_gradient
def double(x):
    return 2 * x, lambda upstream: 2.0 + 0 * x      # forgot upstream
"""),
    code("""
%%gradtrace --check
x = gm.constant(np.array([1.0, 2.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    y = np.sum(double(x) ** 2)
tape.gradient(y, x)
"""),
    md("## A wrong derivative"),
    code("""
@gm.custom_gradient
def softsign(x):
    return x / (1 + np.abs(x)), lambda up: up / (1 + np.abs(x))   # should be squared
"""),
    code("""
%%gradtrace --check
x = gm.constant(np.array([-2.0, 0.5, 3.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    y = np.sum(softsign(x))
tape.gradient(y, x)
"""),
    md("## A NaN born in the backward pass"),
    code("""
%%gradtrace
x = gm.constant(np.array([0.0, 1.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    y = np.sum(np.sqrt(x) * x)
tape.gradient(y, x)
"""),
    md("""
## A masked `where`

`np.where(x > 0, np.sqrt(x), 0)` never *uses* `sqrt` at `x ≤ 0`, but its gradient still
flows there as zeros, and `0 × inf = NaN`.
"""),
    code("""
%%gradtrace
x = gm.constant(np.array([-1.0, 0.0, 4.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    y = np.sum(np.where(x > 0, np.sqrt(x), 0.0))
tape.gradient(y, x)
"""),
    md("The fix, a `where` inside the `where`, keeps the unselected branch finite:"),
    code("""
x = gm.constant(np.array([-1.0, 0.0, 4.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    safe = np.where(x > 0, x, 1.0)
    y = np.sum(np.where(x > 0, np.sqrt(safe), 0.0))
tape.gradient(y, x)
"""),
    md("## Why is this gradient `None`?"),
    code("""
%%gradtrace
w = gm.Variable(1.0, name="w")
w = w - 0.1                      # w is now a Tensor, not the Variable
with gm.GradientTape() as tape:
    loss = w * w
tape.gradient(loss, w)
"""),
    md("""
## Shape errors

gradmagic checks what `grad_fn` returns; TensorFlow accepts a gradient of the wrong shape
silently. The error names the function, the input, what was expected and what came.
"""),
    code("""
@gm.custom_gradient
def total(x):
    return np.sum(x), lambda up: up                   # should be up * np.ones_like(x)

x = gm.constant(np.array([1.0, 2.0, 3.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    y = total(x)
tape.gradient(y, x)
""", tags=["raises-exception"]),
    md("""
## `gm.check_grad`

The engine's gradients against central finite differences, for any function, custom
gradients included. It names the inputs that disagree and by how much.
"""),
    code("""
gm.check_grad(lambda x: np.sum(softsign(x)), np.array([-2.0, 0.5, 3.0]))
"""),
]

NOTEBOOKS["06_numpy_to_gpu"] = [
    md("""
# 6. From NumPy code to GPU arrays

gradmagic differentiates ordinary NumPy code: `np.tanh`, `@`, broadcasting and indexing on
`gm.Tensor`s record on the tape. Here is a small MLP.
"""),
    SETUP,
    code("""
rng = np.random.default_rng(0)
X = rng.standard_normal((8, 3))
Y = np.sin(X.sum(axis=1, keepdims=True))
params = {"W1": rng.standard_normal((3, 4)) * 0.5, "b1": np.zeros(4),
          "W2": rng.standard_normal((4, 1)) * 0.5, "b2": np.zeros(1)}

@gm.traced
def layer(x, W, b):
    return np.tanh(x @ W + b)

def mlp(p, x):
    return layer(x, p["W1"], p["b1"]) @ p["W2"] + p["b2"]
"""),
    code("""
%%gradtrace
p = {k: gm.constant(v) for k, v in params.items()}
x, y = gm.constant(X), gm.constant(Y)
with gm.GradientTape() as tape:
    tape.watch(p)
    loss = np.mean((mlp(p, x) - y) ** 2)
grads = tape.gradient(loss, p)
{k: g.shape for k, g in grads.items()}
"""),
    md("""
`@gm.traced` folds the ops of `layer` into one row each way; `%%gradtrace --ops` would
show every primitive. A few steps of gradient descent:
"""),
    code("""
p = {k: gm.Variable(v, name=k) for k, v in params.items()}
x, y = gm.constant(X), gm.constant(Y)
for step in range(201):
    with gm.GradientTape() as tape:
        loss = np.mean((mlp(p, x) - y) ** 2)
    for k, g in tape.gradient(loss, p).items():
        p[k].assign_sub(0.2 * g)
    if step % 50 == 0:
        print(f"step {step:3}  loss {float(loss):.4f}")
"""),
    md("""
## Linear algebra on the tape

`np.linalg` differentiates too: `inv`, `det`, `slogdet`, `solve`, `cholesky`, `eigh`, `svd`,
`qr`, `pinv`, `norm`, `matrix_power`, `multi_dot`. Here is the negative log-likelihood of
`y` under a Gaussian whose covariance `K = A Aᵀ + 3 I` is built from parameters `A`, through
its Cholesky factor, a triangular solve and the log-determinant; the trace shows each
factorization as one row, with the rule it applies in the `local` column.
"""),
    code("""
def nll(A, y):
    K = A @ A.T + 3 * np.eye(3)
    L = np.linalg.cholesky(K)
    z = np.linalg.solve(L, y)                      # L z = y, so z @ z = y K^-1 y
    return 0.5 * z @ z + 0.5 * np.linalg.slogdet(K).logabsdet + 1.5 * np.log(2 * np.pi)

rng = np.random.default_rng(1)
A0, y0 = rng.standard_normal((3, 3)), rng.standard_normal(3)
"""),
    code("""
%%gradtrace
A, y = gm.constant(A0), gm.constant(y0)
with gm.GradientTape() as tape:
    tape.watch(A)
    loss = nll(A, y)
dA = tape.gradient(loss, A)
"""),
    md("""
The same gradient against central finite differences, and its second derivative (print a
report to see each input's largest error):
"""),
    code("""
for order in (1, 2):
    report = gm.check_grad(nll, A0, y0, order=order)
    print(f"order {order}:", "all agree" if report else report)
"""),
    md("""
## A NumPy function is one row

Some NumPy functions are several ops inside gradmagic: `np.sort` is an `argsort` and a
gather, `np.roll` two slices and a concatenation. The trace still shows each call as one
row, named after the function, and its `local` column says what the gradient does there:
`np.sort` sends each element's upstream back to where that element came from.
"""),
    code("""
%%gradtrace
x = gm.Variable([3.0, 1.0, 2.0], name="x")
with gm.GradientTape() as tape:
    y = np.sum(np.sort(x) * np.array([1.0, 10.0, 100.0]))
tape.gradient(y, x)
"""),
    md("""
The upstream `[1, 10, 100]` comes back as `[100, 1, 10]`: `x`'s largest element, 3, was
sorted last. `%%gradtrace --ops` shows the ops inside each such row.
"""),
    md("""
## The same cell on a GPU

`%%gradtrace --backend cupy` runs the cell with the GPU as the default device: `gm.constant`
and `gm.Variable` put the NumPy arrays and numbers they are given on it (one copy each, the
dtype kept), as `tf.constant` does on TensorFlow's default device. The engine, the trace and
the pitfall notes work on the device arrays unchanged; values come to the host only to be
shown. `gm.backend_status("cupy")` says whether a GPU is usable here, and if not, why; the
cells below use the GPU where one is, and NumPy elsewhere, so this notebook runs everywhere.

The outputs stored here were made on a machine without a usable GPU, so they say `numpy`;
where a GPU is usable the last cell prints `cupy` (nbval does not compare these two cells).
"""),
    code("""
status = gm.backend_status("cupy")
backend = "cupy" if status else "numpy"
print(backend, "-", status.reason or "a GPU is usable")
""", tags=["nbval-ignore-output"]),
    code("""
%%gradtrace --backend $backend
x = gm.constant(X.astype(np.float32))
W = gm.constant(params["W1"].astype(np.float32))
with gm.GradientTape() as tape:
    tape.watch(W)
    loss = np.sum(np.tanh(x @ W) ** 2)
g = tape.gradient(loss, W)
type(g.value).__module__.partition(".")[0], g.shape  # the gradient's array module
""", tags=["nbval-ignore-output"]),
]

NOTEBOOKS["07_from_tensorflow"] = [
    md("""
# 7. Coming from TensorFlow

`import gradmagic.tf as tf` maps the common eager API onto gradmagic, so the code of
TensorFlow's `tf.custom_gradient` pages runs unchanged. (`tf.print` writes to standard
error, as in TensorFlow.)
"""),
    code("""
%load_ext gradmagic
import gradmagic.tf as tf
"""),
    md("## The question-and-answer thread's demo"),
    code("""
@tf.custom_gradient
def foo(x):
    tf.debugging.assert_rank(x, 0)

    def grad(dy_dx_upstream):
        dy_dx = 2 * x
        dy_dx_downstream = dy_dx * dy_dx_upstream
        tf.print(f'x={x}\\tupstream={dy_dx_upstream}\\tcurrent={dy_dx}\\t\\tdownstream={dy_dx_downstream}')
        return dy_dx_downstream

    y = x ** 2
    tf.print(f'x={x}\\ty={y}')

    return y, grad


x = tf.constant(2.0, dtype=tf.float32)

with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = foo(foo(foo(x))) # y = x ** 8

tf.print(f'\\nfinal dy/dx={tape.gradient(y, x)}')
"""),
    md("## The documentation's `log1pexp`"),
    code("""
def log1pexp(x):
  return tf.math.log(1 + tf.exp(x))

x = tf.constant(100.)
with tf.GradientTape() as tape:
  tape.watch(x)
  y=log1pexp(x)
dy_dx = tape.gradient(y, x) # Will be NaN when evaluated.
dy_dx
"""),
    code("""
@tf.custom_gradient
def log1pexp(x):
  e = tf.exp(x)
  def grad(upstream):
    return upstream * (1 - 1 / (1 + e))
  return tf.math.log(1 + e), grad

with tf.GradientTape() as tape:
  tape.watch(x)
  y=log1pexp(x)
dy_dx = tape.gradient(y, x)
dy_dx
"""),
    md("""
## Several inputs

The documentation prints this example without `@tf.custom_gradient` and without
`tape.watch`; with neither, TensorFlow itself would give `None`. With both, as intended:
"""),
    code("""
@tf.custom_gradient
def bar(x, y):
  def grad(upstream):
    dz_dx = y
    dz_dy = x
    return upstream * dz_dx, upstream * dz_dy
  z = x * y
  return z, grad

x = tf.constant(2.0, dtype=tf.float32)
y = tf.constant(3.0, dtype=tf.float32)

with tf.GradientTape(persistent=True) as tape:
  tape.watch([x, y])
  z = bar(x, y)
z, tape.gradient(z, x), tape.gradient(z, y)
"""),
    md("""
The same TensorFlow code runs under `%%gradtrace`, which shows what the `tf.print` calls
were added to see:
"""),
    code("""
%%gradtrace
x = tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = foo(foo(foo(x)))
tape.gradient(y, x)
"""),
    md("""
## TensorFlow's other gradient tools

`tf.grad_pass_through` and `tf.recompute_grad` are custom gradients too, so a trace shows each
call as one row, and `--check` says what it makes of it: a straight-through estimator, the
forward's rounding with the identity's gradient, is recognised as intended.
"""),
    code("""
%%gradtrace --check
x = tf.constant([0.4, 1.6])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.grad_pass_through(tf.round)(x) * [2.0, 3.0])
tape.gradient(y, x)
"""),
    md("""
A Variable's `value` is its array, as for every gradmagic Tensor; calling it is TensorFlow's
`Variable.value()`, a read of the variable that the tape follows:
"""),
    code("""
v = tf.Variable(initial_value=[1.0, 2.0])
v.value, v.value()
"""),
    md("""
What is not mapped raises an `AttributeError` that says so: `gradmagic.tf` covers the common
eager API, not all of TensorFlow.
"""),
    code("""
try:
    tf.keras
except AttributeError as e:
    print(e)
"""),
]


NOTEBOOKS["08_from_pytorch"] = [
    md("""
# 8. Coming from PyTorch

`import gradmagic.torch as torch` maps what PyTorch's tutorials on custom `autograd.Function`s
use onto gradmagic: tensors with `requires_grad`, `.grad` and `.backward()`,
`torch.autograd.Function` with `ctx.save_for_backward`, `torch.no_grad()`,
`torch.autograd.grad` and `gradcheck`. The code runs unchanged but for the import line, with
PyTorch's semantics (float32 by default, `.grad` accumulates, a graph is freed by
`backward()`), and `%%gradtrace` shows each `Function.apply` as one row, in PyTorch's words.
"""),
    code("""
%load_ext gradmagic
import math
import gradmagic.torch as torch
from gradmagic.torch.autograd.gradcheck import GradcheckError
"""),
    md("""
## The tutorial's `LegendrePolynomial3`

From PyTorch's tutorial *polynomial_custom_function*, unchanged:
"""),
    code("""
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
"""),
    md("""
The tutorial fits `y = a + b * P3(c + d * x)` to `sin(x)` with plain gradient descent. Its
loop, with the loss printed to two decimals every 500 steps (PyTorch 2.13 prints the same):
"""),
    code("""
dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
for t in range(2000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 500 == 499:
        print(t, f"{loss.item():.2f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f'Result: y = {b.item():.4f} * P3({d.item():.4f} x); a and c stay at 0:',
      max(abs(a.item()), abs(c.item())) < 1e-8)
"""),
    md("""
The first step of that loop under `%%gradtrace`, on four points so that the values fit:
the `LegendrePolynomial3` row is the call of its `backward`, with `grad_output` as the
`upstream` column and what `backward` returned as `downstream`.
"""),
    code("""
%%gradtrace
b = torch.full((), -1.0, requires_grad=True)
d = torch.full((), 0.3, requires_grad=True)
x4 = torch.linspace(-1, 1, 4)
loss = (b * P3(d * x4) - torch.sin(x4)).pow(2).sum()
loss.backward()
"""),
    md("""
## A `backward` that forgets `grad_output`

The most common mistake: return the local derivative alone. PyTorch runs it without a word;
the gradient of everything before the function is wrong. `--check` calls `backward` again
with `grad_output` doubled and zero, sees that it does not change, and finds it:
"""),
    code("""
class Forgets(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return 1.5 * (5 * input ** 2 - 1)
"""),
    code("""
%%gradtrace --check
w = torch.tensor(0.5, requires_grad=True)
loss = Forgets.apply(2 * w) * 3
loss.backward()
"""),
    md("""
## A double backward that loses a term

From PyTorch's tutorial *Double Backward with Custom Functions*: `SinhBad` keeps `exp(x)`
on `ctx` as attributes. `forward` runs without recording, so to a second backward
(`create_graph=True`) they are constants, and the second derivative silently loses their
term. `gradgradcheck` fails on it, in PyTorch and here:
"""),
    code("""
class SinhBad(torch.autograd.Function):
    # This is an example of what NOT to do!
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.expx = expx
        ctx.expnegx = expnegx
        return (expx - expnegx) / 2

    @staticmethod
    def backward(ctx, grad_out):
        expx = ctx.expx
        expnegx = ctx.expnegx
        grad_input = grad_out * (expx + expnegx) / 2
        return grad_input

x = torch.tensor([0.5, 1.0], requires_grad=True, dtype=torch.double)
try:
    torch.autograd.gradgradcheck(SinhBad.apply, x)
except GradcheckError as e:
    print(str(e).splitlines()[0])
"""),
    md("""
Asked for a second derivative directly, PyTorch stops with `element 0 of tensors does not
require grad`: the first derivative came out as a constant. The trace says why, at the row
where the term was lost, and how to fix it:
"""),
    code("""
%%gradtrace --check
g, = torch.autograd.grad(SinhBad.apply(x).sum(), x, create_graph=True)
g.sum().backward()  # the second derivative
""", tags=("raises-exception",)),
    md("""
The tutorial's fix returns `exp(x)` and `exp(-x)` as outputs and saves them with
`ctx.save_for_backward`: a saved output keeps its graph, so the second backward reaches
`x` through them.
"""),
    code("""
class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx

    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input

def sinh(x):
    return Sinh.apply(x)[0]

torch.autograd.gradgradcheck(sinh, x)
"""),
    md("""
What is not mapped raises an `AttributeError` that says so: `gradmagic.torch` covers what
those tutorials use, not all of PyTorch.
"""),
    code("""
try:
    torch.nn.Linear
except AttributeError as e:
    print(e)
"""),
]


NOTEBOOKS["09_from_jax"] = [
    md("""
# 9. Coming from JAX

`import gradmagic.jax as jax` and `import gradmagic.jax.numpy as jnp` map what JAX's guide
*Custom derivative rules for JAX-transformable Python functions* uses onto gradmagic:
`grad`, `vjp`, `jacrev`, `vmap`, `jit` (which compiles nothing), `custom_vjp` and
`custom_jvp`. The code runs unchanged but for the import lines, with JAX's semantics
(float32 unless `jax_enable_x64`, `grad` of a scalar output only), and `%%gradtrace` shows
each custom rule as one row named after your function, in JAX's words: `g` is the
cotangent that arrives from the rest of the program, the `upstream` column.
"""),
    code("""
%load_ext gradmagic
from functools import partial
import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax import custom_jvp, custom_vjp, grad, vmap
"""),
    md("""
## `custom_jvp`: the guide's `log1pexp`

Written plainly, its gradient at 100 is NaN (`exp(100)` overflows float32):
"""),
    code("""
def log1pexp(x):
  return jnp.log(1. + jnp.exp(x))

print(grad(log1pexp)(3.), grad(log1pexp)(100.))
"""),
    md("""
The guide's fix gives it a JVP rule. `grad` is reverse mode, so gradmagic, as JAX does,
transposes the rule: it runs it with the tangent as a watched input and takes the gradient
with respect to the tangent. The trace shows the call as one row, with the rule's result
as `downstream`:
"""),
    code("""
@custom_jvp
def log1pexp(x):
  return jnp.log(1. + jnp.exp(x))

@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  ans = log1pexp(x)
  ans_dot = (1 - 1/(1 + jnp.exp(x))) * x_dot
  return ans, ans_dot

print(grad(log1pexp)(100.))
"""),
    code("""
%%gradtrace
g = grad(lambda x: 2 * log1pexp(x))(3.)
"""),
    md("""
In forward mode (`jax.jvp`) the same rule gives the tangent; the trace shows it in its own
forward-mode section:
"""),
    code("""
%%gradtrace
y, y_dot = jax.jvp(log1pexp, (3.,), (1.,))
"""),
    md("""
A rule that is not linear in its tangent cannot be transposed. JAX refuses it; so does
gradmagic, and it says which rule and why:
"""),
    code("""
@custom_jvp
def square(x):
  return x ** 2

@square.defjvp
def square_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  return square(x), 2 * x * x_dot ** 2   # should be 2 * x * x_dot

try:
  grad(square)(3.)
except ValueError as e:
  print(e)
"""),
    md("""
## `custom_vjp`: `f(x, y) = sin(x) * y`

`f_fwd` saves residuals, `f_bwd` receives them and the cotangent `g`:
"""),
    code("""
@custom_vjp
def f(x, y):
  return jnp.sin(x) * y

def f_fwd(x, y):
  return f(x, y), (jnp.cos(x), jnp.sin(x), y)

def f_bwd(res, g):
  cos_x, sin_x, y = res
  return (cos_x * g * y, sin_x * g)

f.defvjp(f_fwd, f_bwd)
"""),
    code("""
%%gradtrace
gx, gy = grad(lambda x, y: 3 * f(x, y), argnums=(0, 1))(2., 3.)
"""),
    md("""
The same function with a `bwd` that forgets `g`: `grad` runs without a word, and
everything before `f` gets the wrong gradient. `--check` calls `bwd` again with `g`
doubled and finds it:
"""),
    code("""
@custom_vjp
def f_forgets(x, y):
  return jnp.sin(x) * y

def f_forgets_bwd(res, g):
  cos_x, sin_x, y = res
  return (cos_x * y, sin_x)

f_forgets.defvjp(lambda x, y: (f_forgets(x, y), (jnp.cos(x), jnp.sin(x), y)), f_forgets_bwd)
"""),
    code("""
%%gradtrace --check
gx = grad(lambda x, y: 3 * f_forgets(x, y))(2., 3.)
"""),
    md("""
## `nondiff_argnums`: the guide's `clip_gradient`

An identity in the forward pass whose backward clips the cotangent: a deliberate surrogate.
Mapped over a few points with `vmap`, the gradient of `sin` is clipped to `[-0.75, 0.75]`:
"""),
    code("""
@partial(custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
  return x  # identity function

def clip_gradient_fwd(lo, hi, x):
  return x, None  # no residual values to save

def clip_gradient_bwd(lo, hi, _, g):
  return (jnp.clip(g, lo, hi),)

clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)

def clip_sin(x):
  x = clip_gradient(-0.75, 0.75, x)
  return jnp.sin(x)

t = jnp.linspace(0, 10, 5)
print(vmap(grad(jnp.sin))(t))
print(vmap(grad(clip_sin))(t))
"""),
    md("""
`--check` compares `bwd` with the derivative of what `fwd` recorded; a clipped `g` is
recognised as deliberate and marked `i` (for information), not as a mistake:
"""),
    code("""
%%gradtrace --check
g = grad(lambda x: 3 * clip_sin(x))(2.)
"""),
    md("""
What is not mapped raises an `AttributeError` that says so: `gradmagic.jax` covers what the
guide uses, not all of JAX.
"""),
    code("""
try:
    jax.pmap
except AttributeError as e:
    print(e)
"""),
]


def build(name, cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(OUT)}}).execute()
    for cell in nb.cells:  # outputs are what nbval compares; nothing else varies
        cell.metadata.pop("execution", None)
    path = OUT / f"{name}.ipynb"
    nbformat.write(nb, path)
    print("wrote", path.relative_to(ROOT))


if __name__ == "__main__":
    wanted = sys.argv[1:] or list(NOTEBOOKS)
    for name in wanted:
        build(name, NOTEBOOKS[name])
