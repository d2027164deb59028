#!/usr/bin/python
# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: slurm_topology
short_description: Render and validate Slurm's topology.conf or topology.yaml
version_added: 0.1.0
description:
  - Builds a switch tree or a list of blocks from one source - switches declared in inventory, an C(ibnetdiscover)
    capture of a real InfiniBand fabric, or explicit blocks (NVLink domains, racks) - validates it the way slurmctld
    does, and writes C(topology.conf) (topology/tree or topology/block) or C(topology.yaml).
  - What would stop slurmctld (duplicate switch, name of 64 characters or more, a switch with both nodes and switches,
    an undefined child, a cycle) fails the task and writes nothing. What slurmctld only warns about (a node under no
    switch or under several leaves, no common root, nodes unknown to slurm.conf) is returned in RV(warnings), or fails
    the task when O(strict=true). Fabric findings (switches or adapters left out, degraded cables) are returned in
    RV(warnings) too but never fail O(strict), as slurmctld does not see them.
  - A damaged capture or GUID map (duplicate GUIDs, a truncated or garbled record, a compressed or binary file, a bad
    map line) fails the task with the file, the line and the fix; bytes that are not UTF-8 are read with a warning.
  - Output is deterministic; the file is written atomically and only when its content changes.
options:
  dest:
    description: File to write, usually C(/etc/slurm/topology.conf) or C(/etc/slurm/topology.yaml).
    type: path
    required: true
  format:
    description:
      - C(tree) writes topology.conf for topology/tree, C(block) topology.conf for topology/block (the 24.05+
        C(BlockSizes) syntax), C(yaml) topology.yaml (Slurm 25.05+).
    type: str
    choices: [tree, block, yaml]
    default: tree
  slurm_version:
    description: Slurm version the file is for; a format or construct it cannot read fails with the version needed.
    type: str
    default: "24.11"
  switches:
    description: A switch hierarchy, children only. Mutually exclusive with O(ibnetdiscover) and O(blocks).
    type: list
    elements: dict
    suboptions:
      name:
        description: Switch name.
        type: str
        required: true
      switches:
        description: Child switches, as a list or a hostlist expression.
        type: raw
      nodes:
        description: Nodes cabled to this leaf switch, as a list or a hostlist expression.
        type: raw
  ibnetdiscover:
    description:
      - Path to C(ibnetdiscover) output on the managed host. With O(ibnetdiscover_run=true) the module runs
        C(ibnetdiscover) there instead and this path is ignored.
    type: path
  ibnetdiscover_run:
    description: Run C(ibnetdiscover) on the managed host (a host of the fabric) and read its output.
    type: bool
    default: false
  guid_map:
    description: Path to a GUID to host name map (C(ibnetdiscover --node-name-map) format) for HCAs named only by their model.
    type: path
  hca_names:
    description:
      - Rail preference (for example C([mlx5_0, HCA-1])) - each host is placed under one leaf, by the first of these
        HCAs it has; a host with none of them (or without this option) is placed by its naturally first HCA. The other
        adapters are counted in RV(dropped) as C(other_rail). It is not a filter; use O(exclude) to leave hosts out.
    type: list
    elements: str
  appliance_patterns:
    description:
      - Regular expressions (searched, case-insensitive) for host names of appliances that are on the fabric but run no
        jobs; they are counted as C(appliance) in RV(dropped). Default C(ufm), C(storage), C(lustre), C(gpfs),
        C(beegfs), C(weka), C(ddn); C([]) renders them. When every host matches, they are rendered with a warning.
    type: list
    elements: str
  exclude:
    description: Regular expressions; endpoints whose host name or description matches are left out and reported.
    type: list
    elements: str
  root_name:
    description:
      - When the fabric's compute leaves are connected but no switch reaches all of them (leaf-to-leaf cables, a spine
        mesh), add a logical root switch of this name over the top switches. An empty string adds none; slurmctld then
        warns that no switch reaches all nodes.
    type: str
    default: fabric-root
  blocks:
    description:
      - Blocks for topology/block, in physical proximity order; an entry without nodes is a placeholder that keeps
        the positions of the blocks after it (Slurm aggregates adjacent blocks).
    type: list
    elements: dict
    suboptions:
      name:
        description: Block name.
        type: str
        required: true
      nodes:
        description: Nodes of the block, as a list or a hostlist expression; empty for a placeholder.
        type: raw
  block_sizes:
    description: C(BlockSizes), base block size first, then power-of-two multiples (for example C([18, 36, 72])).
    type: list
    elements: int
  nodes:
    description: The node names of slurm.conf (list or hostlist expressions), to report nodes missing from either side.
    type: list
    elements: str
  strict:
    description: Fail on what slurmctld would only warn about.
    type: bool
    default: false
  topology_name:
    description: Name of the topology in topology.yaml.
    type: str
    default: default
  extra_flat_topologies:
    description: Further topology.yaml entries of type C(flat), for partitions that should ignore the fabric.
    type: list
    elements: str
    default: []
  diagram:
    description: Also write a Graphviz DOT diagram of the switch tree to this path (tree sources only).
    type: path
  backup:
    description: Keep a timestamped copy of the previous file.
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.files
attributes:
  check_mode:
    support: full
    description: Renders and validates, reports whether the file would change, writes nothing.
  diff_mode:
    support: full
    description: Returns the old and new file content.
  platform:
    support: full
    platforms: posix
    description: Any POSIX host; O(ibnetdiscover_run) needs C(infiniband-diags).
author:
  - aicluster.slurm maintainers (@aicluster)
"""

EXAMPLES = r"""
- name: Two leaves under one spine, from inventory
  aicluster.slurm.slurm_topology:
    dest: /etc/slurm/topology.conf
    switches:
      - {name: spine1, switches: "leaf[1-2]"}
      - {name: leaf1, nodes: "gpu[001-032]"}
      - {name: leaf2, nodes: "gpu[033-064]"}
    nodes: ["gpu[001-064]"]

- name: From the fabric itself, one rail per host (mlx5_0, else HCA-1), SHARP, UFM and storage left out
  aicluster.slurm.slurm_topology:
    dest: /etc/slurm/topology.conf
    ibnetdiscover_run: true
    hca_names: [mlx5_0, HCA-1]
    exclude: ["^login"]
    strict: true
  register: topo

- name: NVL72 racks for topology/block, rack 3 missing (an empty block needs Slurm 25.05+)
  aicluster.slurm.slurm_topology:
    dest: /etc/slurm/topology.conf
    format: block
    slurm_version: "25.05"
    blocks:
      - {name: rack01, nodes: "gb[001-018]"}
      - {name: rack02, nodes: "gb[019-036]"}
      - {name: rack03}
      - {name: rack04, nodes: "gb[055-072]"}
    block_sizes: [18, 36, 72]
"""

RETURN = r"""
dest:
  description: The file written.
  returned: always
  type: str
  sample: /etc/slurm/topology.conf
summary:
  description: Levels, switch (or block) and node counts of the rendered topology.
  returned: always
  type: dict
  sample: {levels: 2, switches: 3, leaf_switches: 2, nodes: 64}
excluded:
  description: Fabric endpoints left out, each with the reason.
  returned: always
  type: list
  elements: dict
  sample: [{endpoint: "0x98039b0300a1b2c3 Mellanox Technologies Aggregation Node", reason: "SHARP aggregation node"}]
dropped:
  description:
    - Channel adapters and routers of the fabric not rendered as nodes, counted by reason (ibnetdiscover sources; every
      key present). Placed hosts plus these counts is every adapter of the capture. Also summarised in RV(warnings).
    - Keys C(sharp), C(router), C(unnamed) (model-only description - host down or unset), C(unmapped_guid) (model-only
      and not in O(guid_map)), C(junk_name) (invalid or generic names such as localhost), C(appliance), C(exclude),
      C(name_pattern), C(other_rail), C(duplicate_name), C(uncabled).
  returned: success, source ibnetdiscover
  type: dict
  sample: {sharp: 40, unnamed: 69, junk_name: 5, appliance: 2, other_rail: 347, router: 0}
dropped_switches:
  description: Switches left out - C(empty_leaf) (host-facing, no placed host), C(no_host_below), C(unreached).
  returned: success, source ibnetdiscover
  type: dict
  sample: {empty_leaf: 23, no_host_below: 0, unreached: 0}
rails:
  description: Hosts placed by each HCA name.
  returned: success, source ibnetdiscover
  type: dict
  sample: {HCA-1: 102, mlx5_0: 17}
warnings:
  description: What slurmctld would warn about, and fabric findings.
  returned: always
  type: list
  elements: str
  sample: ["2 slurm.conf nodes are under no switch (gpu[065-066]); ..."]
content:
  description: The rendered file.
  returned: always
  type: str
"""

import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.aicluster.slurm.plugins.module_utils import ibnetdiscover, topology


def _source(module):
    """The tree or blocks from the one source given, plus excluded endpoints, fabric warnings and the fabric's counts."""
    params = module.params
    if params["blocks"] is not None:
        return None, topology.blocks_from_list(params["blocks"]), [], [], [], {}
    if params["switches"] is not None:
        tree, duplicates = topology.switches_from_list(params["switches"])
        return tree, None, duplicates, [], [], {}
    notes = []
    try:
        if params["ibnetdiscover_run"]:
            rc, text, err = module.run_command([module.get_bin_path("ibnetdiscover", required=True)])
            if rc != 0:
                module.fail_json(msg="ibnetdiscover failed (rc=%d): %s" % (rc, err.strip()))
            fabric = ibnetdiscover.parse(text, source="ibnetdiscover output")
        else:
            fabric = ibnetdiscover.parse_file(params["ibnetdiscover"])
        guid_map = None
        if params["guid_map"]:
            map_text, map_notes = ibnetdiscover.read_file(params["guid_map"])
            notes += map_notes
            guid_map = ibnetdiscover.parse_guid_map(map_text, source=params["guid_map"])
        kwargs = {}
        if params["appliance_patterns"] is not None:
            kwargs["appliance_patterns"] = params["appliance_patterns"]
        result = ibnetdiscover.to_tree(
            fabric,
            guid_map=guid_map,
            hca_names=params["hca_names"],
            exclude=params["exclude"],
            root_name=params["root_name"] or None,
            **kwargs,
        )
    except (ValueError, re.error) as exc:
        module.fail_json(msg="ibnetdiscover: %s" % exc)
    warnings = notes + result["warnings"]
    line = ibnetdiscover.dropped_summary(result["dropped"])
    if line:
        warnings.append(line)
    extra = {"dropped": result["dropped"], "dropped_switches": result["dropped_switches"], "rails": result["rails"]}
    return result["switches"], None, [], result["excluded"], warnings, extra


def _current(path):
    try:
        with open(path) as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def render(module):
    """-> (content, summary, excluded, warnings); fails the module on invalid input."""
    params = module.params
    fmt = params["format"]
    tree, blocks, duplicates, excluded, warnings, extra = _source(module)
    known = None
    if params["nodes"] is not None:
        known = topology.names_of(params["nodes"])
    if blocks is not None:
        if fmt == "tree":
            module.fail_json(msg="blocks render as format block or yaml, not tree")
        errors, found = topology.validate_blocks(blocks, params["block_sizes"], known, params["slurm_version"])
        summary = topology.summary_blocks(blocks)
    else:
        if fmt == "block":
            module.fail_json(msg="format block needs blocks (NVLink domains or racks); a switch tree renders as tree or yaml")
        errors, found = topology.validate_tree(tree, duplicates, known, params["slurm_version"])
        summary = topology.summary_tree(tree) if not errors else {}
    warnings = list(warnings) + found
    if errors:
        module.fail_json(msg="invalid topology: " + "; ".join(errors), errors=errors, warnings=warnings, excluded=excluded, **extra)
    # strict agrees with slurmctld: it fails on what slurmctld itself would warn about, not on fabric findings.
    if found and params["strict"]:
        module.fail_json(msg="strict: " + "; ".join(found), warnings=warnings, excluded=excluded, **extra)

    if fmt == "yaml":
        main = {"name": params["topology_name"], "cluster_default": True}
        if blocks is not None:
            main.update(blocks=blocks, block_sizes=params["block_sizes"])
        else:
            main["tree"] = tree
        entries = [main] + [{"name": name, "flat": True} for name in params["extra_flat_topologies"]]
        lines = topology.render_yaml(entries)
    elif fmt == "block":
        lines = topology.render_blocks(blocks, params["block_sizes"])
    else:
        lines = topology.render_tree(tree)
    header = ["# Managed by aicluster.slurm.slurm_topology; changes here are overwritten."]
    return "\n".join(header + lines) + "\n", summary, excluded, warnings, tree, extra


def _write(module, dest, content):
    directory = os.path.dirname(dest) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".slurm_topology.")
    with os.fdopen(fd, "w") as handle:
        handle.write(content)
    module.atomic_move(tmp, dest)


def main():
    module = AnsibleModule(
        argument_spec={
            "dest": {"type": "path", "required": True},
            "format": {"type": "str", "choices": ["tree", "block", "yaml"], "default": "tree"},
            "slurm_version": {"type": "str", "default": "24.11"},
            "switches": {
                "type": "list",
                "elements": "dict",
                "options": {"name": {"type": "str", "required": True}, "switches": {"type": "raw"}, "nodes": {"type": "raw"}},
            },
            "ibnetdiscover": {"type": "path"},
            "ibnetdiscover_run": {"type": "bool", "default": False},
            "guid_map": {"type": "path"},
            "hca_names": {"type": "list", "elements": "str"},
            "exclude": {"type": "list", "elements": "str"},
            "appliance_patterns": {"type": "list", "elements": "str"},
            "root_name": {"type": "str", "default": "fabric-root"},
            "blocks": {"type": "list", "elements": "dict", "options": {"name": {"type": "str", "required": True}, "nodes": {"type": "raw"}}},
            "block_sizes": {"type": "list", "elements": "int"},
            "nodes": {"type": "list", "elements": "str"},
            "strict": {"type": "bool", "default": False},
            "topology_name": {"type": "str", "default": "default"},
            "extra_flat_topologies": {"type": "list", "elements": "str", "default": []},
            "diagram": {"type": "path"},
            "backup": {"type": "bool", "default": False},
        },
        mutually_exclusive=[("switches", "ibnetdiscover", "blocks"), ("switches", "ibnetdiscover_run", "blocks")],
        required_one_of=[("switches", "ibnetdiscover", "ibnetdiscover_run", "blocks")],
        supports_check_mode=True,
        add_file_common_args=True,
    )
    params = module.params
    try:
        topology.check_format(params["format"], params["slurm_version"])
        content, summary, excluded, warnings, tree, extra = render(module)
    except topology.TopologyError as exc:
        module.fail_json(msg=str(exc))

    dest = params["dest"]
    for path in (dest, params["diagram"]):
        if path and not os.path.isdir(os.path.dirname(path) or "."):
            module.fail_json(msg="directory of %s does not exist" % path)
    before = _current(dest)
    changed = before != content
    result = {"dest": dest, "summary": summary, "excluded": excluded, "warnings": warnings, "content": content}
    result.update(extra)
    if module._diff:
        result["diff"] = {"before": before, "after": content, "before_header": dest, "after_header": dest}
    if changed and not module.check_mode:
        if params["backup"] and before:
            result["backup_file"] = module.backup_local(dest)
        _write(module, dest, content)
    if params["diagram"] and tree is not None:
        dot = "\n".join(topology.render_dot(tree)) + "\n"
        if _current(params["diagram"]) != dot:
            changed = True
            if not module.check_mode:
                _write(module, params["diagram"], dot)
    if os.path.exists(dest):
        changed = module.set_fs_attributes_if_different(module.load_file_common_arguments(params), changed)
    module.exit_json(changed=changed, **result)


if __name__ == "__main__":
    main()
