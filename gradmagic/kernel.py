"""``python -m gradmagic.kernel -f CONNECTION_FILE``: an IPython kernel with gradmagic loaded.

The kernel spec that ``python -m gradmagic install-kernel`` writes starts this module. It
is ipykernel's own kernel (``IPKernelApp``, every option of ``ipykernel_launcher``
works) with two differences. The extension is loaded loudly: ``ipykernel_launcher
--ext gradmagic`` logs a failing extension to the server's terminal and starts without
it, so a notebook only says that ``%%gradtrace`` is not found. Here the failure is shown
in the first cell that runs, and ``%%gradtrace`` / ``%gradtrace`` raise an ImportError
that carries it, until the environment is fixed and the kernel restarted. And a
notebook's own ``%load_ext gradmagic`` (the tutorials start with it, to run on any
kernel) says nothing, instead of "The gradmagic extension is already loaded".
"""

import sys
import traceback

from ipykernel.kernelapp import IPKernelApp

EXTENSION = "gradmagic"


def load_extension(shell):
    """``%load_ext gradmagic`` on ``shell``; when it fails, say so where the user looks.

    Returns None when the extension loaded, else the explanation that the shell shows.
    """
    try:
        shell.extension_manager.load_extension(EXTENSION)
        return None
    except Exception:
        failure = traceback.format_exc()
    message = (f"gradmagic could not be loaded in this kernel, so %%gradtrace and %gradtrace are "
               f"not available. Loading the extension failed with:\n\n{failure}\n"
               f"Fix the Python environment of this kernel ({sys.executable}), then restart "
               "the kernel.")
    print(message, file=sys.__stderr__, flush=True)  # the log of the server that started it

    def say_once(*_):  # in the output of the first cell that runs
        shell.events.unregister("pre_run_cell", say_once)
        print(message, file=sys.stderr, flush=True)

    def gradtrace(line, cell=None):
        raise ImportError(message)

    shell.events.register("pre_run_cell", say_once)
    shell.register_magic_function(gradtrace, "line_cell", "gradtrace")
    return message


def quiet_load_ext(shell):
    """Make ``%load_ext gradmagic`` silent on ``shell`` while gradmagic is loaded; any
    other extension, and gradmagic after ``%unload_ext``, go to IPython's ``%load_ext``."""
    ipython_load_ext = shell.find_line_magic("load_ext")

    def load_ext(module_str):
        if module_str.strip() == EXTENSION and EXTENSION in shell.extension_manager.loaded:
            return None  # loaded by this kernel: nothing to do, nothing to say
        return ipython_load_ext(module_str)

    load_ext.__doc__ = ipython_load_ext.__doc__
    shell.register_magic_function(load_ext, "line", "load_ext")


class GradmagicKernelApp(IPKernelApp):
    """ipykernel's application, with ``%load_ext gradmagic`` done after the configured
    extensions and before startup files and ``exec_lines``."""

    def init_extensions(self):
        super().init_extensions()
        if load_extension(self.shell) is None:
            quiet_load_ext(self.shell)


def main(argv=None):
    GradmagicKernelApp.launch_instance(argv)


if __name__ == "__main__":
    main()
