"""``jax.lax``'s elementwise, shape, reduction and cumulative primitives, ``jax.nn``'s
further activations, and ``jax.jacobian`` on gradmagic.jax: values and gradients (of the
output weighted 1, 2, 3 ...) as JAX's, and ``lax``'s strict dtypes in JAX's words.

Each case is JAX code on the namespace ``jax``; the expected results are what JAX 0.10.2
(CPU, float32) gave running the same function with the real ``jax`` (pasted below).
Floats agree to float32's rounding: JAX's and NumPy's float32 functions differ in the last
bits (tanh, sqrt), so they are compared to 2e-6 relative, or 5e-7 absolute (a few
float32 ulps of numbers near 1, where ``1 - tanh^2`` cancels).
"""

import numpy as np
import pytest
from _cases import same_to_float32 as same

import gradmagic.jax as gjax
import gradmagic.jax.numpy as jnp

nan, inf = float("nan"), float("inf")

X = [0.3, -1.2, 2.0, 0.7]
Y = [1.1, 0.4, -0.5, 0.7]


def grads(jax, f, *args):
    """The value of sum(f(*args) * weights) and its gradient in each argument."""
    jnp = jax.numpy

    def loss(*a):
        out = f(*a)
        w = jnp.arange(1.0, 1.0 + out.size).reshape(out.shape)
        return jnp.sum(out * w)
    value = f(*[jnp.array(a) for a in args])
    g = jax.grad(loss, argnums=tuple(range(len(args))))(*[jnp.array(a) for a in args])
    return [np.asarray(value).tolist(), [np.asarray(t).tolist() for t in g]]


def unary(name):
    return lambda jax: grads(jax, getattr(jax.lax, name), [0.3, 0.6, 0.9, 0.2] if name in (
        "asin", "acos", "atanh", "sqrt", "log1p") else [1.3, 1.6, 1.9, 2.5] if name == "acosh" else X)


def binary(name, y=Y):
    return lambda jax: grads(jax, getattr(jax.lax, name), X, y)


def strict_dtypes(jax):
    jnp, lax = jax.numpy, jax.lax
    out = []
    for f in (lambda: lax.add(jnp.array([1.0]), jnp.array([1], dtype=jnp.int32)),
              lambda: lax.mul(jnp.array([1.0]), 2),
              lambda: lax.exp(jnp.array([1, 2])),
              lambda: lax.add(jnp.array([1.0]), 2.5).tolist(),
              lambda: lax.add(jnp.array([1], dtype=jnp.int32), 2).tolist(),
              lambda: lax.neg(jnp.array([1, 2])).tolist()):
        try:
            out.append(f())
        except TypeError as e:
            out.append(["TypeError", str(e)])
    return out


def integer_ops(jax):
    jnp, lax = jax.numpy, jax.lax
    a, b = jnp.array([-7, 7, -6, 5]), jnp.array([2, 2, -4, -3])
    return [lax.div(a, b).tolist(), lax.rem(a, b).tolist(), lax.rem(jnp.array([-7.0, 7.0]), jnp.array([2.0, -2.0])).tolist(),
            lax.round(jnp.array([0.5, 1.5, -0.5, -2.5, 2.4])).tolist(),
            lax.round(jnp.array([0.5, 1.5, -0.5, -2.5]), lax.RoundingMethod.TO_NEAREST_EVEN).tolist(),
            lax.sign(jnp.array([-2.0, 0.0, 3.0])).tolist(), lax.bitwise_and(a, b).tolist(),
            lax.shift_left(jnp.array([1, 2]), jnp.array([2, 3])).tolist(),
            lax.is_finite(jnp.array([1.0, jnp.inf, jnp.nan])).tolist(),
            lax.iota(jnp.int32, 4).tolist(), lax.broadcasted_iota(jnp.int32, (2, 3), 1).tolist(),
            lax.full((2,), 3.0).tolist(), lax.full_like(jnp.zeros((2, 2)), 7).tolist(),
            lax.convert_element_type(jnp.array([1.7, -1.7]), jnp.int32).tolist(),
            lax.argmax(jnp.array([[1.0, 3.0], [4.0, 2.0]]), 1, jnp.int32).tolist(),
            [t.tolist() for t in lax.top_k(jnp.array([1.0, 3.0, 2.0, 3.0]), 2)]]


def shapes(jax):
    jnp, lax = jax.numpy, jax.lax
    x = jnp.arange(6.0).reshape(2, 3)
    return [lax.broadcast(jnp.array([1.0, 2.0]), (2,)).tolist(),
            lax.broadcast_in_dim(jnp.array([1.0, 2.0]), (2, 3, 2), (2,)).tolist(),
            lax.expand_dims(x, (0, 3)).shape, lax.reshape(x, (3, 2)).tolist(),
            lax.reshape(x, (3, 2), (1, 0)).tolist(), lax.squeeze(jnp.ones((1, 3, 1)), (0,)).shape,
            lax.transpose(x, (1, 0)).tolist(), lax.rev(x, (0, 1)).tolist(),
            lax.pad(jnp.array([1.0, 2.0, 3.0]), 0.0, [(1, 2, 1)]).tolist(),
            lax.pad(jnp.array([1.0, 2.0, 3.0]), -1.0, [(-1, 1, 0)]).tolist(),
            lax.pad(x, 9.0, [(0, 1, 0), (1, 0, 1)]).tolist(),
            lax.concatenate([x, x], 1).tolist(), lax.slice(jnp.arange(10.0), (1,), (8,), (3,)).tolist(),
            lax.slice_in_dim(x, 1, 3, axis=1).tolist(), lax.index_in_dim(x, 1, 1, False).tolist(),
            lax.dot_general(jnp.arange(24.0).reshape(2, 3, 4), jnp.arange(40.0).reshape(2, 4, 5),
                            (((2,), (1,)), ((0,), (0,)))).tolist(),
            lax.dot(x, jnp.ones((3, 2))).tolist(), lax.reduce_sum(x, (1,)).tolist(),
            lax.reduce_max(x, (0,)).tolist(), lax.reduce_prod(x + 1, (0, 1)).tolist(),
            lax.cumsum(jnp.array([1.0, 2.0, 3.0]), reverse=True).tolist(),
            lax.cumlogsumexp(jnp.array([0.0, 1.0, 2.0])).tolist(),
            lax.cummin(jnp.array([3.0, 1.0, 2.0, 0.5])).tolist()]


def nn_values(jax):
    jnp, nn = jax.numpy, jax.nn
    x = jnp.array([-3.5, -0.4, 0.0, 0.8, 3.2])
    return [nn.hard_sigmoid(x).tolist(), nn.hard_silu(x).tolist(), nn.hard_swish(x).tolist(),
            nn.mish(x).tolist(), nn.squareplus(x).tolist(), nn.squareplus(x, 1.0).tolist(),
            nn.log1mexp(jnp.array([0.01, 0.5, 1.0, 5.0])).tolist(),
            nn.glu(jnp.arange(8.0).reshape(2, 4) / 4).tolist(),
            nn.logmeanexp(jnp.arange(6.0).reshape(2, 3), axis=1).tolist(),
            nn.standardize(jnp.arange(6.0).reshape(2, 3), axis=1).tolist(),
            nn.identity(x).tolist(), nn.tanh(x).tolist()]


CASES = {
    **{f"unary {n}": unary(n) for n in ("exp2", "log1p", "expm1", "sin", "cos", "tan", "asin", "acos",
                                        "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
                                        "sqrt", "cbrt", "logistic", "abs", "neg", "square",
                                        "reciprocal", "floor", "ceil")},
    **{f"binary {n}": binary(n) for n in ("add", "sub", "mul", "div", "max", "min", "atan2")},
    "binary max ties": lambda jax: grads(jax, jax.lax.max, [1.0, 2.0, 2.0], [2.0, 2.0, 1.0]),
    "pow": lambda jax: grads(jax, jax.lax.pow, [0.3, 1.2, 2.0, 0.7], Y),
    "round grad": lambda jax: grads(jax, jax.lax.round, X),
    "cummax grad": lambda jax: grads(jax, jax.lax.cummax, [1.0, 3.0, 2.0, 3.0]),
    "cummin reverse grad": lambda jax: grads(jax, lambda a: jax.lax.cummin(a, reverse=True), [1.0, 3.0, 2.0, 3.0]),
    "cumsum grad": lambda jax: grads(jax, lambda a: jax.lax.cumsum(a, reverse=True), X),
    "cumprod grad": lambda jax: grads(jax, jax.lax.cumprod, X),
    "cumlogsumexp grad": lambda jax: grads(jax, jax.lax.cumlogsumexp, X),
    "pad grad": lambda jax: grads(jax, lambda a: jax.lax.pad(a, 0.0, [(2, -1, 1)]), X),
    "dot_general grad": lambda jax: grads(jax, lambda a, b: jax.lax.dot_general(
        a.reshape(2, 2), b.reshape(2, 2), (((1,), (0,)), ((), ()))), X, Y),
    "broadcast_in_dim grad": lambda jax: grads(jax, lambda a: jax.lax.broadcast_in_dim(a, (3, 4), (1,)), X),
    "reduce_max grad": lambda jax: grads(jax, lambda a: jax.lax.reduce_max(a.reshape(2, 2), (1,)), [1.0, 1.0, 0.5, 2.0]),
    "nn grads": lambda jax: [grads(jax, f, [-3.5, -0.4, 0.8, 3.2])[1] for f in (
        jax.nn.hard_sigmoid, jax.nn.hard_silu, jax.nn.mish, jax.nn.squareplus, jax.nn.tanh,
        lambda a: jax.nn.log1mexp(a * a + 0.01), lambda a: jax.nn.glu(a),
        lambda a: jax.nn.standardize(a), lambda a: jax.nn.logmeanexp(a, keepdims=True))],
    "jacobian": lambda jax: np.asarray(jax.jacobian(lambda a: a ** 2)(jax.numpy.array([1.0, 2.0]))).tolist(),
    "strict dtypes": strict_dtypes,
    "integer and misc": integer_ops,
    "shapes": shapes,
    "nn values": nn_values,
}


JAX = {'binary add': [[1.4000000953674316, -0.8000000715255737, 1.5, 1.399999976158142],
                [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]],
 'binary atan2': [[0.2662520706653595, -1.249045729637146, 1.815774917602539, 0.7853981852531433],
                  [[0.8461537957191467, 0.5, -0.3529411852359772, 2.857142925262451],
                   [-0.23076923191547394, 1.5, -1.4117647409439087, -2.857142925262451]]],
 'binary div': [[0.27272728085517883, -3.0, -4.0, 1.0],
                [[0.9090908765792847, 5.0, -6.0, 5.714285850524902],
                 [-0.24793387949466705, 14.999999046325684, -24.0, -5.714285373687744]]],
 'binary max': [[1.100000023841858, 0.4000000059604645, 2.0, 0.699999988079071],
                [[0.0, 0.0, 3.0, 2.0], [1.0, 2.0, 0.0, 2.0]]],
 'binary max ties': [[2.0, 2.0, 2.0], [[0.0, 1.0, 3.0], [1.0, 1.0, 0.0]]],
 'binary min': [[0.30000001192092896, -1.2000000476837158, -0.5, 0.699999988079071],
                [[1.0, 2.0, 0.0, 2.0], [0.0, 0.0, 3.0, 2.0]]],
 'binary mul': [[0.33000001311302185, -0.48000001907348633, -1.0, 0.4899999797344208],
                [[1.100000023841858, 0.800000011920929, -1.5, 2.799999952316284],
                 [0.30000001192092896, -2.4000000953674316, 6.0, 2.799999952316284]]],
 'binary sub': [[-0.800000011920929, -1.600000023841858, 2.5, 0.0],
                [[1.0, 2.0, 3.0, 4.0], [-1.0, -2.0, -3.0, -4.0]]],
 'broadcast_in_dim grad': [[[0.30000001192092896, -1.2000000476837158, 2.0, 0.699999988079071],
                            [0.30000001192092896, -1.2000000476837158, 2.0, 0.699999988079071],
                            [0.30000001192092896, -1.2000000476837158, 2.0, 0.699999988079071]],
                           [[15.0, 18.0, 21.0, 24.0]]],
 'cumlogsumexp grad': [[0.30000001192092896,
                        0.5014132857322693,
                        2.2016713619232178,
                        2.402780055999756],
                       [[3.5715715885162354,
                         0.5737950801849365,
                         5.125927448272705,
                         0.728705644607544]]],
 'cummax grad': [[1.0, 3.0, 3.0, 3.0], [[1.0, 7.0, 0.0, 2.0]]],
 'cummin reverse grad': [[1.0, 2.0, 2.0, 3.0], [[1.0, 0.0, 5.0, 4.0]]],
 'cumprod grad': [[0.30000001192092896,
                   -0.36000001430511475,
                   -0.7200000286102295,
                   -0.5040000081062317],
                  [[-15.320001602172852,
                    4.080000400543213,
                    -2.0880000591278076,
                    -2.880000114440918]]],
 'cumsum grad': [[1.7999999523162842, 1.5, 2.700000047683716, 0.699999988079071],
                 [[1.0, 3.0, 6.0, 10.0]]],
 'dot_general grad': [[[0.9300000667572021, -0.7200000286102295],
                       [1.850000023841858, 1.2899999618530273]],
                      [[1.9000000953674316,
                        0.8999999761581421,
                        4.900000095367432,
                        1.2999999523162842],
                       [6.300000190734863,
                        8.600000381469727,
                        0.8999999165534973,
                        0.39999985694885254]]],
 'integer and misc': [[-3, 3, 1, -1],
                      [-1, 1, -2, 2],
                      [-1.0, 1.0],
                      [1.0, 2.0, -1.0, -3.0, 2.0],
                      [0.0, 2.0, -0.0, -2.0],
                      [-1.0, 0.0, 1.0],
                      [0, 2, -8, 5],
                      [4, 16],
                      [True, False, False],
                      [0, 1, 2, 3],
                      [[0, 1, 2], [0, 1, 2]],
                      [3.0, 3.0],
                      [[7.0, 7.0], [7.0, 7.0]],
                      [1, -1],
                      [1, 0],
                      [[3.0, 3.0], [1, 3]]],
 'jacobian': [[2.0, 0.0], [0.0, 4.0]],
 'nn grads': [[[0.0, 0.3333333432674408, 0.5, 0.0]],
              [[0.0, 0.7333333492279053, 2.299999952316284, 4.0]],
              [[-0.0727604329586029, 0.6951457262039185, 3.0037648677825928, 4.062979698181152]],
              [[0.06587843596935272, 0.8038838505744934, 2.0570859909057617, 3.6959967613220215]],
              [[0.00364077091217041, 1.7112774848937988, 1.6771650314331055, 0.02649625390768051]],
              [[-3.316268339403905e-05,
                -8.634421348571777,
                5.242802143096924,
                0.0009051831439137459]],
              [[0.6899744868278503, 1.921668529510498, -0.7486839294433594, -0.03010542504489422]],
              [[0.04644894599914551,
                -0.12666982412338257,
                0.06033182144165039,
                0.019889116287231445]],
              [[0.0010997429490089417,
                0.024412032216787338,
                0.0810507982969284,
                0.893437385559082]]],
 'nn values': [[0.0, 0.4333333373069763, 0.5, 0.6333333253860474, 1.0],
               [-0.0, -0.1733333319425583, 0.0, 0.5066666603088379, 3.200000047683716],
               [-0.0, -0.1733333319425583, 0.0, 0.5066666603088379, 3.200000047683716],
               [-0.10409574210643768,
                -0.18891650438308716,
                0.0,
                0.6596998572349548,
                3.190197706222534],
               [0.2655644416809082,
                0.8198038935661316,
                1.0,
                1.4770328998565674,
                3.4867963790893555],
               [0.07002747058868408, 0.3385164737701416, 0.5, 1.04031240940094, 3.276305675506592],
               [-4.610166072845459,
                -0.9327521324157715,
                -0.4586751461029053,
                -0.006760749500244856],
               [[0.0, 0.16979467868804932], [0.8175744414329529, 1.0649409294128418]],
               [1.3089935779571533, 4.308993816375732],
               [[-1.2247356176376343, 0.0, 1.2247356176376343],
                [-1.224735140800476, 0.0, 1.224735140800476]],
               [-3.5, -0.4000000059604645, 0.0, 0.800000011920929, 3.200000047683716],
               [-0.9981779456138611,
                -0.37994900345802307,
                0.0,
                0.6640368700027466,
                0.9966824650764465]],
 'pad grad': [[0.0, 0.0, 0.30000001192092896, 0.0, -1.2000000476837158, 0.0, 2.0, 0.0],
              [[3.0, 5.0, 7.0, 0.0]]],
 'pow': [[0.2659704387187958, 1.0756537914276123, 0.7071067690849304, 0.7790558934211731],
         [[0.9752249717712402, 0.7171024680137634, -0.5303300619125366, 3.1162235736846924],
          [-0.3202211856842041, 0.392229825258255, 1.4703872203826904, -1.1114789247512817]]],
 'reduce_max grad': [[1.0, 2.0], [[0.5, 0.5, 0.0, 2.0]]],
 'round grad': [[0.0, -1.0, 2.0, 1.0], [[0.0, 0.0, 0.0, 0.0]]],
 'shapes': [[[1.0, 2.0], [1.0, 2.0]],
            [[[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]]],
            (1, 2, 3, 1),
            [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]],
            [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]],
            (3, 1),
            [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]],
            [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]],
            [0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.0],
            [2.0, 3.0, -1.0],
            [[9.0, 0.0, 9.0, 1.0, 9.0, 2.0],
             [9.0, 3.0, 9.0, 4.0, 9.0, 5.0],
             [9.0, 9.0, 9.0, 9.0, 9.0, 9.0]],
            [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]],
            [1.0, 4.0, 7.0],
            [[1.0, 2.0], [4.0, 5.0]],
            [1.0, 4.0],
            [[[70.0, 76.0, 82.0, 88.0, 94.0],
              [190.0, 212.0, 234.0, 256.0, 278.0],
              [310.0, 348.0, 386.0, 424.0, 462.0]],
             [[1510.0, 1564.0, 1618.0, 1672.0, 1726.0],
              [1950.0, 2020.0, 2090.0, 2160.0, 2230.0],
              [2390.0, 2476.0, 2562.0, 2648.0, 2734.0]]],
            [[3.0, 3.0], [12.0, 12.0]],
            [3.0, 12.0],
            [3.0, 4.0, 5.0],
            720.0,
            [6.0, 5.0, 3.0],
            [0.0, 1.3132617473602295, 2.4076061248779297],
            [3.0, 1.0, 1.0, 0.5]],
 'strict dtypes': [['TypeError',
                    'lax.add requires arguments to have the same dtypes, got float32, int32. (Tip: '
                    'jnp.add is a similar function that does automatic type promotion on inputs).'],
                   ['TypeError',
                    'lax.mul requires arguments to have the same dtypes, got float32, int32. (Tip: '
                    'jnp.multiply is a similar function that does automatic type promotion on '
                    'inputs).'],
                   ['TypeError',
                    'exp does not accept dtype int32. Accepted dtypes are subtypes of floating, '
                    'complexfloating.'],
                   [3.5],
                   [3],
                   [-1, -2]],
 'unary abs': [[0.30000001192092896, 1.2000000476837158, 2.0, 0.699999988079071],
               [[1.0, -2.0, 3.0, 4.0]]],
 'unary acos': [[1.2661036252975464, 0.9272952079772949, 0.4510268568992615, 1.3694384098052979],
                [[-1.048284888267517, -2.5, -6.882471084594727, -4.082482814788818]]],
 'unary acosh': [[0.7564329504966736, 1.04696786403656, 1.2571957111358643, 1.5667994022369385],
                 [[1.203858733177185, 1.6012814044952393, 1.8569533824920654, 1.7457431554794312]]],
 'unary asin': [[0.30469268560409546, 0.6435011029243469, 1.1197694540023804, 0.2013579159975052],
                [[1.048284888267517, 2.5, 6.882471084594727, 4.082482814788818]]],
 'unary asinh': [[0.29567307233810425, -1.0159732103347778, 1.4436354637145996, 0.6526665091514587],
                 [[0.9578262567520142,
                   1.2803688049316406,
                   1.3416407108306885,
                   3.2769277095794678]]],
 'unary atan': [[0.29145678877830505, -0.8760581016540527, 1.1071488857269287, 0.6107259392738342],
                [[0.9174311757087708, 0.8196721076965332, 0.6000000238418579, 2.684563636779785]]],
 'unary atanh': [[0.30951961874961853, 0.6931471824645996, 1.4722193479537964, 0.20273256301879883],
                 [[1.0989011526107788, 3.125000238418579, 15.789470672607422, 4.166666507720947]]],
 'unary cbrt': [[0.6694329380989075, -1.0626585483551025, 1.2599210739135742, 0.8879039883613586],
                [[0.7438144087791443, 0.5903659462928772, 0.6299605369567871, 1.6912459135055542]]],
 'unary ceil': [[1.0, -1.0, 2.0, 1.0], [[0.0, 0.0, 0.0, 0.0]]],
 'unary cos': [[0.9553365111351013, 0.3623577058315277, -0.416146844625473, 0.7648422122001648],
               [[-0.29552021622657776,
                 1.864078164100647,
                 -2.7278921604156494,
                 -2.5768706798553467]]],
 'unary cosh': [[1.04533851146698, 1.8106555938720703, 3.7621958255767822, 1.2551690340042114],
                [[0.30452027916908264, -3.018922805786133, 10.88058090209961, 3.034334659576416]]],
 'unary exp2': [[1.2311444282531738, 0.43527525663375854, 4.0, 1.624504804611206],
                [[0.8533642888069153, 0.6034196615219116, 8.317766189575195, 4.504083633422852]]],
 'unary expm1': [[0.3498587906360626, -0.6988058090209961, 6.389056205749512, 1.0137526988983154],
                 [[1.3498587608337402, 0.6023883819580078, 22.16716766357422, 8.055010795593262]]],
 'unary floor': [[0.0, -2.0, 2.0, 0.0], [[0.0, 0.0, 0.0, 0.0]]],
 'unary log1p': [[0.2623642683029175, 0.4700036644935608, 0.6418538689613342, 0.18232156336307526],
                 [[0.7692307829856873, 1.25, 1.5789474248886108, 3.3333332538604736]]],
 'unary logistic': [[0.5744425058364868,
                     0.23147521913051605,
                     0.8807970285415649,
                     0.6681877374649048],
                    [[0.24445831775665283,
                      0.3557888865470886,
                      0.3149808645248413,
                      0.8868515491485596]]],
 'unary neg': [[-0.30000001192092896, 1.2000000476837158, -2.0, -0.699999988079071],
               [[-1.0, -2.0, -3.0, -4.0]]],
 'unary reciprocal': [[3.3333332538604736, -0.8333333134651184, 0.5, 1.4285714626312256],
                      [[-11.11111068725586, -1.3888888359069824, -0.75, -8.163265228271484]]],
 'unary sin': [[0.29552021622657776, -0.9320390820503235, 0.9092974066734314, 0.6442176699638367],
               [[0.9553365111351013, 0.7247154116630554, -1.2484405040740967, 3.059368848800659]]],
 'unary sinh': [[0.30452027916908264, -1.5094614028930664, 3.6268603801727295, 0.758583664894104],
                [[1.04533851146698, 3.6213111877441406, 11.286587715148926, 5.020676136016846]]],
 'unary sqrt': [[0.547722578048706, 0.7745966911315918, 0.9486832618713379, 0.4472135901451111],
                [[0.9128708839416504, 1.29099440574646, 1.5811389684677124, 4.4721360206604]]],
 'unary square': [[0.09000000357627869, 1.440000057220459, 4.0, 0.4899999797344208],
                  [[0.6000000238418579, -4.800000190734863, 12.0, 5.599999904632568]]],
 'unary tan': [[0.30933627486228943, -2.5721518993377686, -2.185039758682251, 0.8422883749008179],
               [[1.0956889390945435, 15.23193073272705, 17.323196411132812, 6.837799072265625]]],
 'unary tanh': [[0.2913126051425934, -0.8336545825004578, 0.9640275835990906, 0.6043677926063538],
                [[0.915136992931366, 0.6100401878356934, 0.21195244789123535, 2.5389583110809326]]]}



@pytest.mark.parametrize("name", sorted(CASES))
def test_as_jax(name):
    got = CASES[name](gjax)
    assert same(got, JAX[name]), (got, JAX[name])


def test_a_numpy_function_without_a_rule_runs_as_numpys_where_no_gradient_is_lost():
    # (it raised NoGradientError on integer arrays, with no tape anywhere)
    assert jnp.left_shift(jnp.array([1, 2]), jnp.array([2, 3])).tolist() == [4, 16]
    assert np.gcd(jnp.array([4, 6]), 4).tolist() == [4, 2]


def test_looking_up_jnp_max_does_not_change_jnp_take():
    # jnp.max was cached as jax.numpy's module-level `max`, which its own take then called
    jnp.max(jnp.array([1.0])), jnp.any(jnp.array([True]))
    a = jnp.array([1.0, 2.0, 3.0])
    assert jnp.take(a, jnp.array([5, -1, 1]), mode="wrap").tolist() == [3.0, 3.0, 2.0]


def test_scipy_special_ndtr_erfinv_and_ndtri_as_jax():
    # JAX 0.10.2 printed these (float32); ndtr(-10) was 0 before (1 + erf(x / sqrt(2))) / 2
    import gradmagic.jax.scipy.special as sp
    x, p = jnp.array([-10.0, -1.0, 0.5, 3.0]), jnp.array([0.01, 0.3, 0.5, 0.99])
    got = [sp.ndtr(x).tolist(), gjax.grad(lambda v: sp.ndtr(v).sum())(x).tolist(),
           sp.erfinv(p).tolist(), gjax.grad(lambda v: sp.erfinv(v).sum())(p).tolist(),
           sp.ndtri(p).tolist(), gjax.grad(lambda v: sp.ndtri(v).sum())(p).tolist(),
           gjax.lax.erf_inv(p).tolist()]
    assert same(got, [
        [7.619852819271277e-24, 0.15865527093410492, 0.6914624571800232, 0.998650074005127],
        [7.694598494446235e-23, 0.2419707477092743, 0.3520653247833252, 0.004431850742548704],
        [0.008862501010298729, 0.27246275544166565, 0.4769362807273865, 1.821386694908142],
        [0.8862965703010559, 0.9545204043388367, 1.1125849485397339, 24.450908660888672],
        [-2.326347827911377, -0.5244004726409912, 0.0, 2.326348304748535],
        [37.52043151855469, 2.876103639602661, 2.5066282749176025, 37.52046585083008],
        [0.008862501010298729, 0.27246275544166565, 0.4769362807273865, 1.821386694908142]])


def test_a_negative_start_counts_from_the_end_as_jaxs():
    # JAX 0.10.2 printed these; a start of -1 was taken modulo n + 1 (the empty slice [3:3])
    x = jnp.arange(6.0).reshape(2, 3)
    assert gjax.lax.index_in_dim(x, -1, 1, False).tolist() == [2.0, 5.0]
    assert gjax.lax.slice_in_dim(x, -2, None, axis=1).tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert gjax.lax.slice_in_dim(x, -3, -1, axis=1).tolist() == [[0.0, 1.0], [3.0, 4.0]]
