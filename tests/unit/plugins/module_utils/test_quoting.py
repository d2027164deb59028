"""plugins/module_utils/quoting.py: hostile strings survive the parser of each file format.

The Slurm reader below follows src/common/parse_config.c step by step (comment
cut, escape strip, the key=value regex); systemd and rclone are measured for
real in tests/secrets (a converge with such secrets) and recorded in the
module's docstring; here their quoting is read back by the rules it relies on.
"""

import re

import pytest

from ansible_collections.aicluster.slurm.plugins.module_utils import quoting

HOSTILE = [
    "plain0123456789",
    "with space",
    " leading and trailing ",
    "hash#inside",
    "#starts",
    "ends#",
    "back\\slash",
    "ends\\",
    "\\#",
    "\\\\#x",
    "dollar $HOME ${PATH} $$",
    "single 'quotes'",
    "`backquotes`",
    "semi;colon",
    "equals=sign",
    "non-ASCII é ü 中文",
    "tab-free   runs   of   spaces",
    "\u2003em space",
    "",
]


def slurm_read(line):
    """The value of ``Key=value`` as Slurm's parser (parse_config.c) reads one line of a file."""
    # _strip_comments: a # preceded by an even number of backslashes ends the line.
    backslashes, cut = 0, len(line)
    for position, char in enumerate(line):
        if char == "#" and backslashes % 2 == 0:
            cut = position
            break
        backslashes = backslashes + 1 if char == "\\" else 0
    line = line[:cut]
    # _strip_escapes: a backslash is dropped and the next character kept.
    line = re.sub(r"\\(.)", r"\1", line)
    match = re.match(r'^\s*([\w.]+)\s*([-*+/]?)=\s*(("([^"]*)")|(\S+))(\s|$)', line)
    assert match, line
    return match.group(5) if match.group(5) is not None else match.group(6)


def systemd_read(quoted):
    """A double-quoted EnvironmentFile= value as systemd reads it: a backslash escapes \\, ", $ and `."""
    assert quoted.startswith('"')
    assert quoted.endswith('"')
    body, out, position = quoted[1:-1], [], 0
    while position < len(body):
        char = body[position]
        if char == "\\" and position + 1 < len(body) and body[position + 1] in '\\"$`':
            out.append(body[position + 1])
            position += 2
            continue
        assert char != '"', quoted  # an unescaped quote would end the value
        out.append(char)
        position += 1
    return "".join(out)


@pytest.mark.parametrize("value", HOSTILE)
def test_slurm_reads_back_every_value_without_a_double_quote(value):
    assert slurm_read("StoragePass=" + quoting.slurm(value, "slurmdbd_storage_pass")) == value
    # Another key after it on the line still parses as its own.
    assert slurm_read("StoragePass=" + quoting.slurm(value, "v") + " ") == value


def test_slurm_refuses_a_double_quote_and_names_the_variable_not_the_value():
    with pytest.raises(quoting.QuotingError, match="^slurmdbd_storage_pass contains a double quote") as error:
        quoting.slurm('Zq9"Xw secret', "slurmdbd_storage_pass")
    assert "Zq9" not in str(error.value)


@pytest.mark.parametrize("value", [*HOSTILE, 'dq"inside', '"', "`"])
def test_systemd_env_reads_back_everything_printable(value):
    assert systemd_read(quoting.systemd_env(value, "minio_root_password")) == value


@pytest.mark.parametrize("value", [*HOSTILE, 'dq"inside', '"', "`", 'a`b"', '"`q'])
def test_rclone_quotes_so_nothing_is_trimmed(value):
    quoted = quoting.rclone(value, "minio_checkpoint_secret_key")
    opener = "`" if quoted.startswith("`") else '"""'
    assert quoted == opener + value + opener
    assert (opener == "`") == ("`" not in value)


@pytest.mark.parametrize("file_format", sorted(quoting.FORMATS))
@pytest.mark.parametrize("value", ["line\nbreak", "carriage\rreturn", "nul\0", "bell\a", None, True, ["a"], {"a": 1}])
def test_every_format_refuses_what_no_line_can_hold(file_format, value):
    problem = quoting.problem(value, file_format, "some_secret")
    assert problem.startswith("some_secret ")
    assert "give one line" in problem
    with pytest.raises(quoting.QuotingError):
        quoting.quote(value, file_format, "some_secret")


def test_numbers_are_text_and_unknown_formats_are_refused():
    assert quoting.quote(12345678901234, "slurm") == "12345678901234"
    assert quoting.problem("x", "toml", "v").startswith("unknown file format 'toml'")
    assert quoting.problem('a`b"""c', "rclone", "v").startswith("v contains both a backquote and")
    assert quoting.problem("x", "slurm", "v") is None
