"""Debugging gradients: traces of the engine's work (``trace``, with its ``rows`` and
value ``names``), the mistakes found in them (``pitfalls``), ``check_grad``
(``gradcheck``) and the trace options every face shares (``options``). It listens to
``core`` through its public hooks; ``core`` never imports it.
"""
