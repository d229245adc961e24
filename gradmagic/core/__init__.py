"""The autodiff engine: values, ops and their rules, the backward walk, tapes, custom
gradients and the functional API. It imports nothing from the rest of gradmagic but
``_backend``, ``_array_api`` and ``errors``; the layers above listen to it through the
hooks of ``context.Listener``.

Its modules, bottom up: ``context`` (the stack of tapes and listeners) and ``tensor``
(values); ``primitive`` (``apply``: how an op runs and is recorded); ``ops`` (the op
catalogue) and ``vjps`` (its gradient rules), with ``fused`` (the backward primitives of
the hot rules, which have rules of their own there); ``dispatch`` (Tensor's operators and
NumPy's protocols, installed on import); ``backward`` (the walk); ``tape``
(``GradientTape``); ``custom`` (``custom_gradient``); ``api`` (``grad``,
``value_and_grad``); ``forward`` (forward mode: ``jvp``, accumulators). This package file imports none of them: ``gradmagic/__init__.py``
imports ``dispatch`` and ``vjps``, which install Tensor's operators and fill the rule table.
"""
