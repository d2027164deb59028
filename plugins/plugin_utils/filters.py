# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins as thin wrappers: module_utils functions under their own names, their input errors as filter errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible.errors import AnsibleFilterError


def filter_errors(function, errors):
    """``function``, with the ``errors`` it raises turned into AnsibleFilterError with the same message."""

    @functools.wraps(function)
    def filter_function(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except errors as error:
            raise AnsibleFilterError(str(error)) from error

    return filter_function


def filters_of(functions, errors=()):
    """``{name: function}`` for a FilterModule: each function under its own name, ``errors`` (exception classes) as filter errors."""
    return {function.__name__: filter_errors(function, errors) if errors else function for function in functions}
