"""The one home for rfverify's exceptions.

Hypothesis-style separation: :class:`UsageError` means *the command or the
configuration is wrong*; :class:`PluginError` means *the implementation under
test misbehaved in a way that stops a check from running* (it raised, returned
NaN, a wrong shape, ...).  Neither is a verdict: a failed property is a
``CheckResult`` with status ``"fail"``, never an exception.
"""

from __future__ import annotations

__all__ = ["RfverifyError", "UsageError", "PluginError", "PLUGIN_RAISED"]


class RfverifyError(Exception):
    """Base class of every exception rfverify raises on purpose."""


class UsageError(RfverifyError, ValueError):
    """The caller's input is wrong: unknown kernel, bad parameter, malformed spec.

    The message is one line that says what is wrong and how to fix it.
    """


class PluginError(RfverifyError):
    """The implementation under test could not be exercised.

    ``implementation`` names the plug-in; ``hint`` says how to fix it.
    """

    #: A :class:`rfverify.refusals.Refusal` when the plug-in declined the call with a clean refusal (ValueError,
    #: TypeError, NotImplementedError), set by :func:`rfverify.containment.guard.call`; None otherwise.
    refusal: object = None

    def __init__(self, implementation: str, problem: str, hint: str = "") -> None:
        from rfverify.text import NAME_LIMIT, clean, strip_paths  # untrusted: the plug-in's name and words

        implementation, hint = clean(implementation, NAME_LIMIT, one_line=True), clean(hint)
        problem = strip_paths(clean(problem))  # no path of the machine (install prefix, home) in a message
        self.implementation = implementation
        self.problem = problem
        self.hint = hint
        msg = f"{implementation}: {problem}"
        if hint:
            msg += f" — {hint}"
        super().__init__(msg)


#: ``details["error_source"]`` of a check result with status ``error`` caused by the plug-in (it raised, returned a
#: wrong shape or non-finite values: a :class:`PluginError`): the only error a declared expected failure covers.
PLUGIN_RAISED = "plug-in"
