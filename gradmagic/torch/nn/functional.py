"""``torch.nn.functional``: the activations and losses PyTorch's tutorials use, on
gradmagic's ops, with PyTorch's conventions where they differ from TensorFlow's (the
gradient of ``leaky_relu`` and ``elu`` at 0 is the negative side's, ``reduction=``)."""

import functools
import inspect
import warnings

import numpy as np

from ...core import layout, ops, special, statistics
from ...core.tensor import Tensor as CoreTensor
from ...core.primitive import composite
from ...core.special import SELU_ALPHA, SELU_SCALE, gelu_erf, gelu_tanh
from ...tracebacks import user_stacklevel
from ..autograd.function import Function
from ..graph import as_tensor_of
from ..modes import no_grad
from ..subgradients import vector_norm
from ..values import named, type_name
from .conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401  (F's names)
                   conv_transpose3d)
from .pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,  # noqa: F401
                      adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d,
                      avg_pool2d, avg_pool3d, fold, lp_pool1d, lp_pool2d, max_pool1d, max_pool2d,
                      max_pool3d, pixel_shuffle, pixel_unshuffle, unfold)
from .activations import silu_ as inplace_silu  # not F's: PyTorch's F has no silu_
from .activations import (celu, celu_, elu_, glu, hardshrink, hardsigmoid, hardswish,  # noqa: F401
                          hardtanh_, leaky_relu_, mish, prelu, relu_, rrelu, rrelu_, selu_, softmin,
                          softshrink, tanhshrink, threshold, threshold_)
from .losses import (logit_loss, cosine_embedding_loss, reduced, gaussian_nll_loss, hinge_embedding_loss, kl_div,  # noqa: F401
                     margin_ranking_loss, multi_margin_loss, multilabel_soft_margin_loss, pairwise_distance,
                     pdist, poisson_nll_loss, soft_margin_loss, triplet_margin_loss)
from .attention import scaled_dot_product_attention  # noqa: F401
from .dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout,  # noqa: F401
                      gumbel_softmax)
from .normalization import batch_norm, group_norm, instance_norm, local_response_norm  # noqa: F401
from .resize import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
from .grid_sampling import affine_grid, grid_sample  # noqa: F401


def _named(name, in_place=None):
    """The function's result has PyTorch's ``grad_fn`` name (``ReluBackward0``), where the
    last of the ops it is made of would name it (``WhereBackward0``). ``in_place``: the
    function's in-place form, which ``inplace=True`` calls (the arguments before it passed on)."""
    def wrap(f):
        at = list(inspect.signature(f).parameters).index("inplace") if in_place else None

        @functools.wraps(f)
        def run(*args, **kwargs):
            if in_place is not None and (kwargs.pop("inplace", False) if len(args) <= at else args[at]):
                return in_place(*args[:at], **kwargs)
            return named(f(*args, **kwargs), name + "Backward0")
        return run
    return wrap



@_named("Relu", relu_)
def relu(input, inplace=False):
    return special.relu(input)  # gradient 0 at 0 and NaN kept, as PyTorch's


def sigmoid(input):
    return ops.sigmoid(input)


def tanh(input):
    return input.tanh()


@_named("Softplus")
@composite("sigmoid(beta x), 1 where beta x > threshold", elementwise=True)
def softplus(input, beta=1.0, threshold=20.0):
    scaled = input * beta
    return ops.where(scaled > threshold, input, ops.softplus(scaled) / beta)


@_named("Softmax")
def softmax(input, dim=None, dtype=None):
    return input.softmax(-1 if dim is None else dim, dtype)


@_named("LogSoftmax")
def log_softmax(input, dim=None, dtype=None):
    return input.log_softmax(-1 if dim is None else dim, dtype)


@_named("LeakyRelu", leaky_relu_)
@composite("1 where x > 0, else negative_slope", elementwise=True)
def leaky_relu(input, negative_slope=0.01, inplace=False):
    return ops.where(input > 0, input, input * negative_slope)


@_named("Elu", elu_)
@composite("1 where x > 0, else alpha exp(x)", elementwise=True)
def elu(input, alpha=1.0, inplace=False):
    return ops.where(input > 0, input, alpha * ops.expm1(ops.minimum(input, 0)))


@_named("Elu", selu_)
@composite("scale where x > 0, else scale alpha exp(x)", elementwise=True)
def selu(input, inplace=False):
    return SELU_SCALE * ops.where(input > 0, input, SELU_ALPHA * ops.expm1(ops.minimum(input, 0)))


@_named("Silu", inplace_silu)
@composite("s(x) (1 + x (1 - s(x)))", elementwise=True)
def silu(input, inplace=False):
    return input * ops.sigmoid(input)


@_named("Gelu")
@composite("gelu'(x)", elementwise=True)
def gelu(input, approximate="none"):
    """Exact, ``0.5 x (1 + erf(x / sqrt(2)))``, by default; ``approximate="tanh"``: the tanh
    form."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"gelu(approximate={approximate!r}): approximate argument must be "
                           "either none or tanh.")
    return gelu_tanh(input) if approximate == "tanh" else gelu_erf(input)


@_named("LogSigmoid")
@composite("sigmoid(-x)", elementwise=True)
def logsigmoid(input):
    return -ops.softplus(-input)


@composite("1 / (1 + |x|)^2", elementwise=True)
def softsign(input):
    return input / (1 + ops.absolute(input))


@_named("Hardtanh", hardtanh_)
@composite("1 strictly between min_val and max_val", elementwise=True)
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    inside = ops.logical_and(input > min_val, input < max_val)
    return ops.where(inside, input, ops.where(input >= max_val, max_val, min_val))


@_named("Hardtanh", lambda input: hardtanh_(input, 0.0, 6.0))
def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: ``weight`` is (out_features, in_features)."""
    x, w = input.value.shape, weight.value.shape
    if x[-1:] != w[-1:]:
        rows = int(np.prod(x[:-1], dtype=np.int64))
        raise RuntimeError(f"linear(input, weight): mat1 and mat2 shapes cannot be multiplied "
                           f"({rows}x{x[-1] if x else 1} and {'x'.join(map(str, w[::-1]))})")
    out = ops.matmul(input, ops.swapaxes(weight, -1, -2) if len(w) > 1 else weight)
    if bias is None:
        return out
    target, b = out.value.shape, bias.value.shape
    bad = [k for k in range(1, min(len(b), len(target)) + 1) if b[-k] not in (1, target[-k])]
    if bad:
        k = len(target) - bad[0]
        raise RuntimeError(f"linear(bias): The expanded size of the tensor ({target[k]}) must match the "
                           f"existing size ({b[-bad[0]]}) at non-singleton dimension {k}.  Target sizes: "
                           f"{list(target)}.  Tensor sizes: {list(b)}")
    out = out + bias
    return named(out, "AddmmBackward0") if len(x) == 2 else out


# -- vectors, embeddings, padding, normalization, dropout ----------------------------------
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p over dim, eps)``."""
    norm = vector_norm(input, p, dim, keepdim=True)
    return input / norm.clamp(min=eps)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast together):
    each divided by its norm, at least ``eps``, then their product summed. As in PyTorch,
    the norm is raised to ``eps`` where it is smaller without a gradient of its own (PyTorch
    clamps it in place under no_grad): the gradient flows as if it were not."""
    def norm(x):
        n = vector_norm(x, 2, dim, keepdim=True)
        return n + (n.clamp(min=eps) - n).detach()
    return ((x1 / norm(x1)) * (x2 / norm(x2))).sum(dim)


def one_hot(tensor, num_classes=-1):
    """int64 ones at each index's class, along a new last axis of ``num_classes`` (the
    largest index plus one by default)."""
    idx = tensor.value
    if idx.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    n = int(idx.max()) + 1 if num_classes == -1 and idx.size else int(num_classes)
    if idx.size and idx.max() >= n:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return as_tensor_of((idx[..., None] == np.arange(n)).astype(np.int64), tensor)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` at the indices ``input``; the row ``padding_idx`` gets no
    gradient; with ``max_norm``, each row looked up whose ``norm_type``-norm exceeds it is
    first scaled down to it in ``weight`` itself, in place and unrecorded, as PyTorch's."""
    if scale_grad_by_freq:
        raise NotImplementedError("embedding(scale_grad_by_freq=True) is not supported in "
                                  "gradmagic.torch: scale the rows by hand")
    idx = input.value if isinstance(input, CoreTensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got torch.{type_name(idx.dtype)}Tensor instead "
                           "(while checking arguments for embedding)")
    rows = weight.value.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= rows):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renormed(weight, idx, max_norm, norm_type)
    out = ops.getitem(weight, idx)
    if padding_idx is not None:
        pad = padding_idx + rows if padding_idx < 0 else padding_idx
        out = ops.where((idx == pad)[..., None], ops.stop_gradient(out), out)
    return named(out, "EmbeddingBackward0")


def _renormed(weight, idx, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_``: the rows at ``idx`` whose norm exceeds ``max_norm``
    scaled by ``max_norm / (norm + 1e-7)``, in place (a new version of ``weight``)."""
    rows = np.unique(idx)
    found = vector_norm(weight[rows], norm_type, (1,), False).value
    big = found > max_norm
    if big.any():
        with no_grad():
            scale = (max_norm / (found[big] + 1e-7)).astype(weight.value.dtype)
            weight[rows[big]] = weight[rows[big]] * as_tensor_of(scale[:, None], weight)


PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input, pad, mode="constant", value=None):
    """``input`` padded by ``pad``: ``(left, right)`` of the last axis, then of the one
    before, and so on; a negative width crops (constant mode)."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    if mode not in PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    axes = len(pad) // 2
    if mode != "constant" and input.ndim not in (axes + 1, axes + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\nSupported "
            "combinations for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last "
            "dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D "
            "input: padding size = 6 (pads last 3 dimensions)")
    widths = [[0, 0] for _ in range(input.ndim)]
    for k in range(axes):
        widths[-1 - k] = [int(pad[2 * k]), int(pad[2 * k + 1])]
        if mode == "reflect" and max(widths[-1 - k]) >= input.shape[-1 - k]:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({pad[2 * k]}, {pad[2 * k + 1]}) at "
                               f"dimension {input.ndim - 1 - k} of input {list(input.shape)}")
    if any(w < 0 for pair in widths for w in pair):
        if mode != "constant":
            raise NotImplementedError(f"pad(mode={mode!r}) with a negative width is not supported "
                                      "in gradmagic.torch: crop with slicing first")
        input = ops.getitem(input, tuple(slice(-a if a < 0 else None, b if b < 0 else None)
                                         for a, b in widths))
        widths = [[max(a, 0), max(b, 0)] for a, b in widths]
    if mode == "constant":
        out = layout.pad(input, widths, constant_values=0 if value is None else value)
    else:
        out = layout.pad(input, widths, mode=PAD_MODES[mode])
    names = {"constant": "ConstantPadNdBackward0", "reflect": f"ReflectionPad{axes}DBackward0",
             "replicate": f"ReplicationPad{axes}DBackward0", "circular": "CopySlices"}
    return named(out, names[mode])


@composite("through the statistics over normalized_shape", "none", "x normalized, summed",
           "upstream summed")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """``(input - mean) / sqrt(var + eps) * weight + bias`` over the last axes, those of
    ``normalized_shape`` (the variance the biased one)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or len(shape) > input.ndim:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    centred = input - ops.mean(input, axis=axes, keepdims=True)
    out = centred / ops.sqrt(ops.mean(centred * centred, axis=axes, keepdims=True) + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return named(out, "NativeLayerNormBackward0")


# -- losses ----------------------------------------------------------------------------------
def _same_size(input, target, deprecated=False):
    """PyTorch's ValueError for a target of another size than the input, in the words of
    ``binary_cross_entropy_with_logits`` (or of ``binary_cross_entropy``: ``deprecated``)."""
    if tuple(target.shape) != tuple(input.shape):
        t, i = f"torch.Size({list(target.shape)})", f"torch.Size({list(input.shape)})"
        raise ValueError(f"Using a target size ({t}) that is different to the input size ({i}) is "
                         "deprecated. Please ensure they have the same size." if deprecated else
                         f"Target size ({t}) must be the same as input size ({i})")


def _broadcast_warning(input, target):
    """PyTorch's warning where a regression loss's target and input differ in size (a (3, 1)
    input and a (3,) target broadcast to (3, 3): the classic silent mistake)."""
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size (torch.Size({list(target.shape)})) that is different to "
                      f"the input size (torch.Size({list(input.shape)})). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=user_stacklevel())


@_named("MseLoss")
@composite("2 (input - target) / n", "-2 (input - target) / n")  # n: 1 for reduction='sum'
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _broadcast_warning(input, target)
    d = (input - target) ** 2
    return reduced(d if weight is None else d * weight, reduction)


@composite("sign(input - target) / n", "-sign(input - target) / n")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _broadcast_warning(input, target)
    return reduced(ops.absolute(input - target), reduction)


@_named("SmoothL1Loss")
@composite("(input - target) / beta inside beta, else sign", "its negative")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _broadcast_warning(input, target)
    d = input - target
    a = ops.absolute(d)
    if beta == 0:
        return reduced(a, reduction)
    return reduced(ops.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)


@_named("HuberLoss")
@composite("input - target inside delta, else delta sign", "its negative")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _broadcast_warning(input, target)
    d = input - target
    a = ops.absolute(d)
    loss = ops.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    return reduced(loss if weight is None else loss * weight, reduction)


@_named("BinaryCrossEntropyWithLogits")
@composite("sigmoid(input) - target (times the weights)", "-input")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """``(1 - z) x + (1 + (pos_weight - 1) z) log(1 + exp(-x))``, stable for any logit ``x``,
    with PyTorch's gradient ``w sigmoid(x) - (z + w - 1)`` (``losses.LOGIT_LOSS``)."""
    _same_size(input, target)
    scale = 1 if pos_weight is None else 1 + (pos_weight - 1) * target
    loss = logit_loss(input, target, scale)
    return reduced(loss if weight is None else loss * weight, reduction)


EPSILON = np.float32(1e-12)  # PyTorch's floor of x (1 - x) in the gradient (a float constant)


class BinaryCrossEntropy(Function):
    """The elementwise loss ``-w (z log x + (1 - z) log(1 - x))``, each log clamped at -100,
    with PyTorch's own derivatives, not the clamped formula's: ``w (x - z) / max(x (1 - x),
    1e-12)`` for ``x`` (finite at 0 and 1) and ``w (log(1 - x) - log(x))`` for ``z``."""

    @staticmethod
    def forward(ctx, input, target, weight):
        ctx.save_for_backward(input, target)
        ctx.weight = weight
        with np.errstate(divide="ignore"):  # log(0) = -inf, clamped
            loss = -(target * ops.maximum(ops.log(input), -100.0)
                     + (1 - target) * ops.maximum(ops.log(1 - input), -100.0))
        return loss if weight is None else loss * weight

    @staticmethod
    def backward(ctx, grad):
        x, z = ctx.saved_tensors
        if ctx.weight is not None:
            grad = grad * ctx.weight
        gx = gz = None
        if ctx.needs_input_grad[0]:
            floor = np.asarray(EPSILON, dtype=x.dtype).astype(x.dtype)
            gx = grad * (x - z) / ops.maximum((1 - x) * x, floor)
        if ctx.needs_input_grad[1]:
            with np.errstate(divide="ignore"):
                gz = grad * (ops.log1p(-x) - ops.log(x))
        return gx, gz, None


@_named("BinaryCrossEntropy")
@composite("(input - target) / max(input (1 - input), 1e-12)", "log(1 - input) - log(input)")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-(z log x + (1 - z) log(1 - x))``, each log clamped at -100 as PyTorch clamps it,
    and PyTorch's gradient at ``x`` = 0 or 1 (large and finite: ``BinaryCrossEntropy``)."""
    _same_size(input, target, deprecated=True)
    x = np.asarray(input.numpy(force=True))
    if np.any((x < 0) | (x > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    return reduced(BinaryCrossEntropy.apply(input, target, weight), reduction)


def _class_axis_last(t):
    """(N, C, d1, ...) as (N, d1, ..., C): the class axis last (a 1-d input is one sample)."""
    return t if t.ndim <= 2 else ops.moveaxis(t, 1, -1)


@_named("NllLoss")
@composite("softmax(input) - one_hot(target), weighted", "none (class indices)")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """``-input[n, target[n]] * weight[target[n]]``, the mean over the weights of the targets
    not ignored, for ``input`` of log-probabilities (N, C) or (C,)."""
    return _picked(_class_axis_last(input), target, weight, ignore_index, reduction, 0.0)


@_named("NllLoss")
@composite("softmax(input) - target, weighted", "none (class indices) or -log_softmax(input)")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, 1), target)`` for class indices; for class
    probabilities, ``-sum(weight * target * log_softmax(input))`` per sample."""
    logp = _class_axis_last(input).log_softmax(-1)
    if np.asarray(target.value).dtype.kind == "f":  # class probabilities, of input's shape
        _same_size(input, target)
        classes = logp.shape[-1]
        p = _class_axis_last(target)
        if label_smoothing:
            p = p * (1 - label_smoothing) + label_smoothing / classes
        terms = p * logp if weight is None else p * logp * weight
        return reduced(-terms.sum(-1), reduction)
    return _picked(logp, target, weight, ignore_index, reduction, label_smoothing)


def _picked(logp, target, weight, ignore_index, reduction, smoothing):
    """The negative log-probabilities of the target classes (class axis last), weighted,
    ``ignore_index`` left out, mixed with their mean over the classes by ``smoothing``."""
    classes = logp.shape[-1]
    t = np.asarray(target.value)
    kept = t != ignore_index
    bad = t[kept & ((t < 0) | (t >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")
    safe = np.where(kept, t, 0)
    picked = ops.squeeze(statistics.take_along_axis(logp, np.expand_dims(safe, -1), axis=-1), -1)
    w = np.ones(classes, logp.dtype) if weight is None else np.asarray(weight.value)
    w_t = np.where(kept, w[safe], 0).astype(logp.dtype)
    loss = -picked * w_t
    if smoothing:
        spread = -(logp * w).sum(-1) * np.where(kept, 1, 0).astype(logp.dtype)
        loss = loss * (1 - smoothing) + spread * (smoothing / classes)
    if reduction == "mean":
        total = float(w_t.sum())
        if total == 0:  # every target ignored: nan, as PyTorch's, and no gradient reaches the
            return loss.sum() + np.nan  # input (0 / 0 in the rule would make it all nan)
        return loss.sum() / total
    return reduced(loss, reduction)


__all__ = ["linear", "relu", "sigmoid", "tanh", "softplus", "softmax", "log_softmax", "leaky_relu", "elu",
           "selu", "silu", "gelu", "logsigmoid", "softsign", "hardtanh", "relu6", "mse_loss",
           "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits",
           "binary_cross_entropy", "nll_loss", "cross_entropy", "normalize", "cosine_similarity",
           "one_hot", "embedding", "pad", "layer_norm", "dropout", "conv1d", "conv2d",
           "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool2d",
           "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "lp_pool1d", "lp_pool2d",
           "batch_norm", "instance_norm", "group_norm", "local_response_norm",
           "hardswish", "hardsigmoid", "mish", "softmin", "softshrink", "hardshrink", "tanhshrink",
           "threshold", "threshold_", "celu", "celu_", "glu", "prelu", "rrelu", "rrelu_", "relu_",
           "elu_", "selu_", "leaky_relu_", "hardtanh_",
           "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "pairwise_distance", "pdist", "pixel_shuffle",
           "pixel_unshuffle", "unfold", "fold", "interpolate", "upsample", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "gumbel_softmax", "upsample_nearest",
           "upsample_bilinear", "affine_grid", "grid_sample"]


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.torch.nn.functional.{name} does not exist: it maps {', '.join(__all__)}; "
        "max_unpool, lp_pool3d and fractional pooling are out of scope")
