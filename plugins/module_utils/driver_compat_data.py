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

# The day every table below was last checked against its sources; driver_compat warns (DATA-AGE) once ``today`` is
# more than MAX_AGE_DAYS past it. docs/accelerators.md says how to refresh.
AS_OF = "2026-12-05"
MAX_AGE_DAYS = 365

_SPACK = "spack/spack-packages repos/spack_repo/builtin/packages/cuda/package.py at 1e8cf059 (runfile names cuda_<toolkit>_<driver>_linux.run)"
_CSDN = "NVIDIA CUDA release notes, Table 3, copy at blog.csdn.net/ytomc/article/details/122805982"
_MVC = "docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
_SUPPORTED = "docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html (v580 page)"
_SUPPORTED_615 = "docs.nvidia.com/datacenter/tesla/drivers/615/ and /620/ supported-drivers pages"
_SUPPORT_PDF = "docs.nvidia.com/datacenter/tesla/pdf/NVIDIA_CUDA_Drivers_Support.pdf (2021)"
_AKS = "github.com/Azure/aks-gpu/pull/113"
_ARCH_MATRIX = "docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html"
_OGKM = "github.com/NVIDIA/open-gpu-kernel-modules/issues/"
_OGKM_TAGS = "github.com/NVIDIA/open-gpu-kernel-modules kernel-open/conftest.sh between tags "
_OGKM_README_58082 = "github.com/NVIDIA/open-gpu-kernel-modules README.md supported GPUs at tag 580.82.07 (B300 SXM6 AC 3182, GB300 31C2)"

# CUDA toolkit -> the driver it was released with (full feature set). Table 1.1.
CUDA_DRIVER = [
    {"cuda": "13.3.0", "driver": "610.43.02", "tag": "V", "source": _SPACK},
    {"cuda": "13.2.1", "driver": "595.58.03", "tag": "V", "source": _SPACK},
    {"cuda": "13.2.0", "driver": "595.45.04", "tag": "V", "source": _SPACK},
    {"cuda": "13.1.2", "driver": "590.48.01", "tag": "V", "source": _SPACK},
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
    # First listed (README and src/nvidia/generated/g_nv_name_released.h) at 580.82.07; absent from 580.76.05 and every 570.
    {"gres_type": "b300", "min_driver": "580.82.07", "flavour": "open_required", "tag": "V", "source": _OGKM_README_58082},
    {"gres_type": "gb300", "min_driver": "580.82.07", "flavour": "open_required", "tag": "V", "source": _OGKM_README_58082},
    {"gres_type": "gh200", "min_driver": None, "flavour": "open_required", "tag": "V", "source": "github.com/NVIDIA/cloud-native-docs/pull/6"},
]

# Driver x kernel build breakages (table 1.4). A driver fails to build on kernel >= kernel_min when it is one of
# ``drivers`` (exact releases), or when its branch is a key of ``fixed_in`` and it is older than the branch's first
# release with the fix (None: no release of that branch has it). Branches not named are not known to break.
# ``severity`` warning: the module builds but a part of it fails at run time.
KNOWN_BAD = [
    {
        "fixed_in": {515: None, 520: None, 525: "525.105.17", 530: "530.41.03"},
        "kernel_min": "6.3",
        "symptom": "vm_flags became read-only (assignment of read-only member 'vm_flags' in nv-mmap.c)",
        "tag": "V",
        "source": _OGKM + "469, #497; " + _OGKM_TAGS + "525.89.02..525.105.17, 530.30.02..530.41.03",
    },
    {
        # 470 is not in open-gpu-kernel-modules: Gentoo's ebuilds cap 470.182.03 at 6.2 and 470.199.02 at 6.4.
        "fixed_in": {470: "470.199.02"},
        "kernel_min": "6.3",
        "symptom": "vm_flags became read-only",
        "tag": "U",
        "source": "gentoo x11-drivers/nvidia-drivers ebuilds 470.182.03 / 470.199.02 (NV_KERNEL_MAX)",
    },
    {
        "fixed_in": {515: None, 520: None, 525: "525.116.03", 530: None},
        "kernel_min": "6.4",
        "symptom": "drm_driver.dumb_destroy removed (nvidia-drm-drv.c)",
        "tag": "V",
        "source": _OGKM + "501; " + _OGKM_TAGS + "525.105.17..525.116.03",
    },
    {
        "fixed_in": {515: None, 520: None, 525: "525.147.05", 530: None, 535: "535.86.05"},
        "kernel_min": "6.5",
        "symptom": "get_user_pages() lost its vmas argument (too many arguments to function 'get_user_pages' in nv-mm.h)",
        "tag": "V",
        "source": _OGKM
        + "525, #528; github.com/NVIDIA/gpu-driver-container/issues/287 (525.60.13); "
        + _OGKM_TAGS
        + "525.125.06..525.147.05, 535.54.03..535.86.05",
    },
    {
        "fixed_in": {470: "470.223.02"},
        "kernel_min": "6.5",
        "symptom": "get_user_pages() lost its vmas argument",
        "tag": "U",
        "source": "gentoo x11-drivers/nvidia-drivers ebuilds 470.199.02 / 470.223.02 (NV_KERNEL_MAX)",
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
    {
        "fixed_in": {535: "535.230.02", 550: "550.135", 555: None, 560: None},
        "kernel_min": "6.12",
        "symptom": "PageSwapCache() and drm_mode_config_funcs.output_poll_changed removed (uvm_hmm.c, nvidia-drm-drv.c)",
        "tag": "V",
        "source": _OGKM + "837; " + _OGKM_TAGS + "535.216.03..535.230.02, 550.127.08..550.135 (folio_test_swapcache, drm_output_poll_changed)",
    },
    {
        "fixed_in": {565: "565.77"},
        "kernel_min": "6.12",
        "severity": "warning",
        "symptom": "FMODE_UNSIGNED_OFFSET moved to fop_flags: nvidia-drm cannot be opened, so no display (compute is unaffected)",
        "tag": "V",
        "source": _OGKM + "712, #735; " + _OGKM_TAGS + "565.57.01..565.77 (file_operations_fop_unsigned_offset_present)",
    },
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
# From CANN 9.1 the release notes carry a compatibility table (a Y/N grid of CANN series against HDK series);
# it is wider than the older one-to-one "version mapping" lists, and the grid is what is encoded here.
_CANN_910_NOTES = (
    "hiascend.com CANNCommunityEdition/910 softwareinst/releasenote/9.1.0/release-notes.md (compatibility table); "
    "gitcode.com/cann/release-management 9.1.0/release-notes.md"
)
_CANN_920_NOTES = "hiascend.com CANNCommunityEdition/920 softwareinst/releasenote/9.2.0/release-notes.md (compatibility table)"
_CANN_911_NOTES = "hiascend.com CANNCommunityEdition/910 softwareinst/releasenote/9.1.1/release-notes_en.md (compatibility table)"
_HDK_SINCE_25_0 = ["25.0.X", "25.2.X", "25.3.X", "25.5.X", "26.0.RC1", "25.7.RC1", "26.1.0", "26.1.1", "26.2.RC1"]
CANN_HDK = [
    {"cann": "9.2.0", "hdk": ["25.3.X", "25.5.X", "26.0.RC1", "25.7.RC1", "26.1.1", "26.2.RC1"], "tag": "V", "source": _CANN_920_NOTES},
    {"cann": "9.1.1", "hdk": ["25.2.X", "25.3.X", "25.5.X", "26.0.RC1", "25.7.RC1", "26.1.0", "26.1.1"], "tag": "V", "source": _CANN_911_NOTES},
    {
        "cann": "9.1.0",
        "hdk": ["25.2.X", "25.3.X", "25.5.X", "26.0.RC1", "25.7.RC1", "26.1.0", "26.1.1"],
        "tag": "V",
        "source": _CANN_910_NOTES + "; " + _CANN_911_NOTES,
    },
    {"cann": "9.0.1", "hdk": _HDK_SINCE_25_0, "tag": "V", "source": _CANN_910_NOTES + "; " + _CANN_920_NOTES + " (9.0.X row)"},
    {"cann": "9.0.0", "hdk": _HDK_SINCE_25_0, "tag": "V", "source": _CANN_910_NOTES + "; " + _CANN_920_NOTES + " (9.0.X row)"},
    {"cann": "8.5.2", "hdk": _HDK_SINCE_25_0, "tag": "V", "source": _CANN_910_NOTES + "; " + _CANN_920_NOTES + " (8.5.X row)"},
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

# How Ansible names these systems (ansible_distribution, _version, _release), mapped to the OS table's names below.
# Kylin reports "Kylin Linux Advanced Server" / "V10" with the service pack only as the codename in os-release's
# VERSION ("V10 (Lance)"). UOS Server 20 reports "Uos" (ansible-core 2.13 on, in the Debian family although it is
# RPM-based; "UnionTech" after ansible PR #86959) and version "20" for every update; its update shows only in the
# kernel's patch level (4.19.90-2211.5.0.0178.22.uel20 is 1050u2e), as ascend-deployer reads it.
_ANSIBLE_DISTRIBUTION = (
    "ansible/ansible lib/ansible/module_utils/facts/system/distribution.py and its fixtures kylin_linux_advanced_server_v10.json (PR #78232), uos_20.json"
)
_ASCEND_DEPLOYER_OS = "gitcode Ascend/ascend-deployer ascend_deployer/module_utils/common_info.py and install.sh (OS detection)"
OS_NAMES = [
    {"ansible": "kylin linux advanced server", "os": "kylin", "tag": "V", "source": _ANSIBLE_DISTRIBUTION},
    {"ansible": "kylin", "os": "kylin", "tag": "V", "source": _ANSIBLE_DISTRIBUTION},
    {"ansible": "uos", "os": "uos", "tag": "V", "source": _ANSIBLE_DISTRIBUTION + "; kubernetes-sigs/kubespray#11348"},
    {"ansible": "uniontech", "os": "uos", "tag": "V", "source": "github.com/ansible/ansible/pull/86959"},
    {"ansible": "uos server 20", "os": "uos", "tag": "V", "source": "kubernetes-sigs/kubespray#11348 (ansible-core before 2.13)"},
    {"ansible": "uniontech os server 20", "os": "uos", "tag": "D", "source": "UOS 1050e /etc/os-release NAME (PackageKit/PackageKit#547)"},
]
KYLIN_SERVICE_PACKS = [
    {"release": "tercel", "version": "V10 SP1", "tag": "V", "source": "release-engineering/productmd#182; " + _ASCEND_DEPLOYER_OS},
    {"release": "sword", "version": "V10 SP2", "tag": "V", "source": _ANSIBLE_DISTRIBUTION + "; " + _ASCEND_DEPLOYER_OS},
    {
        "release": "lance",
        "version": "V10 SP3",
        "tag": "V",
        "source": "CISOfy/lynis#1612 (os-release with kernel 4.19.90-52.22.v2207.ky10); " + _ASCEND_DEPLOYER_OS,
    },
]
# UOS Server 20 update <- the kernel's patch level (the field after "4.19.90-").
UOS_UPDATES = [
    {"kernel_patch": "2106", "version": "1020e", "tag": "V", "source": "ascend-deployer install.sh (github mirror commit 0fbb89f1)"},
    {"kernel_patch": "2109", "version": "1021e", "tag": "V", "source": "ascend-deployer install.sh (github mirror commit 0fbb89f1)"},
    {
        "kernel_patch": "2211",
        "version": "V20 1050u2e",
        "tag": "V",
        "source": _ASCEND_DEPLOYER_OS + "; hiascend.com quick-installation 24.0.RC1 900_A2_PoDc_0007",
    },
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
