"""Variables and tensors as TensorFlow code uses them around autodiff, from TensorFlow 2.21.0
(tensorflow-cpu, eager): sliced assignment (``v[0, 1].assign(10.0)``), the scatter methods
with ``tf.IndexedSlices``, ``ref()``, ``t == None``, names under name scopes and Modules, and
the ``tf.random`` functions ``categorical``, ``stateless_*`` and ``Generator`` (their numbers
are not TensorFlow's: shapes, dtypes, ranges, determinism and errors are). Every value,
gradient and error below is what TensorFlow printed for the same code."""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf


def listed(t):
    return t.numpy().tolist()


# -- sliced assignment ------------------------------------------------------------------------
def test_a_slice_of_a_variable_assigns_into_it_and_returns_it():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert v[0, 1].assign(10.0) is v and listed(v) == [[1.0, 10.0], [3.0, 4.0]]  # TF: an alias of v
    assert v[:, 0].assign([7.0, 8.0]) is v and listed(v) == [[7.0, 10.0], [8.0, 4.0]]
    v[1:].assign([[1, 2]])  # Python ints into a float32 Variable, as TensorFlow converts them
    assert listed(v) == [[7.0, 10.0], [1.0, 2.0]] and v.dtype == tf.float32
    v[0].assign(0.5)  # broadcast over the slice
    assert listed(v) == [[0.5, 0.5], [1.0, 2.0]]
    with pytest.raises(AttributeError):  # TensorFlow 2.21.0 gives a slice assign alone
        v[1:].assign_add([[1.0, 1.0]])
    # TensorFlow raises InvalidArgumentError, which gradmagic's core cannot name: a ValueError
    with pytest.raises(ValueError, match=r"Cannot broadcast input shape \[3\] into final shape \[2\]"):
        v[0].assign([1.0, 2.0, 3.0])
    assert listed(v) == [[0.5, 0.5], [1.0, 2.0]]
    g = gm.Variable(np.zeros(3), name="g")  # gradmagic's own Variables slice the same way
    g[1].assign(5.0)
    assert g.numpy().tolist() == [0.0, 5.0, 0.0] and g.name == "g"


def test_a_sliced_assign_on_the_tape_is_not_recorded_as_tensorflow():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = v * v
        v[0].assign(5.0)
        z = tf.reduce_sum(v * v)
        w = tf.reduce_sum(y)
    assert listed(tape.gradient(z, v)) == [10.0, 4.0, 6.0]  # the value after the assign
    assert listed(tape.gradient(w, v)) == [2.0, 4.0, 6.0]  # the read before it keeps its values
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        a = x[1] * 3
        x[1].assign(a)  # no gradient flows through the assigned value
        out = tf.reduce_sum(x * x)
    assert listed(tape.gradient(out, x)) == [2.0, 12.0, 6.0]


# -- the scatter methods, IndexedSlices -------------------------------------------------------
def test_the_scatter_methods_update_in_place_as_tensorflow():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert v.scatter_nd_update([[1, 1]], [99.0]) is v
    assert listed(v) == [[1.0, 2.0], [3.0, 99.0], [5.0, 6.0]]
    v.scatter_update(tf.IndexedSlices(tf.constant([[7.0, 8.0]]), tf.constant([0])))
    assert listed(v) == [[7.0, 8.0], [3.0, 99.0], [5.0, 6.0]]
    v.scatter_add(tf.IndexedSlices(tf.constant([[1.0, 1.0], [1.0, 1.0]]), tf.constant([2, 2])))
    assert listed(v) == [[7.0, 8.0], [3.0, 99.0], [7.0, 8.0]]
    v.scatter_sub(tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([2])))
    assert listed(v) == [[7.0, 8.0], [3.0, 99.0], [6.0, 7.0]]
    v.scatter_nd_add([[0, 0], [0, 0]], [1.0, 1.0])
    assert listed(v) == [[9.0, 8.0], [3.0, 99.0], [6.0, 7.0]]
    v.scatter_nd_sub([[0, 0]], [1.0])
    assert listed(v) == [[8.0, 8.0], [3.0, 99.0], [6.0, 7.0]]
    s = tf.IndexedSlices(tf.constant([[7.0, 8.0]]), tf.constant([0]), dense_shape=tf.constant([3, 2]))
    assert listed(s.values) == [[7.0, 8.0]] and listed(s.indices) == [0] and s.dtype == tf.float32
    assert s.shape == (3, 2) and listed(s.dense_shape) == [3, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = \[5, 0\] does not index "
                                                             r"into shape \[3,2\]"):
        v.scatter_nd_update([[5, 0]], [1.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        v.scatter_update(tf.IndexedSlices(tf.constant([[7.0, 8.0]]), tf.constant([7])))
    with pytest.raises(TypeError, match=r"^Argument `sparse_delta` must be a `tf.IndexedSlices`. "
                                        r"Received arg: \[1.0\]$"):
        v.scatter_update([1.0])
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        a = x * x
        x.scatter_nd_update([[0]], [10.0])
        b = tf.reduce_sum(x * x) + tf.reduce_sum(a)
    assert listed(tape.gradient(b, x)) == [22.0, 8.0, 12.0]


# -- ref(), == None ---------------------------------------------------------------------------
def test_ref_keys_by_identity_and_a_tensor_is_never_none():
    v = tf.Variable(1.0, name="w")
    t = tf.constant([1.0, 2.0])
    d = {v.ref(): 1, t.ref(): 2}
    assert d[v.ref()] == 1 and d[t.ref()] == 2 and v.ref().deref() is v and t.ref().deref() is t
    assert v.ref() == v.ref() and not v.ref() != v.ref() and t.ref() != v.ref()
    assert tf.Variable([1.0, 2.0]).ref() != tf.Variable([1.0, 2.0]).ref()
    assert repr(v.ref()) == f"<Reference wrapping {v!r}>"
    with pytest.raises(TypeError, match="^Cannot compare wrapped object with unwrapped object$"):
        v.ref() == v  # noqa: B015
    with pytest.raises(TypeError):
        hash(t)
    assert (t == None) is False and (t != None) is True  # noqa: E711  (TensorFlow: not elementwise)
    assert listed(t == tf.constant([1.0, 3.0])) == [True, False]


# -- names ------------------------------------------------------------------------------------
def test_variable_names_follow_tensorflow_s_scopes():
    assert (tf.Variable(1.0, name="w").name, tf.Variable(1.0).name) == ("w:0", "Variable:0")
    with tf.name_scope("outer") as scope:
        assert scope == "outer/"
        assert (tf.Variable(1.0, name="inner").name, tf.Variable(2.0).name) == (
            "outer/inner:0", "outer/Variable:0")
        with tf.name_scope("in2") as inner:
            assert (inner, tf.Variable(1.0, name="x").name) == ("outer/in2/", "outer/in2/x:0")
        with tf.name_scope("abs/") as absolute:  # a name ending in / is the whole scope
            assert (absolute, tf.Variable(1.0, name="y").name) == ("abs/", "abs/y:0")
        with tf.name_scope("") as root:
            assert (root, tf.Variable(1.0, name="y").name) == ("", "y:0")
    assert tf.Variable(1.0, name="a:0").name == "a:0:0"
    assert repr(tf.Variable(1.0, name="w")).startswith("<gm.Variable 'w:0' shape=()")
    assert gm.Variable(1.0, name="w").name == "w" and gm.Variable(1.0).name == "Variable"  # gm's own


class Scoped(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.v = tf.Variable(1.0, name="v")

    @tf.Module.with_name_scope
    def make(self):
        return tf.Variable(2.0, name="u")

    @tf.Module.with_name_scope
    def make_twice(self):
        return self.make().name, tf.Variable(3.0, name="t").name


def test_a_module_names_its_variables_in_its_scope():
    m = Scoped(name="the_model")
    assert (m.name, m.v.name, m.make().name, m.name_scope.name) == (
        "the_model", "the_model/v:0", "the_model/u:0", "the_model/")
    with m.name_scope as scope:
        assert scope == "the_model/"
    assert m.make_twice() == ("the_model/u:0", "the_model/t:0")  # entered inside itself
    with tf.name_scope("outer"):
        m2 = Scoped()
    assert (m2.name, m2.v.name, m2.make().name, m2.name_scope.name) == (
        "scoped", "outer/scoped/v:0", "outer/scoped/u:0", "outer/scoped/")
    with tf.name_scope("zz"):
        assert m2.make().name == "outer/scoped/u:0"  # the scope the module was made in
    assert Scoped.make.__name__ == "make" and m.trainable_variables == (m.v,)


# -- tf.random: categorical, stateless_*, Generator -------------------------------------------
def test_categorical_draws_class_indices():
    tf.random.set_seed(3)
    s = tf.random.categorical(tf.math.log([[0.5, 0.5], [0.1, 0.9]]), 5)
    assert s.shape == (2, 5) and s.dtype == tf.int64 and set(s.numpy().ravel()) <= {0, 1}
    s = tf.random.categorical([[0.0, 0.0, 0.0]], 4, dtype=tf.int32)
    assert s.shape == (1, 4) and s.dtype == tf.int32
    assert tf.random.categorical([[0.0, 0.0, 0.0]], 0).shape == (1, 0)
    never = tf.random.categorical([[0.0, -float("inf"), 0.0]], 200, seed=1).numpy()
    assert 1 not in never and {0, 2} <= set(never.ravel())
    likely = tf.random.categorical([[0.0, 5.0]], 1000, seed=2).numpy()
    assert 0.98 < likely.mean() < 1.0  # class 1 with probability e^5 / (1 + e^5) = 0.9933
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits should be a matrix, got shape "
                                                             r"\[3\]"):
        tf.random.categorical([0.0, 0.0, 0.0], 4)
    with pytest.raises(ValueError, match=r"Argument `dtype` got invalid value .*float32.*\. Accepted "
                                         r"dtypes are \(tf.int32, tf.int64\)\."):  # dtypes print as NumPy's
        tf.random.categorical([[0.0, 0.0, 0.0]], 4, dtype=tf.float32)


def test_the_stateless_functions_depend_on_the_seed_alone():
    a = tf.random.stateless_normal([2, 3], seed=[1, 2])
    assert a.shape == (2, 3) and a.dtype == tf.float32
    tf.random.normal([5])  # the global streams do not move them
    assert listed(tf.random.stateless_normal([2, 3], seed=(1, 2))) == listed(a)
    assert listed(tf.random.stateless_normal([2, 3], seed=[2, 1])) != listed(a)
    b = tf.random.stateless_normal([2], seed=[1, 2], mean=5.0, stddev=0.1, dtype=tf.float64)
    assert b.dtype == tf.float64 and np.all(np.abs(b.numpy() - 5.0) < 1.0)
    u = tf.random.stateless_uniform([3], seed=tf.constant([1, 2], tf.int64))
    assert u.dtype == tf.float32 and np.all((u.numpy() >= 0) & (u.numpy() < 1))
    assert listed(tf.random.stateless_uniform([3], seed=[1, 2])) == listed(u)
    i = tf.random.stateless_uniform([50], seed=[1, 2], minval=2, maxval=5, dtype=tf.int32)
    assert i.dtype == tf.int32 and set(i.numpy()) <= {2, 3, 4}
    full = tf.random.stateless_uniform([3], seed=[1, 2], minval=None, maxval=None, dtype=tf.int64)
    assert full.dtype == tf.int64 and full.shape == (3,)
    for seed, message in (([1, 2, 3], r"seed must have shape \[2\], not \[3\]"),
                          (1, r"seed must have shape \[2\], not \[\]"),
                          ([1.0, 2.0], "Value for attr 'Tseed' of float is not in the list of "
                                       "allowed values: int32, int64")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.random.stateless_normal([2], seed=seed)
    with pytest.raises(ValueError, match="must be both None or not None"):
        tf.random.stateless_uniform([3], seed=[1, 2], dtype=tf.int32)


def test_a_generator_has_a_state_of_its_own():
    g1, g2 = tf.random.Generator.from_seed(1), tf.random.Generator.from_seed(1)
    first = g1.normal([2, 3])
    assert first.shape == (2, 3) and first.dtype == tf.float32
    assert listed(g2.normal([2, 3])) == listed(first)  # the same seed, the same draws
    assert listed(g1.normal([2, 3])) != listed(first)  # the state moves on
    u = g1.uniform([4], minval=1.0, maxval=2.0)
    assert u.dtype == tf.float32 and np.all((u.numpy() >= 1) & (u.numpy() < 2))
    i = g1.uniform([20], minval=1, maxval=9, dtype=tf.int32)
    assert i.dtype == tf.int32 and set(i.numpy()) <= set(range(1, 9))
    assert np.all(np.abs(g1.truncated_normal([100]).numpy()) <= 2)
    g1.reset_from_seed(1)
    assert listed(g1.normal([2, 3])) == listed(first)
    assert tf.random.Generator.from_non_deterministic_state().normal([2]).shape == (2,)
    with pytest.raises(ValueError):
        g1.uniform([2], dtype=tf.int32)


def test_assign_takes_tensorflows_keywords_and_refuses_a_tensor_of_another_dtype():
    # TensorFlow 2.21.0, the same calls: read_value=False returns None; use_locking and name
    # are accepted; a Tensor of another dtype is a ValueError (an array or a list is cast)
    v = tf.Variable([1.0])
    assert v.assign([3.0], read_value=False) is None and v.numpy().tolist() == [3.0]
    assert v.assign_add([1.0], use_locking=True, name="x") is v and v.numpy().tolist() == [4.0]
    assert v.assign_sub([1.0], read_value=False) is None and v.numpy().tolist() == [3.0]
    for call in (v.assign, v.assign_add, v.assign_sub):
        with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor "
                                             "with dtype float64"):
            call(tf.constant([2.5], tf.float64))
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        v.assign(tf.constant([2]))
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float64"):
        v[0].assign(tf.constant(2.5, tf.float64))
    assert v.numpy().tolist() == [3.0]  # nothing written by a refused assign
    v.assign(np.array([2.5]))  # a NumPy array is converted, as TensorFlow converts one
    w = tf.Variable([1.0], dtype=tf.float64)
    w.assign(np.array([2.5], np.float32))
    assert v.numpy().tolist() == [2.5] and w.numpy().tolist() == [2.5] and w.dtype == tf.float64
