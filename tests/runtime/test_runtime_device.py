"""Device policy. On this CPU-only torch the CPU-only answers are real; GPU situations are
rehearsed by replacing torch.cuda's query functions (the policy only ever calls those),
and a gpu-marked test checks the real thing on a CUDA machine."""
from __future__ import annotations

import pytest
import torch

from cognition.runtime.device import cuda_unavailable_reason, resolve_device
from cognition.errors import DeviceRequestError, DeviceUnavailableError

GiB = 2**30


@pytest.fixture
def fake_gpus(monkeypatch):
    """Pretend to be a CUDA build with GPUs whose (free, total) bytes the test sets."""
    gpus: list[tuple[int, int]] = []
    monkeypatch.setattr(torch.version, "cuda", "12.8")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: bool(gpus))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: len(gpus))

    def mem_get_info(i):
        value = gpus[i]
        if isinstance(value, BaseException):
            raise value
        return value

    monkeypatch.setattr(torch.cuda, "mem_get_info", mem_get_info)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: f"Fake GPU {i}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return gpus


@pytest.mark.skipif(torch.version.cuda is not None, reason="needs the CPU-only torch build")
def test_cpu_only_build_real():
    choice = resolve_device("auto")
    assert choice.device == "cpu" and not choice.fell_back
    assert "CPU-only" in choice.reason and choice.total_bytes > 0
    with pytest.raises(DeviceUnavailableError, match=r"--device cuda: cannot use CUDA: this torch build is CPU-only"):
        resolve_device("cuda")
    fb = resolve_device("cuda:0", allow_cpu_fallback=True)
    assert fb.device == "cpu" and fb.fell_back and "CPU-only" in fb.reason


def test_auto_picks_most_free_not_device_zero(fake_gpus):
    fake_gpus += [(10 * GiB, 80 * GiB), (50 * GiB, 80 * GiB), (30 * GiB, 80 * GiB)]
    for request in ("auto", "cuda"):
        choice = resolve_device(request)
        assert choice.device == "cuda:1" and choice.free_bytes == 50 * GiB and choice.total_bytes == 80 * GiB
        assert "most free memory, 50.00 GiB of 80.00 GiB" in choice.reason
        assert "cuda:0 10.00 GiB, cuda:2 30.00 GiB" in choice.reason


def test_ties_go_to_lowest_index_and_explicit_index_is_honoured(fake_gpus):
    fake_gpus += [(5 * GiB, 8 * GiB), (7 * GiB, 8 * GiB), (7 * GiB, 8 * GiB)]
    assert resolve_device("auto").device == "cuda:1"
    assert resolve_device("cuda:0").device == "cuda:0"
    with pytest.raises(DeviceUnavailableError, match=r"cuda:3: index out of range, 3 CUDA device\(s\) visible \(0\.\.2\)"):
        resolve_device("cuda:3")


def test_cuda_visible_devices_hiding_everything(fake_gpus, monkeypatch):
    fake_gpus += [(5 * GiB, 8 * GiB)]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(DeviceUnavailableError, match="CUDA_VISIBLE_DEVICES='' hides every GPU"):
        resolve_device("cuda")
    assert resolve_device("auto").device == "cpu"  # the user hid them: auto takes the CPU quietly


def test_no_device_visible_names_the_variable(fake_gpus, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-deadbeef")
    assert cuda_unavailable_reason() == "no CUDA device visible with CUDA_VISIBLE_DEVICES='GPU-deadbeef'"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert "no CUDA device visible (no NVIDIA GPU" in cuda_unavailable_reason()


def test_driver_problem_is_an_error_even_for_auto(fake_gpus, monkeypatch):
    import warnings

    def is_available():
        warnings.warn("CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).", stacklevel=2)
        return False

    monkeypatch.setattr(torch.cuda, "is_available", is_available)
    with pytest.raises(DeviceUnavailableError, match="driver/NVML problem: CUDA initialization: The NVIDIA driver"):
        resolve_device("auto")
    fb = resolve_device("auto", allow_cpu_fallback=True)
    assert fb.device == "cpu" and fb.fell_back and "driver on your system is too old" in fb.reason


def test_nvml_assert_while_probing_memory(fake_gpus):
    nvml = RuntimeError("NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED")
    fake_gpus += [nvml, (3 * GiB, 4 * GiB)]
    assert resolve_device("auto").device == "cuda:1"  # the other GPU still answers
    with pytest.raises(DeviceUnavailableError, match="cuda:0: driver/NVML problem querying memory: RuntimeError: NVML_SUCCESS"):
        resolve_device("cuda:0")
    fake_gpus[1] = nvml
    with pytest.raises(DeviceUnavailableError, match="every visible CUDA device failed"):
        resolve_device("auto")
    assert resolve_device("cuda:1", allow_cpu_fallback=True).fell_back


# explicit ids: a parameter id of "gpu" would become the gpu marker's keyword and skip the case
@pytest.mark.parametrize("bad", ["gpu", "cuda:-1", "CUDA", "cuda:a", "mps", ""], ids=lambda v: f"request={v!r}")
def test_bad_request(bad):
    with pytest.raises(DeviceRequestError, match="allowed auto, cpu, cuda, cuda:N"):
        resolve_device(bad)


def test_cpu_request_and_as_dict():
    choice = resolve_device("cpu")
    assert choice.as_dict()["device"] == "cpu" and choice.reason == "cpu as requested"
    assert 0 < choice.free_bytes <= choice.total_bytes


@pytest.mark.gpu
def test_real_gpu_auto_picks_most_free():
    free = [torch.cuda.mem_get_info(i)[0] for i in range(torch.cuda.device_count())]
    choice = resolve_device("auto")
    assert choice.device.startswith("cuda:") and not choice.fell_back
    # free memory moves a little between the two queries; compare with 64 MiB slack
    assert choice.free_bytes >= max(free) - 64 * 2**20
