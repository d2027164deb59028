"""plugins/modules/job_env_facts.py on recorded /sys, /proc and /dev trees."""

import json

import pytest
from ansible.module_utils import basic

from ansible_collections.aicluster.slurm.plugins.modules import job_env_facts

# /proc/net/route of a node with a VLAN default route on bond0.100 (metric 100)
# preferred to one on eth0 (metric 600), a link route and a down default route.
ROUTE = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t0100A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
bond0.100\t00000000\t010A0A0A\t0003\t0\t0\t100\t00000000\t0\t0\t0
ib0\t00000000\t01000B0A\t0002\t0\t0\t0\t00000000\t0\t0\t0
ib0\t0000000B\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
"""


def write(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def node(tmp_path):
    """A node with two InfiniBand HCAs, a dual-port VPI HCA (IB + Ethernet) and a RoCE NIC."""
    ib = tmp_path / "sys" / "class" / "infiniband"
    write(ib / "mlx5_0" / "ports" / "1" / "link_layer", "InfiniBand\n")
    write(ib / "mlx5_1" / "ports" / "1" / "link_layer", "InfiniBand\n")
    write(ib / "mlx5_2" / "ports" / "1" / "link_layer", "InfiniBand\n")
    write(ib / "mlx5_2" / "ports" / "2" / "link_layer", "Ethernet\n")
    write(ib / "mlx5_3" / "ports" / "1" / "link_layer", "Ethernet\n")
    write(tmp_path / "proc" / "net" / "route", ROUTE)
    return tmp_path


def test_hcas_with_the_link_layer_of_each_port(node):
    facts = job_env_facts.gather(str(node))
    assert facts["hcas"] == [
        {"name": "mlx5_0", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]},
        {"name": "mlx5_1", "ports": {"1": "InfiniBand"}, "link_layers": ["InfiniBand"]},
        {"name": "mlx5_2", "ports": {"1": "InfiniBand", "2": "Ethernet"}, "link_layers": ["Ethernet", "InfiniBand"]},
        {"name": "mlx5_3", "ports": {"1": "Ethernet"}, "link_layers": ["Ethernet"]},
    ]


def test_the_default_route_with_the_lowest_metric_that_is_up(node):
    assert job_env_facts.gather(str(node))["default_interface"] == "bond0.100"


def test_a_bare_node_has_nothing(tmp_path):
    assert job_env_facts.gather(str(tmp_path)) == {"hcas": [], "default_interface": None, "npu": False, "npu_devices": []}


def test_an_npu_node_by_its_device_files(node):
    for name in ("davinci1", "davinci0", "davinci_manager", "devmm_svm", "vdavinci100"):
        write(node / "dev" / name)
    facts = job_env_facts.gather(str(node))
    assert facts["npu"] is True
    assert facts["npu_devices"] == ["/dev/davinci0", "/dev/davinci1"]


@pytest.mark.parametrize(("vendor", "pci_class", "npu"), [("0x19e5", "0x120001", True), ("0x19e5", "0x020000", False), ("0x10de", "0x030200", False)])
def test_an_npu_node_by_its_pci_devices_before_the_driver_is_loaded(tmp_path, vendor, pci_class, npu):
    device = tmp_path / "sys" / "bus" / "pci" / "devices" / "0000:c1:00.0"
    write(device / "vendor", vendor + "\n")
    write(device / "class", pci_class + "\n")
    assert job_env_facts.gather(str(tmp_path))["npu"] is npu
    # What accelerator_info read earlier in the run is taken as is: the bus is not scanned again.
    assert job_env_facts.gather(str(tmp_path), npus_on_pci=not npu)["npu"] is (not npu)


class Exited(Exception):
    pass


def test_the_module_reports_and_warns_without_a_default_route(monkeypatch, tmp_path):
    results = []

    def exit_json(self, **kwargs):
        results.append(kwargs)
        raise Exited()

    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, message: warnings.append(message))
    args = {"root": str(tmp_path), "_ansible_check_mode": True, "_ansible_tmpdir": str(tmp_path), "_ansible_remote_tmp": str(tmp_path)}
    monkeypatch.setattr(basic, "_ANSIBLE_ARGS", json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode())
    monkeypatch.setattr(basic, "_ANSIBLE_PROFILE", "legacy", raising=False)
    with pytest.raises(Exited):
        job_env_facts.main()
    assert results[0]["changed"] is False
    assert results[0]["job_env_facts"]["default_interface"] is None
    assert warnings == ["No default IPv4 route: NCCL_SOCKET_IFNAME and HCCL_SOCKET_IFNAME are not set; set them in job_env_vars"]
