"""Unit tests for plugins/plugin_utils/filters.py: the one wrapper every filter uses."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.aicluster.slurm.plugins.plugin_utils.filters import filter_errors, filters_of


class InputError(ValueError):
    pass


class OtherError(ValueError):
    pass


def check(value, limit=10):
    """Refuse values over ``limit``."""
    if value > limit:
        raise InputError("value=%r is over %d; lower it" % (value, limit))
    if value < 0:
        raise OtherError("negative")
    return value


def test_passes_arguments_and_result_through():
    wrapped = filter_errors(InputError)(check)
    assert wrapped(3) == 3
    assert wrapped(12, limit=20) == 12


def test_named_errors_become_filter_errors_with_the_same_message():
    with pytest.raises(AnsibleFilterError, match=r"^value=11 is over 10; lower it$") as caught:
        filter_errors(InputError)(check)(11)
    assert isinstance(caught.value.__cause__, InputError)


def test_several_error_classes_and_others_pass_unchanged():
    with pytest.raises(AnsibleFilterError, match="negative"):
        filter_errors(InputError, OtherError)(check)(-1)
    with pytest.raises(OtherError):
        filter_errors(InputError)(check)(-1)


def test_keeps_name_and_doc():
    wrapped = filter_errors(InputError)(check)
    assert wrapped.__name__ == "check"
    assert wrapped.__doc__ == "Refuse values over ``limit``."


def test_filters_of_maps_names_and_wraps_only_when_errors_are_named():
    plain = filters_of((check,))
    assert plain == {"check": check}
    wrapped = filters_of((check,), InputError)
    assert wrapped["check"](3) == 3
    with pytest.raises(AnsibleFilterError, match="over 10"):
        wrapped["check"](11)
