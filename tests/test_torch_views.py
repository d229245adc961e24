"""gradmagic.torch: a view sees an in-place change of its base, and an in-place op on a view
writes into its base, as PyTorch's views share their base's memory
(``gradmagic/torch/views.py``).

Every expected value was printed by PyTorch 2.13.0+cpu (NumPy 2.4, Python 3.11) running the
same program with ``import torch``; the gradients are also the hand-derived ones given beside
them.
"""

import pytest

import gradmagic.torch as torch


def test_a_view_sees_its_base_changed_in_place():
    a = torch.tensor([1.0, 2.0, 3.0])
    v = a[1:]
    a.add_(10)
    assert v.tolist() == [12.0, 13.0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_gradient_through_a_view_follows_its_base_change(dtype):
    a = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    b = a * 1
    v = b[1:]
    b.mul_(2)  # v = 2 a[1:] now: d sum(v) / da = [0, 2, 2]
    v.sum().backward()
    assert v.tolist() == [4.0, 6.0] and a.grad.tolist() == [0.0, 2.0, 2.0]
    assert v.dtype == dtype and a.grad.dtype == dtype


def test_a_base_changed_under_no_grad_passes_the_gradient_through_its_view_unchanged():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b[1:]
    with torch.no_grad():
        b.mul_(2)  # a constant change: the graph sees v as b[1:], so d sum(v) / da = [0, 1, 1]
    v.sum().backward()
    assert v.tolist() == [4.0, 6.0] and a.grad.tolist() == [0.0, 1.0, 1.0]


def test_every_kind_of_view_sees_the_change():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    t, w, e, u = a.t(), a.view(4), a[0].expand(3, 2), a.unsqueeze(0)
    p, q = a.split(1)
    s, m, tr, pm = a.unsqueeze(1).squeeze(1), a.mT, a.transpose(0, 1), a.permute(1, 0)
    a.mul_(10)
    assert t.tolist() == [[10.0, 30.0], [20.0, 40.0]] and w.tolist() == [10.0, 20.0, 30.0, 40.0]
    assert e.tolist() == [[10.0, 20.0]] * 3 and u.tolist() == [[[10.0, 20.0], [30.0, 40.0]]]
    assert p.tolist() == [[10.0, 20.0]] and q.tolist() == [[30.0, 40.0]]
    assert s.tolist() == a.tolist() and m.tolist() == tr.tolist() == pm.tolist() == t.tolist()


def test_a_view_of_a_view_sees_the_change():
    a = torch.tensor([1.0, 2.0, 3.0, 4.0])
    v = a[1:]
    w = v[1:]
    a.add_(1)
    assert v.tolist() == [3.0, 4.0, 5.0] and w.tolist() == [4.0, 5.0]


def test_views_of_aliases_see_changes_made_through_any_of_them():
    a = torch.tensor([1.0, 2.0, 3.0])
    d = a.detach()
    v, u = d[1:], a[:2]
    a.add_(1)
    d.mul_(2)
    assert v.tolist() == [6.0, 8.0] and u.tolist() == [4.0, 6.0] and a.tolist() == [4.0, 6.0, 8.0]


def test_what_used_a_view_before_the_change_keeps_its_gradient():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b[1:]
    y = v * 3  # 3 a[1:], from v's old version
    b.mul_(2)  # v = 2 a[1:]: d (sum(y) + sum(v)) / da = [0, 3 + 2, 3 + 2]
    (y.sum() + v.sum()).backward()
    assert y.tolist() == [6.0, 9.0] and a.grad.tolist() == [0.0, 5.0, 5.0]


def test_item_assignment_reaches_the_views_and_counts_their_versions():
    a = torch.tensor([1.0, 2.0, 3.0])
    v = a[1:]
    a[0] = 7
    a[2] = 9
    assert v.tolist() == [2.0, 9.0] and (v._version, a._version) == (2, 2)


def test_a_base_changed_by_a_recorded_op_gives_its_view_a_graph():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b.view(3)
    b.add_(a * 5)  # b = 6 a: d sum(v) / da = [6, 6, 6]
    v.sum().backward()
    assert v.tolist() == [6.0, 12.0, 18.0] and a.grad.tolist() == [6.0, 6.0, 6.0]
    assert v.grad_fn.name() == "AsStridedBackward0"  # as PyTorch names it


def test_an_out_argument_reaches_the_views_and_a_view_as_out_its_base():
    a = torch.tensor([1.0, 2.0, 3.0])
    v = a[1:]
    torch.exp(torch.tensor([0.0, 0.0, 0.0]), out=a)
    assert v.tolist() == [1.0, 1.0]
    torch.exp(torch.tensor([0.0, 0.0]), out=a[:2])
    torch.add(torch.tensor([1.0]), 1, out=a[2:])
    assert a.tolist() == [1.0, 1.0, 2.0]


def test_a_view_nobody_holds_is_forgotten():
    a = torch.tensor([1.0, 2.0, 3.0])
    for _ in range(5):
        a[1:]  # each made and dropped
    a.add_(1)
    kept = a[:1]
    assert [r() for r in a.views.values()] == [kept] and kept.tolist() == [2.0]  # the dead dropped


def test_a_view_made_a_leaf_sees_the_change_and_backward_then_refuses_it_as_pytorch():
    b = torch.zeros(3)
    v = b[1:]
    v.requires_grad_()
    y = (v * v).sum()
    b.add_(1)  # allowed: v is not the tensor changed
    assert v.tolist() == [1.0, 1.0] and v.requires_grad and v.grad_fn is None
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()  # v was saved before its change


def test_many_views_of_one_base_cost_what_they_are():
    a = torch.arange(20000.0)
    rows = [a[i] for i in range(20000)]  # all alive at once: each kept in constant time
    a.mul_(2)
    assert len(a.views) == 20000 and rows[3].item() == 6.0 and rows[-1].item() == 39998.0
    del rows
    assert not a.views


# -- an in-place op on a view writes into its base ----------------------------------------------
def test_item_updates_write_into_the_base():
    x = torch.zeros(3, 2)
    x[0] += 1
    x[:, 1] *= 3
    x[2].fill_(7)
    x[1, 0] -= 2
    assert x.tolist() == [[1.0, 3.0], [-2.0, 0.0], [7.0, 7.0]]


def test_a_view_changed_in_place_gives_its_base_the_gradient():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    b[1:].mul_(2)  # b = [a0, 2 a1, 2 a2]: d sum(b) / da = [1, 2, 2]
    b.sum().backward()
    assert b.tolist() == [1.0, 4.0, 6.0] and a.grad.tolist() == [1.0, 2.0, 2.0]


def test_a_row_changed_by_another_row_and_a_column_view_sees_it():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = a * 1
    c = b[:, 1]
    b[0].add_(a[1] * 10)  # b[0] = a[0] + 10 a[1]; d sum(b * b) / da = 2 b, and 2 b[0] * 10 into a[1]
    (b * b).sum().backward()
    assert b.tolist() == [[31.0, 42.0], [3.0, 4.0]] and c.tolist() == [42.0, 4.0]
    assert a.grad.tolist() == [[62.0, 84.0], [626.0, 848.0]]


def test_every_kind_of_view_writes_back():
    x = torch.zeros(4)
    x[1:][1:].add_(1)  # a view of a view
    assert x.tolist() == [0.0, 0.0, 1.0, 1.0]
    x = torch.zeros(2, 2)
    x.t()[0].add_(1)
    assert x.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    x = torch.arange(6.0).view(2, 3)
    x.view(6)[0] = 1
    assert x.tolist() == [[1.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    x = torch.arange(24.0).view(2, 3, 4)
    x.permute(2, 0, 1)[1, 0, 2] = -1
    assert x[0, 2].tolist() == [8.0, -1.0, 10.0, 11.0] and x[1, 0].tolist() == [12.0, 13.0, 14.0, 15.0]
    x = torch.arange(6.0).view(2, 3)
    x.transpose(0, 1)[2].zero_()
    x.mT[0, 1] = 9
    assert x.tolist() == [[0.0, 1.0, 0.0], [9.0, 4.0, 0.0]]
    x = torch.zeros(3)
    x.unsqueeze(0).add_(1)
    x.view(3, 1).squeeze(1)[0] = 5
    assert x.tolist() == [5.0, 1.0, 1.0]
    x = torch.zeros(3)
    x.split(2)[0].add_(1)
    assert x.tolist() == [1.0, 1.0, 0.0]


def test_a_transposed_view_changed_in_place_gives_the_gradient_back_transposed():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = a * 1
    b.t().mul_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))  # b = a * [[1, 3], [2, 4]]
    (b * b).sum().backward()  # d / da = 2 b * [[1, 3], [2, 4]]
    assert b.tolist() == [[1.0, 6.0], [6.0, 16.0]] and a.grad.tolist() == [[2.0, 36.0], [24.0, 128.0]]
    a = torch.arange(6.0, requires_grad=True)
    b = a * 1
    b.view(2, 3)[1].mul_(3)
    b.sum().backward()
    assert b.tolist() == [0.0, 1.0, 2.0, 9.0, 12.0, 15.0] and a.grad.tolist() == [1.0] * 3 + [3.0] * 3


def test_views_pytorch_refuses_to_change_are_refused_in_its_words():
    w = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used"):
        w[0] += 1
    with torch.no_grad():  # allowed there
        w[0] += 1
        w[1:].add_(5)
    assert w.tolist() == [1.0, 5.0, 5.0] and w.requires_grad and w.grad_fn is None
    x = torch.zeros(2)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers"):
        x.expand(3, 2).add_(1)
    b = torch.arange(6.0, requires_grad=True) * 1
    for piece, message in ((b.split(2)[1], "Output 1 of Split is a view"),
                           (b.split([2, 4])[0], "Output 0 of SplitWithSizes is a view"),
                           (b.chunk(3)[2], "Output 2 of Split is a view")):
        with pytest.raises(RuntimeError, match=message):
            piece.mul_(2)
