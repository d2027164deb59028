import os

import pytest
from repo_scripts import load

from ansible_collections.aicluster.slurm.plugins.module_utils.accelerators import gather
from ansible_collections.aicluster.slurm.plugins.module_utils.gres import (
    GresError,
    accelerator_gres_conf,
    accelerator_gres_lines,
    accelerator_gres_types,
    accelerator_node_gres,
    exclusive_nodes,
    gpu_files,
    gpu_types,
    gres_lines,
    gres_types,
    node_gres,
    normalize_gpus,
    nvml_problem,
)

replay = load("tests/unit/fixtures/accelerators/replay.py")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"type": "h200", "count": 8}, {"type": "h200", "count": 8, "file": "/dev/nvidia[0-7]", "files": ["/dev/nvidia%d" % i for i in range(8)]}),
        ({"type": "a100", "count": 1}, {"type": "a100", "count": 1, "file": "/dev/nvidia0", "files": ["/dev/nvidia0"]}),
        ({"type": "h200", "count": "2"}, {"type": "h200", "count": 2, "file": "/dev/nvidia[0-1]", "files": ["/dev/nvidia0", "/dev/nvidia1"]}),
        ({"type": "l40s", "file": "/dev/nvidia[2-3]"}, {"type": "l40s", "count": 2, "file": "/dev/nvidia[2-3]", "files": ["/dev/nvidia2", "/dev/nvidia3"]}),
        (
            {"type": "b200", "count": 2, "file": "/dev/nvidia[0,4]"},
            {"type": "b200", "count": 2, "file": "/dev/nvidia[0,4]", "files": ["/dev/nvidia0", "/dev/nvidia4"]},
        ),
    ],
    ids=["count", "one", "count-as-text", "file-gives-count", "file-list"],
)
def test_normalize_gpus(value, expected):
    assert normalize_gpus("n1", value) == expected


@pytest.mark.parametrize("value", [None, {}], ids=["none", "empty"])
def test_normalize_gpus_none(value):
    assert normalize_gpus("n1", value) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("h200:8", r"slurm_node_gpus='h200:8' must be a dict"),
        ({"type": "h200", "count": 8, "cores": "0-7"}, "unknown keys cores"),
        ({"count": 8}, r"slurm_node_gpus.type=None is not a GRES type"),
        ({"type": "H200", "count": 8}, r"slurm_node_gpus.type='H200' is not a GRES type; use a lower-case"),
        ({"type": "h200:sxm", "count": 8}, "is not a GRES type"),
        ({"type": "h200"}, r"slurm_node_gpus.count=None must be a whole number"),
        ({"type": "h200", "count": 0}, r"count=0 must be a whole number of GPUs, 1 or more"),
        ({"type": "h200", "count": True}, r"count=True must be"),
        ({"type": "h200", "count": "eight"}, r"count='eight' must be"),
        ({"type": "h200", "count": 8, "file": "/dev/nvidia[0-3]"}, r"count=8 but file=/dev/nvidia\[0-3\] names 4 devices"),
        ({"type": "h200", "file": "nvidia0"}, r"file='nvidia0' is not a device path"),
        ({"type": "h200", "file": "/dev/nvidia[a-b]"}, r"is not a valid range"),
    ],
    ids=["not-dict", "unknown-key", "no-type", "upper-case", "colon", "no-count", "zero", "bool", "word", "count-vs-file", "relative", "bad-range"],
)
def test_normalize_gpus_errors_name_host_variable_and_value(value, message):
    with pytest.raises(GresError, match=message) as err:
        normalize_gpus("gpu07", value)
    assert str(err.value).startswith("host gpu07: ")


def test_node_gres():
    assert node_gres(normalize_gpus("n", {"type": "h200", "count": 8})) == "gpu:h200:8"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("gpu:h200:8", ["h200"]), ("gpu:8", []), ("gpu:H100:4,nic:1", ["h100"]), ("", []), (None, []), ("gpu:a100:2,gpu:l4:1", ["a100", "l4"])],
    ids=["typed", "untyped", "with-other-gres", "empty", "none", "two-types"],
)
def test_gpu_types(value, expected):
    assert gpu_types(value) == expected


def test_gres_lines_group_identical_declarations():
    h200 = normalize_gpus("a", {"type": "h200", "count": 8})
    l40s = normalize_gpus("c", {"type": "l40s", "count": 2})
    assert gres_lines({"gpu2": h200, "gpu1": h200, "inf1": l40s, "cpu1": None}) == [
        "NodeName=gpu[1-2] Name=gpu Type=h200 File=/dev/nvidia[0-7]",
        "NodeName=inf1 Name=gpu Type=l40s File=/dev/nvidia[0-1]",
    ]


def test_gres_lines_same_type_other_devices_split():
    four = normalize_gpus("a", {"type": "h200", "count": 4})
    eight = normalize_gpus("b", {"type": "h200", "count": 8})
    assert gres_lines({"n1": four, "n2": eight}) == [
        "NodeName=n1 Name=gpu Type=h200 File=/dev/nvidia[0-3]",
        "NodeName=n2 Name=gpu Type=h200 File=/dev/nvidia[0-7]",
    ]


def test_exclusive_nodes():
    nodes = {
        "h": {"Gres": "gpu:h200:8"},
        "mixed": {"Gres": "gpu:h200:4,gpu:l4:1"},
        "l": {"Gres": "gpu:l40s:2"},
        "untyped": {"Gres": "gpu:2"},
        "cpu": {},
    }
    assert exclusive_nodes(nodes, ["H200", "a100"]) == {"h"}
    assert exclusive_nodes(nodes, []) == set()


@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        ({}, []),
        ({"type": "h200", "count": 2}, ["/dev/nvidia0", "/dev/nvidia1"]),
        ({"type": "h200", "file": "/dev/nvidia[6-7]"}, ["/dev/nvidia6", "/dev/nvidia7"]),
        ({"type": "h200", "count": 0}, []),
    ],
    ids=["none", "count", "file", "malformed-gives-none"],
)
def test_gpu_files(gpus, expected):
    assert gpu_files(gpus) == expected


# --- GRES from what accelerator_info found (slurm_gres_discover) --------------

NPUS = {"gpus": [], "npus": [{"device_id": "0xd802", "gres_type": "910b", "device_file": "/dev/davinci0", "cores": "0-23"}]}


@pytest.fixture
def facts(tmp_path):
    def load(name):
        root = tmp_path / name
        manifest, commands = replay.materialize(name, str(root))
        return gather(str(root), commands)

    return load


def test_accelerator_h200_lines(facts):
    lines = accelerator_gres_conf(facts("h200_hgx"))
    assert lines == ["Name=gpu Type=h200 File=/dev/nvidia%d Cores=%s" % (i, "0-55" if i < 4 else "56-111") for i in range(8)]
    assert accelerator_node_gres(facts("h200_hgx")) == "gpu:h200:8"


def test_accelerator_nvml_lines_load_the_nvml_plugin_and_leave_cores_to_it(facts):
    lines = accelerator_gres_conf(facts("h200_hgx"), nvml=True)
    assert lines == ["AutoDetect=nvml"] + ["Name=gpu Type=h200 File=/dev/nvidia%d" % i for i in range(8)]
    # NPUs have no NVML: their lines keep the cores, and nothing asks for NVML.
    assert accelerator_gres_conf(facts("ascend_910b"), nvml=True)[0] == "Name=npu Type=910b File=/dev/davinci0 Cores=144-167"
    assert accelerator_gres_conf(facts("cpu_only"), nvml=True) == []


def test_accelerator_910b_lines(facts):
    lines = accelerator_gres_conf(facts("ascend_910b"))
    cores = ["144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71"]
    assert lines == ["Name=npu Type=910b File=/dev/davinci%d Cores=%s" % (i, core) for i, core in enumerate(cores)]
    assert accelerator_node_gres(facts("ascend_910b")) == "npu:910b:8"


def test_accelerator_cpu_only_host_has_nothing(facts):
    info = facts("cpu_only")
    assert accelerator_gres_conf(info) == []
    assert accelerator_node_gres(info) == ""
    assert accelerator_gres_lines({"cpu01": info}) == []
    assert accelerator_gres_types({"cpu01": info}) == []


def test_accelerator_nodes_of_one_shape_share_lines(facts):
    gpu, npu = facts("h200_hgx"), facts("ascend_910b")
    lines = accelerator_gres_lines({"gpu01": gpu, "gpu02": gpu, "npu01": npu})
    assert lines[0] == "NodeName=gpu[01-02] Name=gpu Type=h200 File=/dev/nvidia0 Cores=0-55"
    assert lines[8] == "NodeName=npu01 Name=npu Type=910b File=/dev/davinci0 Cores=144-167"
    assert len(lines) == 16
    assert accelerator_gres_types({"gpu01": gpu, "npu01": npu}) == ["gpu", "npu"]


def test_accelerator_missing_cores_and_type_override():
    info = {"gpus": [{"device_id": "0x9999", "model": "unknown 10de:9999", "gres_type": None, "device_file": "/dev/nvidia0", "cores": None}]}
    with pytest.raises(GresError, match=r"unknown 10de:9999 at None \(PCI id 0x9999\) has no GRES type; pass types=\{'0x9999': '<type>'\}"):
        accelerator_gres_conf(info)
    assert accelerator_gres_conf(info, {"0x9999": "RTX6000"}) == ["Name=gpu Type=rtx6000 File=/dev/nvidia0"]
    assert accelerator_node_gres(info, {"0x9999": "rtx6000"}) == "gpu:rtx6000:1"


def test_accelerator_mixed_types_gres_string():
    info = {
        "gpus": [
            {"device_id": "0x20b2", "gres_type": "a100", "device_file": "/dev/nvidia0", "cores": "0-7"},
            {"device_id": "0x26b9", "gres_type": "l40s", "device_file": "/dev/nvidia1", "cores": "8-15"},
            {"device_id": "0x20b2", "gres_type": "a100", "device_file": "/dev/nvidia2", "cores": "0-7"},
        ]
    }
    assert accelerator_node_gres(info) == "gpu:a100:2,gpu:l40s:1"


def test_accelerator_rejects_non_dict():
    with pytest.raises(GresError, match="accelerator facts must be the 'accelerators' dict that accelerator_info returns, not \\['gpu'\\]"):
        accelerator_gres_conf(["gpu"])


@pytest.mark.parametrize(
    ("configured", "discovered", "expected"),
    [
        ("gpu", {}, "gpu"),
        ("gpu", {"n1": NPUS}, "gpu,npu"),
        ("", {"n1": NPUS}, "npu"),
        ("gpu,npu", {"n1": NPUS}, "gpu,npu"),
        ("", {}, None),
    ],
)
def test_gres_types(configured, discovered, expected):
    assert gres_types(configured, discovered) == expected


# ---------------------------------------------------------------- MIG

MIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "accelerators", "mig", "")


def _read(path):
    with open(path) as handle:
        return handle.read()


@pytest.fixture
def mig_facts(tmp_path):
    """The H200 host with the reconstructed MIG layout (fixtures/accelerators/mig/README.md)."""

    def load(lgi="h200_mig_lgi.txt", lci="h200_mig_lci.txt"):
        root = tmp_path / "h200_mig"
        _manifest, commands = replay.materialize("h200_hgx", str(root))
        for key, name in (("nvidia-smi mig -lgi", lgi), ("nvidia-smi mig -lci", lci)):
            commands[key] = _read(name if name.startswith("/") else MIG_DIR + name) if name else None
        return gather(str(root), commands)

    return load


def test_mig_devices_from_nvidia_smi(mig_facts):
    info = mig_facts()
    mig = info["mig"]
    assert mig["gpus"] == list(range(8))
    assert len(mig["devices"]) == 4 * 7 + 3 * 2 + 1
    assert mig["devices"][0] == {"gpu": 0, "gi": 7, "ci": 0, "profile": "1g.18gb"}
    assert mig["idle_instances"] == [{"gpu": 7, "gi": 2, "profile": "3g.71gb"}]
    assert "MIG GPU instance 2 (3g.71gb) on GPU 7 has no compute instance: no job can use it" in info["warnings"]


def test_no_mig_without_output(facts):
    assert facts("h200_hgx")["mig"] == {"gpus": [], "devices": [], "idle_instances": []}


def test_mig_needs_nvml(mig_facts):
    with pytest.raises(GresError, match=r"MIG is enabled \(GPU 0: 7 x 1g.18gb; .*GPU 7: 1 x 3g.71gb\), and without NVML slurmd cannot see"):
        accelerator_node_gres(mig_facts())
    with pytest.raises(GresError, match="set slurm_gres_nvml: true"):
        accelerator_gres_conf(mig_facts())


def test_mig_with_nvml_types_each_profile(mig_facts):
    info = mig_facts()
    assert accelerator_node_gres(info, nvml=True) == "gpu:1g.18gb:28,gpu:3g.71gb:7"
    assert accelerator_gres_conf(info, nvml=True) == ["AutoDetect=nvml"]
    assert accelerator_gres_lines({"gpu01": info, "gpu02": info}, nvml=True) == ["NodeName=gpu[01-02] AutoDetect=nvml"]


def test_mig_on_some_gpus_only_is_refused(mig_facts, tmp_path):
    lgi = _read(MIG_DIR + "h200_mig_lgi.txt")
    lci = _read(MIG_DIR + "h200_mig_lci.txt")
    (tmp_path / "lgi.txt").write_text("\n".join(line for line in lgi.splitlines() if not line.startswith(("|   4", "|   5", "|   6", "|   7"))))
    (tmp_path / "lci.txt").write_text("\n".join(line for line in lci.splitlines() if not line.startswith(("|   4", "|   5", "|   6", "|   7"))))
    info = mig_facts(str(tmp_path / "lgi.txt"), str(tmp_path / "lci.txt"))
    with pytest.raises(GresError, match="and not on GPUs 4, 5, 6, 7: .*partition every GPU of the node, or none"):
        accelerator_node_gres(info, nvml=True)


def test_preflight_refuses_mig_without_nvml(mig_facts):
    from ansible_collections.aicluster.slurm.plugins.module_utils.preflight import check_discovered_gres

    facts = {"processor_count": 2, "processor_cores": 56, "processor_threads_per_core": 2, "memtotal_mb": 2000000}
    (finding,) = check_discovered_gres("gpu01", facts, 0, {"CPUs": 224, "Sockets": 2, "CoresPerSocket": 56, "ThreadsPerCore": 2}, mig_facts())
    assert finding["variable"] == "slurm_gres_nvml"
    assert finding["message"].startswith("host gpu01: MIG is enabled (GPU 0: 7 x 1g.18gb;")
    assert check_discovered_gres("gpu01", facts, 0, {"CPUs": 224, "Sockets": 2, "CoresPerSocket": 56, "ThreadsPerCore": 2}, mig_facts(), True) == []


def test_nvml_problem_none_where_the_plugin_is_installed():
    found = ["/usr/lib/x86_64-linux-gnu/slurm-wlm/gpu_nvml.so", "24.11.5-4+deb13u1"]
    assert nvml_problem("n1", found, {"rc": 100}, ["slurm-wlm-nvml-plugin"]) == ""
    assert nvml_problem("n1", found) == ""


def test_nvml_problem_debian_plugin_installable_or_not():
    packages = ["slurm-wlm-nvml-plugin"]
    # Before Slurm is installed (preflight) and once slurmd is, apt decides for Debian's plugin.
    assert nvml_problem("n1", [], {"rc": 0, "stdout_lines": ["Inst slurm-wlm-nvml-plugin (24.11.5-2 Debian:13/contrib)"]}, packages) == ""
    refused = {"rc": 100, "stdout_lines": [], "stderr_lines": ["E: Unable to locate package slurm-wlm-nvml-plugin"]}
    problem = nvml_problem("n1", ["24.11.5-4"], refused, packages, "slurmd=24.11.5-4")
    assert problem.startswith("slurm_gres_nvml=true on n1: apt cannot install Debian's NVML plugin for slurmd ")
    assert "(slurm-wlm-nvml-plugin, slurmd=24.11.5-4): E: Unable to locate package slurm-wlm-nvml-plugin." in problem
    assert "Add the contrib component to the apt sources of n1" in problem
    assert "set slurm_gres_nvml: false" in problem
    broken = {"rc": 100, "stdout_lines": [" slurm-wlm-nvml-plugin : Depends: slurm-wlm-basic-plugins (< 24.11.6) but 25.05.1 is to be installed"]}
    assert ": slurm-wlm-nvml-plugin : Depends: slurm-wlm-basic-plugins (< 24.11.6)" in nvml_problem("n1", [], broken, packages)


def test_nvml_problem_site_slurm_without_the_plugin():
    # slurm_apt_repository: nothing for the role to install; refused only once its slurmd is installed without the plugin.
    assert nvml_problem("n1", [""]) == ""
    assert "the installed Slurm 25.05.2-1 has no NVML plugin (gpu_nvml.so)" in nvml_problem("n1", ["25.05.2-1"])
