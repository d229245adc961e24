"""PyTorch's fused products and matrix helpers on gradmagic.torch: ``addmm``, ``addmv``,
``addr``, ``baddbmm``, ``addbmm`` (``beta * input + alpha * product``), ``vdot``,
``matrix_power``, ``cov``, ``corrcoef`` (methods and ``torch.<name>``), and ``tensordot``,
``cdist``, ``block_diag``, ``cartesian_prod``, ``chain_matmul`` (``torch.<name>``
only). Each is made of the engine's ops, so their rules give its gradient, and its
result carries PyTorch's ``grad_fn`` name.

As PyTorch's: ``beta=0`` ignores ``input`` (its NaN and inf too; its gradient is 0);
``cdist``'s gradient is 0 between equal points; ``matrix_power`` multiplies in PyTorch's
order (by squaring); ``corrcoef`` clamps to [-1, 1] with the gradient passed at the
bounds; ``chain_matmul`` picks the cheapest order, as ``linalg.multi_dot``. The errors a
user can cause are PyTorch's, in its words.

``METHODS`` become ``Tensor`` methods (and ``torch.<name>(input, ...)``); ``FUNCTIONS``
are ``torch.<name>`` only.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..core import ops
from ..tracebacks import user_stacklevel
from .functions import meshgrid
from .graph import as_tensor_of
from .linalg import inv
from .subgradients import vector_norm
from .tensor import make
from .values import c_name, default_float, named, type_name


def _matrix_shape(t):
    return "x".join(str(n) for n in t.shape)


def _same_dtype(what, a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{what} must have the same dtype, but got {type_name(a.dtype)} and "
                           f"{type_name(b.dtype)}")


def expand_check(t, shape):
    """PyTorch's errors where ``t`` does not expand to ``shape`` (``input`` of the fused
    products)."""
    have, shape = tuple(t.shape), tuple(shape)
    if len(have) > len(shape):
        raise RuntimeError(f"expand(torch.{type_name(t.dtype)}Tensor{{{list(have)}}}, size={list(shape)}): "
                           f"the number of sizes provided ({len(shape)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(have)})")
    padded = (1,) * (len(shape) - len(have)) + have
    for k in reversed(range(len(shape))):
        if padded[k] != shape[k] and padded[k] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({shape[k]}) must match the existing size "
                               f"({padded[k]}) at non-singleton dimension {k}.  Target sizes: {list(shape)}.  "
                               f"Tensor sizes: {list(have)}")


def _scale(t, factor):
    if factor == 1:
        return t
    if t.dtype.kind in "iub":  # PyTorch casts the scalar to an integer tensor's type
        factor = int(factor)
    return t * factor


def _fused(self, product, beta, alpha, label):
    """``beta * self + alpha * product``, ``self`` broadcast to the product's shape; with
    ``beta == 0`` ``self`` is not read (a NaN in it stays out) and its gradient is 0."""
    expand_check(self, product.shape)
    scaled = _scale(product, alpha)
    if beta == 0:
        out = ops.where(np.zeros(tuple(product.shape), bool), self, scaled)
    else:
        out = _scale(self, beta) + scaled
    return named(out, label)


def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcast to the product's shape."""
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_matrix_shape(mat1)} and "
                           f"{_matrix_shape(mat2)})")
    _same_dtype("mat1 and mat2", mat1, mat2)
    _same_dtype("self and mat2", self, mat2)
    return _fused(self, ops.matmul(mat1, mat2), beta, alpha, "AddmmBackward0")


def addmv(self, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    if not (mat.ndim == 2 and vec.ndim == 1 and self.ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0] or (self.numel() != mat.shape[0] and self.numel() != 1):
        size = self.shape[0] if self.ndim else self.numel()
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({_matrix_shape(mat)}), vec "
                           f"({vec.shape[0]})")
    if not self.dtype == mat.dtype == vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {type_name(self.dtype)}, "
                           f"{type_name(mat.dtype)}, and {type_name(vec.dtype)}")
    return _fused(self, ops.matmul(mat, vec), beta, alpha, "AddmvBackward0")


def addr(self, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    dtype = _promoted((self, vec1, vec2))  # addr promotes, as the elementwise ops do
    self, vec1, vec2 = (t if t.dtype == dtype else t.type(dtype) for t in (self, vec1, vec2))
    return _fused(self, ops.outer(vec1, vec2), beta, alpha, "AddrBackward0")


def _batches(batch1, batch2):
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")


def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)``, matrix by matrix over the batch."""
    _batches(batch1, batch2)
    want = [batch1.shape[0], batch1.shape[2]]
    if list(batch2.shape[:2]) != want:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: {want} but "
                           f"got: {list(batch2.shape[:2])}.")
    if self.dtype != batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {c_name(self.dtype)}, batch1: "
                           f"{c_name(batch1.dtype)}, batch2: {c_name(batch2.dtype)}")
    if batch1.dtype != batch2.dtype:
        raise RuntimeError(f"expected scalar type {type_name(batch1.dtype)} but found {type_name(batch2.dtype)}")
    return _fused(self, ops.matmul(batch1, batch2), beta, alpha, "BaddbmmBackward0")


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    _batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} "
                           f"and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    _same_dtype("self and mat2", self, batch2)
    _same_dtype("mat1 and mat2", batch1, batch2)
    return _fused(self, ops.sum(ops.matmul(batch1, batch2), axis=0), beta, alpha, "AddbmmBackward0")


def vdot(self, other):
    """The dot product of two vectors (``dot``: the tensors here are real)."""
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    if self.dtype != other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{type_name(self.dtype)} and {type_name(other.dtype)}")
    if self.shape[0] != other.shape[0]:
        n, m = self.shape[0], other.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the "
                           f"same number of elements, but got {n} and {m} elements respectively")
    return named(ops.matmul(self, other), "VdotBackward0")


def matrix_power(self, n):
    """``A`` (a square matrix, or a batch of them) to the integer power ``n``: by repeated
    squaring, in PyTorch's order; ``n < 0`` inverts first, ``n == 0`` is the identity."""
    if self.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if self.shape[-1] != self.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{self.shape[-2]} by {self.shape[-1]} matrices")
    n = int(n)
    if n == 0:  # the identity, with gradient 0 to A
        eye = np.broadcast_to(np.eye(self.shape[-1], dtype=self.dtype), tuple(self.shape))
        return named(ops.where(np.zeros(tuple(self.shape), bool), self, eye), "CopyBackwards")
    if n == 1:
        return named(self.clone(), "CloneBackward0")
    a = inv(self) if n < 0 else self
    n = abs(n)
    label = "MmBackward0" if self.ndim == 2 else "UnsafeViewBackward0"
    if n == 1:
        return a
    if n in (2, 3):
        out = ops.matmul(a, a)
        return named(out if n == 2 else ops.matmul(out, a), label)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else ops.matmul(z, z)
        if bit:
            result = z if result is None else ops.matmul(result, z)
    return named(result, label)


def _broadcast(a, b):
    """The batch shape ``a`` and ``b`` broadcast to, or PyTorch's error."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for k in reversed(range(n)):
        if a[k] != b[k] and 1 not in (a[k], b[k]):
            raise RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b ({b[k]}) at "
                               f"non-singleton dimension {k}")
    return tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(a, b))


def cdist(x1, x2, p=2.0, compute_mode=None):
    """The ``p``-norm distances between the rows of ``x1`` (``B x P x M``) and of ``x2``
    (``B x R x M``), batch dimensions broadcast: ``B x P x R``. Computed directly (PyTorch
    takes a matrix product for p = 2 beyond 25 rows, which rounds otherwise); the gradient
    is 0 between equal rows, as PyTorch's."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {type_name(x.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x1.dtype)} but found {type_name(x2.dtype)}")
    batch = _broadcast(x1.shape[:-2], x2.shape[:-2])
    a = ops.broadcast_to(ops.expand_dims(x1, -2), batch + (x1.shape[-2], x2.shape[-2], x1.shape[-1]))
    diff = a - ops.expand_dims(x2, -3)
    if p == float("inf"):  # PyTorch's rule: each coordinate that attains the max gets its sign
        size = ops.absolute(diff)
        top = ops.max(ops.stop_gradient(size), axis=-1)
        ties = ops.stop_gradient(size) == ops.expand_dims(top, -1)
        return named(top + ops.sum(ops.where(ties, size - ops.stop_gradient(size), 0), axis=-1),
                     "CdistBackward0")
    if p == 0:  # a count of the coordinates that differ: gradient 0, but recorded (PyTorch's)
        unused = ops.where(np.zeros(diff.shape, bool), diff, 0)
        return named(vector_norm(ops.stop_gradient(diff), 0.0, dim=-1) + ops.sum(unused, axis=-1),
                     "CdistBackward0")
    return named(vector_norm(diff, float(p), dim=-1), "CdistBackward0")


def _weights(name, w, n, integral):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w.ndim} dimensions")
    if integral and w.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{type_name(w.dtype)} dtype")
    if not integral and w.dtype.kind != "f":
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{type_name(w.dtype)} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in "
                           f"the input but got {w.numel()} != {n}")
    if n and bool((w.value < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(self, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows (variables) of ``input`` over its columns (observations),
    as PyTorch computes it: weighted by ``fweights`` (integer counts) and ``aweights``;
    with no degrees of freedom left, PyTorch's warning and a division by 0."""
    if self.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.ndim} dimensions")
    if self.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = self.reshape(1, -1) if self.ndim < 2 else self
    if x.dtype.kind != "f":
        x = x.type(default_float())
    n = x.shape[1]
    w = None
    if fweights is not None:
        _weights("fweights", fweights, n, True)
        w = fweights
    if aweights is not None:
        _weights("aweights", aweights, n, False)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = as_tensor_of(np.asarray(n, x.dtype), x)
    else:
        w_sum = w.sum()
        if float(w_sum.value) == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and correction != 0 and aweights is not None:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if float(getattr(norm, "value", norm)) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "number of observations.", UserWarning, stacklevel=user_stacklevel())
        norm = norm * 0
    centred = x - avg.unsqueeze(1)
    c = ops.matmul(centred, (centred if w is None else centred * w).t())
    with np.errstate(divide="ignore", invalid="ignore"):
        out = c / (norm.type(c.dtype) if hasattr(norm, "type") else norm)
    return named(out.squeeze(), "SqueezeBackward0")


def corrcoef(self):
    """Pearson's correlation coefficients of the rows of ``input``: ``cov`` over the outer
    product of the standard deviations, clamped to [-1, 1] (the gradient passes at the
    bounds, as PyTorch's ``clamp``); one variable gives ``c / c``."""
    if self.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input "
                           f"with {self.ndim} dimensions")
    c = cov(self)
    with np.errstate(divide="ignore", invalid="ignore"):
        if c.ndim == 0:
            return c / c
        std = np.sqrt(np.diagonal(c))
        c = c / std.reshape(-1, 1)
        c = c / std.reshape(1, -1)
    v = c.value
    inside = (v >= -1) & (v <= 1)
    return named(ops.where(inside, c, np.clip(v, -1, 1)), "ClampBackward1")


def tensordot(a, b, dims=2, out=None):
    """The sum of products over ``dims`` (an int: ``a``'s last and ``b``'s first ones; or
    a pair of lists of dimensions)."""
    if hasattr(dims, "value"):
        dims = dims.value.tolist()
    if isinstance(dims, (list, tuple)):
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    else:
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        if n > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={n}")
        da, db = list(range(-n, 0)), list(range(n))
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[i]} in dim "
                               f"{i} and second has size {b.shape[j]} in dim {j}")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return named(np.tensordot(a, b, axes=(da, db)), "ViewBackward0")


def _promoted(tensors):
    """PyTorch's result dtype of mixing ``tensors``: a float wins over integers."""
    kinds = [t.dtype for t in tensors]
    floats = [d for d in kinds if d.kind == "f"]
    return np.result_type(*(floats or kinds)) if kinds else default_float()


def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D: a 1-D one is a row) down the diagonal of one matrix."""
    for k, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} "
                               f"has {t.ndim} dimensions")
    dtype = _promoted(tensors)
    if not tensors:
        return make(np.zeros((1, 0), dtype), dtype)
    blocks = [(t if t.dtype == dtype else t.type(dtype)).reshape(-1 if t.ndim == 2 else 1,
                                                                   t.shape[-1] if t.ndim == 2 else -1)
              for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        rows.append(ops.concatenate([np.zeros((r, left), dtype), b, np.zeros((r, width - left - c), dtype)],
                                    axis=1))
        left += c
    return named(ops.concatenate(rows, axis=0), "BlockDiagBackward0")


def cartesian_prod(*tensors):
    """The rows of all combinations of the vectors' elements (the first varies slowest);
    one vector is returned as it is."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = meshgrid(*tensors, indexing="ij")
    return named(ops.stack([g.reshape(-1) for g in grids], axis=1), "StackBackward0")


def _chain_order(shapes):
    """The cheapest order to multiply matrices of ``shapes`` (the classic dynamic programme
    ``linalg.multi_dot`` runs): ``split[i][j]``, where the product of ``i..j`` is cut."""
    p = [shapes[0][0]] + [s[1] for s in shapes]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def chain_matmul(*matrices, out=None):
    """``torch.chain_matmul`` (deprecated, with PyTorch's warning): the product of the
    matrices, in the cheapest order, as ``torch.linalg.multi_dot``."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=user_stacklevel())
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    for k, m in enumerate(matrices[1:], 1):
        if m.dtype != matrices[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{c_name(matrices[0].dtype)} and tensor {k} {c_name(m.dtype)}")
    for k in range(len(matrices) - 1):
        a, b = matrices[k], matrices[k + 1]
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {k} and {k + 1} with shapes {list(a.shape)} and "
                               f"{list(b.shape)} cannot be multiplied")
    split = _chain_order([tuple(m.shape) for m in matrices])

    def product(i, j):
        if i == j:
            return matrices[i]
        k = split[i][j]
        return ops.matmul(product(i, k), product(k + 1, j))
    return named(product(0, len(matrices) - 1), "ViewBackward0")


METHODS = {f.__name__: f for f in (addmm, addmv, addr, baddbmm, addbmm, vdot, matrix_power, cov, corrcoef)}
FUNCTIONS = {f.__name__: f for f in (tensordot, cdist, block_diag, cartesian_prod, chain_matmul)}
