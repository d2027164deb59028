# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed GPU GRES: a node's GPU declaration, its gres.conf lines, its device files.

A node declares its GPUs with ``slurm_node_gpus``: ``{type: h200, count: 8}``
and optionally ``file`` (a Slurm device expression such as
``/dev/nvidia[0-7]``; default ``/dev/nvidia[0-<count-1>]``). The node then
gets ``Gres=gpu:h200:8`` in slurm.conf and one gres.conf line; nodes with the
same declaration share a line.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.aicluster.slurm.plugins.module_utils.hostlist import compress, expand

# A GRES type is a word Slurm matches in --gres=gpu:<type>:N and that
# AccountingStorageTRES=gres/gpu:<type> can name: no ':', ',', '=' or spaces.
_TYPE = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_DEVICE = re.compile(r"^/dev/[A-Za-z0-9_./\[\]\-,]+$")


class GresError(ValueError):
    """Bad GPU declaration; the message names the variable, the value and the fix."""


def normalize_gpus(host, value):
    """``{type, count, files}`` of one host's ``slurm_node_gpus``, or None when it has none."""
    if not value:
        return None
    if not isinstance(value, dict):
        raise GresError("host %s: slurm_node_gpus=%r must be a dict such as {type: h200, count: 8}" % (host, value))
    unknown = sorted(set(value) - {"type", "count", "file"})
    if unknown:
        raise GresError("host %s: slurm_node_gpus has unknown keys %s; use type, count and file" % (host, ", ".join(unknown)))
    gpu_type = str(value.get("type") or "").strip()
    if not _TYPE.match(gpu_type):
        raise GresError(
            "host %s: slurm_node_gpus.type=%r is not a GRES type; use a lower-case model name such as h200 or a100 "
            "(letters, digits, '.', '_', '-')" % (host, value.get("type"))
        )
    count = value.get("count")
    pattern = value.get("file")
    files = None
    if pattern:
        if not _DEVICE.match(str(pattern)):
            raise GresError("host %s: slurm_node_gpus.file=%r is not a device path such as /dev/nvidia[0-7]" % (host, pattern))
        try:
            files = expand(str(pattern))
        except ValueError as exc:
            raise GresError("host %s: slurm_node_gpus.file=%r is not a valid range (%s); write it as /dev/nvidia[0-7]" % (host, pattern, exc)) from exc
    if count is None and files is not None:
        count = len(files)
    whole = not isinstance(count, bool) and (isinstance(count, int) or str(count).isdigit())
    if not whole or int(count) < 1:
        raise GresError("host %s: slurm_node_gpus.count=%r must be a whole number of GPUs, 1 or more" % (host, count))
    count = int(count)
    if files is None:
        files = ["/dev/nvidia%d" % index for index in range(count)]
        pattern = "/dev/nvidia[0-%d]" % (count - 1) if count > 1 else "/dev/nvidia0"
    if len(files) != count:
        raise GresError("host %s: slurm_node_gpus.count=%d but file=%s names %d devices; make them agree" % (host, count, pattern, len(files)))
    return {"type": gpu_type, "count": count, "file": str(pattern), "files": files}


def node_gres(gpus):
    """The NodeName ``Gres=`` value of a normalized declaration."""
    return "gpu:%s:%d" % (gpus["type"], gpus["count"])


def gpu_types(gres_value):
    """GPU types named in a NodeName ``Gres=`` value (``gpu:h200:8,nic:1`` -> [h200])."""
    types = []
    for item in str(gres_value or "").split(","):
        parts = item.strip().split(":")
        if parts[0] == "gpu" and len(parts) == 3:
            types.append(parts[1].lower())
    return types


def gres_lines(gpus_by_node):
    """gres.conf lines: ``NodeName=<hostlist> Name=gpu Type=<t> File=<devices>``, one per declaration."""
    shapes = {}
    for node, gpus in gpus_by_node.items():
        if gpus:
            shapes.setdefault((gpus["type"], gpus["file"]), []).append(node)
    lines = []
    for (gpu_type, pattern), nodes in sorted(shapes.items(), key=lambda item: compress(item[1])):
        lines.append("NodeName=%s Name=gpu Type=%s File=%s" % (compress(nodes), gpu_type, pattern))
    return lines


def exclusive_nodes(nodes, exclusive_types):
    """Nodes whose every GPU type is in ``exclusive_types`` (whole-node GPU classes such as h200)."""
    wanted = {str(t).lower() for t in exclusive_types or ()}
    chosen = set()
    for name, attributes in nodes.items():
        types = gpu_types(attributes.get("Gres"))
        if types and set(types) <= wanted:
            chosen.add(name)
    return chosen
