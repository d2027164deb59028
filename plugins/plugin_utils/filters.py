# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one wrapper the filter plugins share: module_utils functions as filters, their input errors as filter errors.

The logic of every filter lives in plugins/module_utils, which raises its own
``ValueError`` subclasses (module_utils cannot import ``ansible.errors``); a
filter wraps the function so that Ansible reports the message as
``AnsibleFilterError`` instead of a traceback.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible.errors import AnsibleFilterError


def filter_errors(*errors):
    """Decorator: ``errors`` (exception classes) raised by the function become AnsibleFilterError with the same message."""

    def decorate(function):
        @functools.wraps(function)
        def filter_function(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except errors as error:
                raise AnsibleFilterError(str(error)) from error

        return filter_function

    return decorate


def filters_of(functions, errors=()):
    """``{name: function}`` for a FilterModule: each function under its own name, ``errors`` (exception classes) as filter errors."""
    if not isinstance(errors, tuple):
        errors = (errors,)
    wrap = filter_errors(*errors) if errors else (lambda function: function)
    return {function.__name__: wrap(function) for function in functions}
