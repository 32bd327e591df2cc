"""Allocator options: validation (checked against torch's own parser), both variables set in a
fresh interpreter, and which variable each torch version reads."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cognition.runtime.allocator import AllocatorAlreadyInitialisedError, alloc_conf_in_effect, apply_alloc_conf, canonical_alloc_conf, parse_alloc_conf
from cognition.errors import AllocatorConfigError


def test_parse_valid():
    assert parse_alloc_conf(" expandable_segments:True, max_split_size_mb : 128 ") == {
        "expandable_segments": True, "max_split_size_mb": 128}
    assert parse_alloc_conf("roundup_power2_divisions:[256:1,512:2,>:4],garbage_collection_threshold:0.6") == {
        "roundup_power2_divisions": [(256, 1), (512, 2), (">", 4)], "garbage_collection_threshold": 0.6}
    assert parse_alloc_conf("backend:cudaMallocAsync,per_process_memory_fraction:1") == {
        "backend": "cudaMallocAsync", "per_process_memory_fraction": 1.0}
    assert parse_alloc_conf("") == {}
    assert canonical_alloc_conf("expandable_segments:True, max_split_size_mb:64") == \
        "expandable_segments:True,max_split_size_mb:64"


@pytest.mark.parametrize(("text", "fragment"), [
    ("expandable_segments:true", "allocator option expandable_segments: value 'true' is invalid; allowed: True or False"),
    ("Expandable_segments:True", "'Expandable_segments' is unknown (keys are case-sensitive: did you mean 'expandable_segments'?)"),
    ("max_split_size_mb:19", "max_split_size_mb: value '19' is invalid; allowed: integer MiB >= 20"),
    ("max_split_size_mb:-1", "value '-1'"),
    ("max_split_size_mb:2.5", "value '2.5'"),
    ("large_segment_size_mb:64,max_split_size_mb:40", "max_split_size_mb: value '40' is invalid; allowed: integer MiB >= 20 (>= large_segment_size_mb when that is set), here >= 64"),
    ("garbage_collection_threshold:1", "garbage_collection_threshold: value '1' is invalid; allowed: a number in the open interval (0, 1)"),
    ("garbage_collection_threshold:0", "value '0'"),
    ("roundup_power2_divisions:3", "roundup_power2_divisions: value '3'"),
    ("roundup_power2_divisions:[255:1]", "value '[255:1]'"),
    ("backend:cudaMallocAsync,expandable_segments:True", "backend:cudaMallocAsync ignores expandable_segments"),
    ("backend:cudamallocasync", "backend: value 'cudamallocasync' is invalid; allowed: native or cudaMallocAsync"),
    ("pinned_num_register_threads:3", "a power of 2 <= 128"),
    ("max_split_size_mb", "written as max_split_size_mb:VALUE"),
    ("max_split_size_mb:64,max_split_size_mb:128", "given twice"),
    ("expandable_segments:True max_split_size_mb:64", "value 'Truemax_split_size_mb:64'"),
])
def test_invalid_values_name_key_value_and_allowed(text, fragment):
    with pytest.raises(AllocatorConfigError) as info:
        parse_alloc_conf(text)
    assert fragment in str(info.value) and "\n" not in str(info.value)


# Cases on the keys torch's CPU build parses itself (c10 AcceleratorAllocatorConfig).
# Our stricter rejections ("-1", which torch's stoull wraps around) are left out.
CROSS_CHECK = [
    "expandable_segments:True", "expandable_segments:False", "expandable_segments:true",
    "expandable_segments:1", "max_split_size_mb:20", "max_split_size_mb:19", "max_split_size_mb:512",
    "garbage_collection_threshold:0.5", "garbage_collection_threshold:1.0", "garbage_collection_threshold:0",
    "roundup_power2_divisions:4", "roundup_power2_divisions:3", "roundup_power2_divisions:[256:1,512:2,>:4]",
    "roundup_power2_divisions:[255:1]", "roundup_power2_divisions:[256:3]", "roundup_power2_divisions:[>:0]",
    "large_segment_size_mb:10", "large_segment_size_mb:11", "large_segment_size_mb:40,max_split_size_mb:30",
    "large_segment_size_mb:40,max_split_size_mb:40", "max_non_split_rounding_mb:20",
    "max_non_split_rounding_mb:19", "pinned_use_background_threads:True", "pinned_use_background_threads:yes",
    "pinned_max_cached_size_mb:0", "max_split_size_mb:abc", "garbage_collection_threshold:x",
]


def test_agrees_with_torchs_own_parser():
    """torch parses these itself (torch._C._accelerator_setAllocatorSettings) in a fresh
    interpreter; our verdict must match its verdict on every case."""
    import torch

    if not hasattr(torch._C, "_accelerator_setAllocatorSettings"):  # pyproject admits torch>=2.4; 2.13 has it
        pytest.skip(f"torch {torch.__version__} has no in-process allocator parser to compare with")
    code = (
        "import json, sys, torch\n"
        "out = {}\n"
        "for case in json.loads(sys.argv[1]):\n"
        "    torch._C._accelerator_setAllocatorSettings('large_segment_size_mb:20')  # reset shared state\n"
        "    try:\n"
        "        torch._C._accelerator_setAllocatorSettings(case); out[case] = True\n"
        "    except Exception:\n"
        "        out[case] = False\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(CROSS_CHECK)],
                          capture_output=True, text=True, timeout=120)
    torch_ok = json.loads(proc.stdout.strip().splitlines()[-1])
    ours = {}
    for case in CROSS_CHECK:
        try:
            parse_alloc_conf(case)
            ours[case] = True
        except AllocatorConfigError:
            ours[case] = False
    assert ours == torch_ok
    assert set(torch_ok.values()) == {True, False}  # the table exercises both verdicts


def _fresh(code: str, **env) -> subprocess.CompletedProcess:
    import os

    clean = {k: v for k, v in os.environ.items() if k not in ("PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**clean, **env})


def test_fresh_interpreter_sets_both_and_torch_reads_it():
    proc = _fresh(
        "from cognition.runtime.allocator import apply_alloc_conf\n"
        "s = apply_alloc_conf('expandable_segments:True, max_split_size_mb:64')\n"
        "import os, sys, torch\n"
        "print(os.environ['PYTORCH_ALLOC_CONF']); print(os.environ['PYTORCH_CUDA_ALLOC_CONF'])\n"
        "print(torch._C._accelerator_getAllocatorSettings()); print(s.previous)\n",
        PYTORCH_CUDA_ALLOC_CONF="garbage_collection_threshold:0.9")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "expandable_segments:True,max_split_size_mb:64",
        "expandable_segments:True,max_split_size_mb:64",
        "expandable_segments:True,max_split_size_mb:64",  # what torch itself parsed
        "{'PYTORCH_ALLOC_CONF': None, 'PYTORCH_CUDA_ALLOC_CONF': 'garbage_collection_threshold:0.9'}",
    ]


def test_fresh_interpreter_invalid_value_is_one_line_error():
    proc = _fresh("import os\nfrom cognition.runtime.allocator import apply_alloc_conf\n"
                  "try:\n    apply_alloc_conf('expandable_segments:true')\n"
                  "except ValueError as e:\n    print(type(e).__name__, e)\n"
                  "print(os.environ.get('PYTORCH_ALLOC_CONF'), os.environ.get('PYTORCH_CUDA_ALLOC_CONF'))\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "AllocatorConfigError allocator option expandable_segments: value 'true' is invalid; "
        "allowed: True or False (capitalised)",
        "None None",  # nothing was set
    ]


def test_refuses_after_cuda_initialised(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    env = dict()
    assert apply_alloc_conf("expandable_segments:True", env).conf == "expandable_segments:True"  # not this process
    monkeypatch.delenv("PYTORCH_ALLOC_CONF", raising=False)
    with pytest.raises(AllocatorAlreadyInitialisedError, match="after torch initialised CUDA"):
        apply_alloc_conf("expandable_segments:True")
    import os

    assert "PYTORCH_ALLOC_CONF" not in os.environ


@pytest.mark.parametrize(("version", "env", "reads", "effective", "conflict"), [
    ((2, 8), {"PYTORCH_ALLOC_CONF": "max_split_size_mb:64"}, "PYTORCH_CUDA_ALLOC_CONF", None, "is ignored by this torch"),
    ((2, 8), {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", None),
    ((2, 9), {"PYTORCH_ALLOC_CONF": "a", "PYTORCH_CUDA_ALLOC_CONF": "b"}, "PYTORCH_ALLOC_CONF", "a",
     "PYTORCH_ALLOC_CONF='a' is in effect; PYTORCH_CUDA_ALLOC_CONF='b' is ignored"),
    ((2, 13), {"PYTORCH_ALLOC_CONF": "a", "PYTORCH_CUDA_ALLOC_CONF": ""}, "PYTORCH_CUDA_ALLOC_CONF", "",
     "PYTORCH_CUDA_ALLOC_CONF='' is in effect; PYTORCH_ALLOC_CONF='a' is ignored"),
    ((2, 10), {"PYTORCH_ALLOC_CONF": "expandable_segments:True"}, "PYTORCH_ALLOC_CONF", "expandable_segments:True", None),
    ((2, 13), {}, "PYTORCH_ALLOC_CONF", None, None),
])
def test_which_variable_each_version_reads(version, env, reads, effective, conflict):
    info = alloc_conf_in_effect(env, torch_version=version)
    assert info["reads"] == reads and info["effective"] == effective
    assert (conflict is None and info["conflict"] is None) or conflict in info["conflict"]


def test_deprecation_warning_on_29_and_invalid_effective_value():
    info = alloc_conf_in_effect({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:true"}, torch_version=(2, 9))
    assert "deprecated, use PYTORCH_ALLOC_CONF" in info["warning"]
    assert "value 'true' is invalid" in info["error"]


def test_installed_torch_reads_what_we_say():
    """For the installed torch, the string torch itself parsed equals our 'effective'."""
    import torch

    if not hasattr(torch._C, "_accelerator_getAllocatorSettings"):  # pyproject admits torch>=2.4; 2.13 has it
        pytest.skip(f"torch {torch.__version__} has no allocator-settings query to compare with")
    env = {"PYTORCH_ALLOC_CONF": "max_split_size_mb:64", "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128"}
    proc = _fresh("import torch; print(torch._C._accelerator_getAllocatorSettings())", **env)
    assert proc.returncode == 0, proc.stderr  # a crash in the fresh interpreter is a failure, not a skip
    assert alloc_conf_in_effect(env)["effective"] == proc.stdout.strip()
