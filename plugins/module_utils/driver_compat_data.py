# Copyright: (c) 2026, aicluster.slurm contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Driver / kernel / toolkit compatibility data, kept as data.

Every row carries ``source`` (where it was read) and ``tag`` from the
research note (shared/reference/driver-compat.md): V verified, D derived from
verified facts, U uncertain. Checks never turn a U row into an error: they
report it as a warning (driver_compat.py enforces that in one place).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

_SPACK = "spack/spack-packages repos/spack_repo/builtin/packages/cuda/package.py (runfile names cuda_<toolkit>_<driver>_linux.run)"
_CSDN = "NVIDIA CUDA release notes, Table 3, copy at blog.csdn.net/ytomc/article/details/122805982"
_MVC = "docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
_SUPPORTED = "docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html (v580 page)"
_SUPPORTED_615 = "docs.nvidia.com/datacenter/tesla/drivers/615/ and /620/ supported-drivers pages"
_SUPPORT_PDF = "docs.nvidia.com/datacenter/tesla/pdf/NVIDIA_CUDA_Drivers_Support.pdf (2021)"
_AKS = "github.com/Azure/aks-gpu/pull/113"
_ARCH_MATRIX = "docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html"
_OGKM = "github.com/NVIDIA/open-gpu-kernel-modules/issues/"

# CUDA toolkit -> the driver it was released with (full feature set). Table 1.1.
CUDA_DRIVER = [
    {"cuda": "13.1.1", "driver": "590.48.01", "tag": "V", "source": _SPACK},
    {"cuda": "13.1.0", "driver": "590.44.01", "tag": "V", "source": _SPACK},
    {"cuda": "13.0.2", "driver": "580.95.05", "tag": "V", "source": _SPACK},
    {"cuda": "13.0.1", "driver": "580.82.07", "tag": "V", "source": _SPACK},
    {"cuda": "13.0.0", "driver": "580.65.06", "tag": "V", "source": _SPACK},
    {"cuda": "12.9.1", "driver": "575.57.08", "tag": "V", "source": _SPACK},
    {"cuda": "12.9.0", "driver": "575.51.03", "tag": "V", "source": _SPACK},
    {"cuda": "12.8.1", "driver": "570.124.06", "tag": "V", "source": _SPACK},
    # The release-notes table may give a lower GA floor (recalled as 570.26): U.
    {"cuda": "12.8.0", "driver": "570.86.10", "tag": "U", "source": _SPACK},
    {"cuda": "12.6.3", "driver": "560.35.05", "tag": "V", "source": _SPACK},
    {"cuda": "12.6.2", "driver": "560.35.03", "tag": "V", "source": _SPACK},
    {"cuda": "12.6.1", "driver": "560.35.03", "tag": "V", "source": _SPACK},
    {"cuda": "12.6.0", "driver": "560.28.03", "tag": "V", "source": _SPACK},
    {"cuda": "12.5.1", "driver": "555.42.06", "tag": "V", "source": _SPACK},
    {"cuda": "12.5.0", "driver": "555.42.02", "tag": "V", "source": _SPACK},
    {"cuda": "12.4.1", "driver": "550.54.15", "tag": "V", "source": _SPACK},
    {"cuda": "12.4.0", "driver": "550.54.14", "tag": "V", "source": _SPACK},
    {"cuda": "12.3.2", "driver": "545.23.08", "tag": "V", "source": _SPACK},
    {"cuda": "12.3.1", "driver": "545.23.08", "tag": "V", "source": _SPACK},
    {"cuda": "12.3.0", "driver": "545.23.06", "tag": "V", "source": _SPACK},
    {"cuda": "12.2.2", "driver": "535.104.05", "tag": "V", "source": _SPACK},
    {"cuda": "12.2.1", "driver": "535.86.10", "tag": "V", "source": _SPACK},
    {"cuda": "12.2.0", "driver": "535.54.03", "tag": "V", "source": _SPACK},
    {"cuda": "12.1.1", "driver": "530.30.02", "tag": "V", "source": _SPACK},
    {"cuda": "12.1.0", "driver": "530.30.02", "tag": "V", "source": _SPACK},
    {"cuda": "12.0.1", "driver": "525.85.12", "tag": "V", "source": _SPACK},
    {"cuda": "12.0.0", "driver": "525.60.13", "tag": "V", "source": _SPACK},
    {"cuda": "11.8.0", "driver": "520.61.05", "tag": "V", "source": _SPACK},
    {"cuda": "11.7.1", "driver": "515.65.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.7.0", "driver": "515.43.04", "tag": "V", "source": _SPACK},
    {"cuda": "11.6.2", "driver": "510.47.03", "tag": "V", "source": _SPACK},
    {"cuda": "11.6.1", "driver": "510.47.03", "tag": "V", "source": _SPACK},
    {"cuda": "11.6.0", "driver": "510.39.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.5.2", "driver": "495.29.05", "tag": "V", "source": _SPACK},
    {"cuda": "11.5.1", "driver": "495.29.05", "tag": "V", "source": _SPACK},
    {"cuda": "11.5.0", "driver": "495.29.05", "tag": "V", "source": _SPACK},
    {"cuda": "11.4.4", "driver": "470.82.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.4.3", "driver": "470.82.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.4.2", "driver": "470.57.02", "tag": "V", "source": _SPACK},
    {"cuda": "11.4.1", "driver": "470.57.02", "tag": "V", "source": _SPACK},
    {"cuda": "11.4.0", "driver": "470.42.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.3.1", "driver": "465.19.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.3.0", "driver": "465.19.01", "tag": "V", "source": _SPACK},
    {"cuda": "11.2.2", "driver": "460.32.03", "tag": "V", "source": _SPACK},
    {"cuda": "11.2.1", "driver": "460.32.03", "tag": "V", "source": _SPACK},
    {"cuda": "11.2.0", "driver": "460.27.04", "tag": "V", "source": _SPACK},
    {"cuda": "11.1.1", "driver": "455.32", "tag": "V", "source": _CSDN},
    {"cuda": "11.1.0", "driver": "455.23", "tag": "V", "source": _CSDN},
    {"cuda": "11.0.3", "driver": "450.51.06", "tag": "V", "source": _CSDN},
    {"cuda": "11.0.2", "driver": "450.51.05", "tag": "V", "source": _CSDN},
]

# Minor-version compatibility: the lowest driver that runs any CUDA <major>.x (limited features).
CUDA_MVC_FLOOR = [
    {"major": 13, "driver": "580.65.06", "tag": "V", "source": _MVC},
    {"major": 12, "driver": "525.60.13", "tag": "V", "source": _MVC},
    {"major": 11, "driver": "450.80.02", "tag": "V", "source": _MVC},
]

# Data-center driver branches (table 1.2). eol: "YYYY-MM"; "past" when the source says EOL without a date.
BRANCHES = [
    {"branch": 418, "type": "LTSB", "eol": "2022-03", "tag": "V", "source": _SUPPORT_PDF},
    {"branch": 440, "type": "NFB", "eol": "2020-11", "tag": "V", "source": _SUPPORT_PDF},
    {"branch": 450, "type": "LTSB", "eol": "2023-07", "tag": "V", "source": _SUPPORT_PDF},
    {"branch": 460, "type": "PB", "eol": "2022-01", "tag": "V", "source": _SUPPORT_PDF},
    # R470 is EOL; its date (2024-07) was not verified.
    {"branch": 470, "type": "LTSB", "eol": "past", "tag": "V", "source": _AKS},
    {"branch": 510, "type": "PB", "eol": "past", "tag": "V", "source": _AKS + "; " + _SUPPORTED},
    {"branch": 515, "type": "PB", "eol": "past", "tag": "V", "source": _AKS + "; " + _SUPPORTED},
    {"branch": 525, "type": "PB", "eol": "past", "tag": "V", "source": _AKS + "; " + _SUPPORTED},
    {"branch": 465, "type": "NFB", "eol": "past", "tag": "V", "source": _AKS},
    {"branch": 495, "type": "NFB", "eol": "past", "tag": "V", "source": _AKS},
    {"branch": 520, "type": "NFB", "eol": "past", "tag": "V", "source": _AKS},
    {"branch": 535, "type": "LTSB", "eol": "2026-06", "tag": "V", "source": _SUPPORTED + "; " + _SUPPORTED_615},
    {"branch": 550, "type": "PB", "eol": "past", "tag": "V", "source": _SUPPORTED},
    {"branch": 560, "type": "NFB", "eol": "past", "tag": "V", "source": _SUPPORTED + "; " + _AKS},
    {"branch": 565, "type": "NFB", "eol": "past", "tag": "V", "source": _SUPPORTED + "; " + _AKS},
    {"branch": 570, "type": "PB", "eol": "2026-02", "tag": "V", "source": _SUPPORTED},
    {"branch": 575, "type": "NFB", "eol": "past", "tag": "V", "source": _SUPPORTED + "; " + _AKS},
    # The v580 page says Aug 2028, the R615/R620 pages June 2028: the earlier date is kept.
    {"branch": 580, "type": "LTSB", "eol": "2028-06", "tag": "V", "source": _SUPPORTED + "; " + _SUPPORTED_615},
    {"branch": 590, "type": "NFB", "eol": None, "tag": "V", "source": "forums.developer.nvidia.com/t/current-graphics-driver-releases/28500"},
    {"branch": 595, "type": "PB", "eol": "2027-03", "tag": "V", "source": _SUPPORTED_615},
    {"branch": 610, "type": "NFB", "eol": "2026-08", "tag": "V", "source": _SUPPORTED_615},
    {"branch": 620, "type": "LTSB", "eol": "2029-09", "tag": "V", "source": _SUPPORTED_615},
]

# GPU architecture rules (table 1.3). flavour: open_required, proprietary_required or any.
_OPEN_BLOG = "NVIDIA technical blog 'NVIDIA transitions fully towards open-source GPU kernel modules' (via mirrors)"
_GSP = _OGKM + "19 (open modules need the GSP, which Turing introduced)"
ARCHITECTURES = [
    {"arch": "blackwell", "min_branch": 570, "max_branch": None, "flavour": "open_required", "tag": "V", "source": _ARCH_MATRIX + "; " + _OPEN_BLOG},
    {"arch": "hopper", "min_branch": 520, "max_branch": None, "flavour": "any", "tag": "D", "source": _ARCH_MATRIX + " (first CUDA 11.8 -> 520.61.05)"},
    {"arch": "ada", "min_branch": 520, "max_branch": None, "flavour": "any", "tag": "D", "source": _ARCH_MATRIX + " (first CUDA 11.8 -> 520.61.05)"},
    {"arch": "ampere", "min_branch": 450, "max_branch": None, "flavour": "any", "tag": "D", "source": _ARCH_MATRIX + " (first CUDA 11.0 -> 450)"},
    {"arch": "turing", "min_branch": None, "max_branch": None, "flavour": "any", "tag": "V", "source": _ARCH_MATRIX},
    {"arch": "volta", "min_branch": None, "max_branch": 580, "flavour": "proprietary_required", "tag": "V", "source": _ARCH_MATRIX + "; " + _GSP},
    {"arch": "pascal", "min_branch": None, "max_branch": 580, "flavour": "proprietary_required", "tag": "V", "source": _ARCH_MATRIX + "; " + _GSP},
    {"arch": "maxwell", "min_branch": None, "max_branch": 580, "flavour": "proprietary_required", "tag": "V", "source": _ARCH_MATRIX + "; " + _GSP},
    {"arch": "kepler", "min_branch": None, "max_branch": 470, "flavour": "proprietary_required", "tag": "V", "source": _ARCH_MATRIX},
]

# Products with their own floor or flavour rule (GRES type -> rule).
PRODUCTS = [
    {"gres_type": "a100", "min_driver": "450.80.02", "flavour": "any", "tag": "D", "source": _MVC + " (450.80.02 recommended for CUDA 11)"},
    {"gres_type": "h100", "min_driver": "520.61.05", "flavour": "any", "tag": "D", "source": _ARCH_MATRIX + " + CUDA 11.8 driver"},
    # Not verified: H200 hosts were seen on 570.124.06 and 570.172.08; policy R570.
    {"gres_type": "h200", "min_driver": "570", "flavour": "any", "tag": "U", "source": _OGKM + "943 (H200 on 570.172.08)"},
    {"gres_type": "b200", "min_driver": "570.133.20", "flavour": "open_required", "tag": "V", "source": "github.com/NVIDIA/cloud-native-docs/pull/184"},
    {"gres_type": "gb200", "min_driver": "570", "flavour": "open_required", "tag": "D", "source": "github.com/NVIDIA/cloud-native-docs/pull/184"},
    {"gres_type": "gh200", "min_driver": None, "flavour": "open_required", "tag": "V", "source": "github.com/NVIDIA/cloud-native-docs/pull/6"},
]

# Driver x kernel build breakages (table 1.4): drivers (exact versions, or max_driver inclusive) fail on kernel >= kernel_min.
KNOWN_BAD = [
    {"max_driver": "530.30.02", "kernel_min": "6.3", "symptom": "get_user_pages signature change", "tag": "V", "source": _OGKM + "469, #497"},
    {"drivers": ["535.54.03"], "kernel_min": "6.5", "symptom": "DKMS build fails (vmas removal)", "tag": "V", "source": _OGKM + "528"},
    {
        "drivers": ["525.60.13"],
        "kernel_min": "6.6",
        "symptom": "NV_GET_USER_PAGES_REMOTE build error",
        "tag": "V",
        "source": "github.com/NVIDIA/gpu-driver-container/issues/287",
    },
    {
        "drivers": ["545.29.02"],
        "flavour": "open",
        "kernel_min": "6.7",
        "symptom": "build failure in libspdm_shash.o",
        "tag": "V",
        "source": "github.com/NixOS/nixpkgs/issues/280427",
    },
    {"drivers": ["555.42.02"], "kernel_min": "6.10", "symptom": "follow_pfn() removed from the kernel", "tag": "V", "source": _OGKM + "642"},
    {"drivers": ["535.216.03"], "kernel_min": "6.12", "symptom": "follow_pfn() missing; use a newer 535 (535.230.02+)", "tag": "V", "source": _OGKM + "837"},
    {"drivers": ["565.57.01"], "kernel_min": "6.13", "symptom": "crypto_akcipher_verify implicit declaration", "tag": "V", "source": _OGKM + "746"},
    {"drivers": ["575.57.08"], "kernel_min": "6.15", "symptom": "needs the gpl_symbols_linux_615 patch", "tag": "V", "source": _OGKM + "840"},
    {"drivers": ["550.163.01", "555.58.02"], "kernel_min": "6.17", "symptom": "DKMS Error 2", "tag": "V", "source": _OGKM + "1143"},
]
# Left out: "550.x" on 6.10 (which 550 releases is not stated) and an unnamed open driver on 6.14 (driver U).

# Fabric manager package names change at R580 (table 1.5).
FABRICMANAGER_PACKAGE = {"renamed_at_branch": 580, "tag": "V", "source": "github.com/NVIDIA/gpu-driver-container ubuntu24.04/install.sh"}

# --- Ascend ------------------------------------------------------------------
_MINDIE_21RC1 = "hiascend.com/document/detail/zh/mindie/21RC1/releasenote/releasenote_0004.html"

# CANN -> compatible Ascend HDK (npu-driver + npu-firmware) versions; "X" matches any last field. Table 2.1.
CANN_HDK = [
    {"cann": "9.1.0", "hdk": ["26.1.0"], "tag": "V", "source": "hiascend.com MindCluster 26.1.0 patchnote mxreleasenote_006"},
    {"cann": "8.5.1", "hdk": ["25.5.X", "25.3.X", "25.2.X", "25.0.X"], "tag": "V", "source": "gitcode Ascend/release-management MindIE 26.0.0 release.md"},
    {"cann": "8.5.0", "hdk": ["25.5.X", "25.3.X", "25.2.X", "25.0.X"], "tag": "V", "source": "hiascend.com/document/detail/en/canncommercial/850/releasenote"},
    {"cann": "8.5.0.alpha001", "hdk": ["25.2.X"], "tag": "V", "source": "hiascend.com CANNCommunityEdition/850alpha001/releasenote"},
    {"cann": "8.2.RC1", "hdk": ["25.2.0", "25.0.RC1", "24.1.0", "24.1.RC3", "24.1.RC2"], "tag": "V", "source": _MINDIE_21RC1},
    {"cann": "8.1.RC1", "hdk": ["25.0.RC1"], "tag": "V", "source": "gitee.com/mindspore/mindformers/pulls/6638"},
    {"cann": "8.0.RC1", "hdk": ["24.1.RC1"], "tag": "V", "source": "hiascend.com mindcluster/60rc1 mxreleasenote_006"},
    # A loose MindSDK compatibility list, not a strict matrix: never an error.
    {
        "cann": "8.0.0",
        "hdk": ["23.0.2", "23.0.3", "23.0.5", "23.0.6", "24.1.RC1", "24.1.RC2", "24.1.RC3", "24.1.0"],
        "tag": "U",
        "source": "hiascend.com mindsdk/70rc1 mxreleasenote_0035",
    },
]

# Pairings seen working in ascend-deployer --test=all output (examples, not a matrix).
ASCEND_OBSERVED = [
    {"driver": "25.5.0", "firmware": "7.8.0.5.208", "cann": "8.5.0", "source": "hiascend.com mindcluster/730 deployer_0018/0034"},
    {"driver": "25.3.0", "firmware": "7.8.0.6.236", "cann": "8.3.RC1", "source": "hiascend.com mindcluster/72rc1 deployer_0034"},
    {"driver": "24.1.0.1", "firmware": "7.5.0.5.220", "cann": "8.0.0", "source": "hiascend.com mindcluster/70rc1 deployer_0034"},
    {"driver": "24.1.RC3", "firmware": "7.5.0.1.129", "cann": "8.0.0", "source": "hiascend.com mindcluster/600 deployer_0018"},
    {"driver": "24.1.RC2", "firmware": "7.3.0.1.231", "cann": "8.0.RC2", "source": "hiascend.com mindcluster/60rc3 deployer_0018"},
]

# OS and kernel listed for Ascend training products (table 2.2). kernel None: listed without a kernel pin.
# install "binary": the default kernel installs without a build; "source": the driver builds against the headers.
_PTES = "hiascend.com ModelZoo ptes_00004 table 1 (Atlas 800 training server 9000)"
_A2_POD = "hiascend.com quick-installation 24.0.RC1 900_A2_PoDc_0007 (Atlas 900 A2 PoD)"
_CANN800 = "hiascend.com canncommercial/800 quickstart releasenote_0002 (Atlas 800T A2)"
ASCEND_OS = [
    {"product": "910", "os": "centos", "version": "7.6", "kernel": "4.14.0-115.el7a.0.1.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "ubuntu", "version": "20.04", "kernel": "5.4.0-26-generic", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "centos", "version": "8.2", "kernel": "4.18.0-193.el8.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "kylin", "version": "V10 SP1", "kernel": "4.19.90-17.ky10.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "kylin", "version": "V10 SP2", "kernel": "4.19.90-24.4.v2101.ky10.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "openeuler", "version": "20.03", "kernel": "4.19.90-2003.4.0.0036.oe1.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "openeuler", "version": "22.03", "kernel": "5.10.0-60.18.0.50.oe2203.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910", "os": "uos", "version": "1020e", "kernel": "4.19.90-2106.3.0.0095.up2.uel20.aarch64", "install": "binary", "tag": "V", "source": _PTES},
    {"product": "910b", "os": "kylin", "version": "V10 SP3", "kernel": "4.19.90-52.22.v2207.ky10", "install": "source", "tag": "V", "source": _A2_POD},
    {"product": "910b", "os": "culinux", "version": "3.0", "kernel": "5.10.0-60.67.0.104.ule3", "install": "source", "tag": "V", "source": _A2_POD},
    {"product": "910b", "os": "ctyunos", "version": "22.06", "kernel": "4.19.90-2102.2.0.0066.ctl2", "install": "source", "tag": "V", "source": _A2_POD},
    {"product": "910b", "os": "bclinux", "version": "21.10", "kernel": "4.19.90", "install": "source", "tag": "V", "source": _A2_POD},
    {"product": "910b", "os": "uos", "version": "V20 1050u2e", "kernel": "4.19.90-2211.5.0.0178.22.uel20", "install": "source", "tag": "V", "source": _A2_POD},
    {"product": "910b", "os": "euleros", "version": "2.12", "kernel": None, "install": "source", "tag": "V", "source": _CANN800},
    {
        "product": "910b",
        "os": "openeuler",
        "version": "22.03",
        "kernel": None,
        "install": "source",
        "tag": "V",
        "source": "hiascend.com MindIE 1.0.0 (Atlas 800I A2)",
    },
    {
        "product": "910b",
        "os": "ubuntu",
        "version": "22.04",
        "kernel": None,
        "install": "source",
        "tag": "V",
        "source": "hiascend.com MindIE 1.0.0 (Atlas 800I A2)",
    },
]
