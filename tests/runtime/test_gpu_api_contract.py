"""Contract of the GPU-only code paths with the installed torch, qiskit-aer and NVML APIs.

The CUDA branches of cognition/ and quantum/ never run on a CPU-only machine, so a
misspelt attribute, a renamed keyword or a wrong ``memory_stats`` key there would only
show on a GPU. This module checks them on any machine, in two ways:

* tables of the symbols, keywords and key names the GPU-only code relies on, each row
  checked against the installed package (``hasattr`` / ``inspect.signature`` / the
  package's own source or headers), with the source of truth named on the row;
* the GPU-only functions themselves, driven on the CPU with strict stand-ins for
  ``torch.cuda`` / ``AerSimulator`` / ``pynvml``: every attribute the code reads must
  exist on the real module and every call must bind to the real signature. What the
  drive records must be in the tables, so the tables follow the code.

What cannot be checked without a GPU (behaviour of the driver, the numbers CUDA returns,
Triton/CUDA-graph capture, Aer's GPU kernels) is out of scope: see the ``gpu`` tests.
"""
from __future__ import annotations

import inspect
import itertools
import re
import sys
import types
import warnings
from pathlib import Path

import pytest
import torch

# ----------------------------------------------------------------------------- torch
# (symbol under torch, parameters the code passes by name or position, where it is used)
# Source of truth: the installed torch, via getattr + inspect.signature.
TORCH_API = [
    ("cuda.is_available", (), "runtime/device.py, quantum/select.py, quantum/backends/torch_statevector.py"),
    ("cuda.device_count", (), "runtime/device.py, doctor.py"),
    ("cuda.mem_get_info", ("device",), "runtime/device.py:_probe, doctor.py:torch_census"),
    ("cuda.get_device_name", ("device",), "runtime/device.py:_pick_cuda, doctor.py"),
    ("cuda.get_device_capability", ("device",), "doctor.py:torch_census"),
    ("cuda.memory_stats", ("device",), "runtime/telemetry.py:MemoryTelemetry.sample"),
    ("cuda.reset_peak_memory_stats", ("device",), "runtime/telemetry.py:MemoryTelemetry.sample"),
    ("cuda.memory_reserved", ("device",), "runtime/oom.py:free_memory"),
    ("cuda.synchronize", ("device",), "runtime/oom.py:free_memory"),
    ("cuda.empty_cache", (), "runtime/oom.py:free_memory"),
    ("cuda.is_initialized", (), "runtime/oom.py, runtime/allocator.py, runtime/checkpoint.py"),
    ("cuda.set_per_process_memory_fraction", ("fraction", "device"), "session.py:_cap_gpu_memory"),
    ("cuda.get_rng_state_all", (), "runtime/checkpoint.py:capture_rng_states"),
    ("cuda.set_rng_state_all", ("new_states",), "runtime/checkpoint.py:restore_rng_states"),
    ("cuda.OutOfMemoryError", None, "runtime/oom.py (fallback for torch without torch.OutOfMemoryError)"),
    ("OutOfMemoryError", None, "runtime/oom.py, runtime/faults.py"),
    ("AcceleratorError", None, "runtime/oom.py, runtime/faults.py (torch >= 2.8)"),
    ("compile", ("mode", "dynamic", "fullgraph"), "runtime/compile.py:StepCompiler.__call__"),
    ("compiler.cudagraph_mark_step_begin", (), "runtime/compile.py:StepCompiler.__call__ (reduce-overhead on cuda)"),
    ("autocast", ("device_type", "dtype"), "loop.py:IntegrationLoop._autocast"),
    ("backends.cudnn.version", (), "doctor.py:torch_census"),
    ("version.cuda", None, "runtime/device.py, doctor.py, quantum/backends/torch_statevector.py"),
    ("version.hip", None, "runtime/device.py, doctor.py (read with getattr default)"),
]
_TORCH_USED = {row[0] for row in TORCH_API}


def _resolve(root, dotted: str):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part)  # AttributeError names the missing part
    return obj


@pytest.mark.parametrize("symbol, params, used_at", TORCH_API, ids=[r[0] for r in TORCH_API])
def test_torch_symbol_exists_with_the_parameters_the_code_passes(symbol, params, used_at):
    obj = _resolve(torch, symbol)
    if params:
        names = set(inspect.signature(obj).parameters)
        assert set(params) <= names, f"torch.{symbol} ({used_at}): missing {set(params) - names}"


def test_oom_exception_classes_are_runtime_errors_that_take_a_message():
    # runtime/faults.py constructs both with one message; runtime/oom.py catches them by class
    for cls in (torch.OutOfMemoryError, torch.AcceleratorError):
        assert issubclass(cls, RuntimeError)
        assert str(cls("CUDA error: out of memory")) == "CUDA error: out of memory"
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError


def test_injected_gpu_faults_raise_the_real_classes_and_classify():
    from cognition.runtime.faults import Fault, raise_fault
    from cognition.errors import classify_oom

    for kind, cls, oom_kind in (("oom", torch.OutOfMemoryError, "cuda_oom"),
                                ("accelerator_oom", torch.AcceleratorError, "accelerator_oom")):
        with pytest.raises(cls) as info:
            raise_fault(Fault(kind, 1))
        assert type(info.value) is cls  # not the torch < 2.8 RuntimeError fallback
        assert classify_oom(info.value) == oom_kind


# --------------------------------------------------------------- strict torch.cuda stand-in
REAL_CUDA = torch.cuda  # the stand-in below replaces torch.cuda while a test drives the code


class StrictCuda:
    """Stands in for ``torch.cuda``: an attribute the code reads must exist on the real
    ``torch.cuda`` (else AttributeError, as on a GPU), a call must bind to the real
    signature, and the answer comes from ``answers`` (a value, or a function of the args)."""

    def __init__(self, **answers):
        self._answers, self.used, self.calls, self.missing = answers, set(), [], set()

    def __getattr__(self, name):
        if not hasattr(REAL_CUDA, name):  # recorded too: device.py turns any error into its own
            self.missing.add(name)
        real = getattr(REAL_CUDA, name)
        self.used.add(f"cuda.{name}")
        if name not in self._answers:
            raise AssertionError(f"GPU-only code reads torch.cuda.{name}: give it an answer here and a row in TORCH_API")
        answer = self._answers[name]
        if isinstance(real, type) or not callable(real):
            return answer
        signature = inspect.signature(real)

        def call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)  # TypeError: wrong keyword / too many arguments
            self.calls.append((name, dict(bound.arguments)))
            return answer(*args, **kwargs) if callable(answer) else answer

        return call


@pytest.fixture
def cuda(monkeypatch):
    """Install a StrictCuda as torch.cuda, and a CUDA build's torch.version.cuda."""
    holder = {}

    def install(**answers):
        fake = StrictCuda(**answers)
        monkeypatch.setattr(torch, "cuda", fake)
        monkeypatch.setattr(torch.version, "cuda", "12.8")
        holder["fake"] = fake
        return fake

    yield install
    if "fake" in holder:
        assert not holder["fake"].missing, f"torch.cuda of torch {torch.__version__} has no {holder['fake'].missing}"
        assert holder["fake"].used <= _TORCH_USED, "add these to TORCH_API: " + str(holder["fake"].used - _TORCH_USED)


GiB = 2**30


def test_device_resolution_on_two_gpus(cuda):
    from cognition.runtime.device import resolve_device

    free = {0: 1 * GiB, 1: 3 * GiB}
    fake = cuda(is_available=True, device_count=2, get_device_name=lambda i=None: f"GPU{i}",
                mem_get_info=lambda i=None: (free[i], 4 * GiB))
    choice = resolve_device("auto")
    assert choice.device == "cuda:1" and choice.free_bytes == 3 * GiB
    assert resolve_device("cuda:0").device == "cuda:0"
    assert {name for name, _ in fake.calls} == {"is_available", "device_count", "mem_get_info", "get_device_name"}


def test_doctor_torch_census_on_a_gpu(cuda, monkeypatch):
    from cognition import doctor

    cuda(is_available=True, device_count=1, get_device_name=lambda i=None: "GPU0",
         mem_get_info=lambda i=None: (GiB, 4 * GiB), get_device_capability=lambda i=None: (7, 5))
    real = torch.backends.cudnn.version
    monkeypatch.setattr(torch.backends.cudnn, "version", lambda *a, **k: (inspect.signature(real).bind(*a, **k), 91000)[1])
    info = doctor.torch_census()
    assert info["cuda_available"] and info["cudnn"] == 91000
    assert info["devices"] == [{"index": 0, "name": "GPU0", "free_bytes": GiB, "total_bytes": 4 * GiB,
                                "capability": "7.5"}]


# ------------------------------------------------------------------ memory_stats keys
def documented_memory_stats_keys() -> set[str]:
    """Every key the docstring of the installed ``torch.cuda.memory_stats`` documents,
    with ``{a,b}`` groups expanded. Source of truth: torch/cuda/memory.py."""
    from torch.cuda import memory

    keys = set()
    for pattern in re.findall(r'``"([^"`]+)"``', inspect.getdoc(memory.memory_stats)):
        groups = [g.split(",") for g in re.findall(r"\{([^}]*)\}", pattern)]
        template = re.sub(r"\{[^}]*\}", "{}", pattern)
        keys.update(template.format(*combo) for combo in itertools.product(*groups))
    return keys


def test_memory_stats_docstring_parses():
    keys = documented_memory_stats_keys()
    assert "allocated_bytes.all.current" in keys and "num_ooms" in keys and len(keys) > 100


def test_telemetry_reads_only_documented_memory_stats_keys(cuda):
    from cognition.runtime.telemetry import MemoryTelemetry, cuda_sample

    documented = documented_memory_stats_keys()
    read = []

    class Recording(dict):
        def get(self, key, default=None):
            read.append(key)
            return super().get(key, default)

        def __getitem__(self, key):
            read.append(key)
            return super().__getitem__(key)

    stats = Recording({k: 1000 for k in documented})
    stats.update({"allocated_bytes.all.current": 600, "reserved_bytes.all.current": 1000,
                  "inactive_split_bytes.all.current": 100})
    assert set(cuda_sample(stats)) >= {"mem_allocated_bytes", "mem_reserved_bytes", "mem_peak_bytes"}
    assert read and set(read) <= documented, f"undocumented memory_stats keys: {set(read) - documented}"

    fake = cuda(memory_stats=stats, reset_peak_memory_stats=None)
    sample = MemoryTelemetry("cuda:0").sample()
    assert sample["mem_fragmentation"] == pytest.approx(0.4) and sample["mem_inactive_split_share"] == pytest.approx(0.1)
    assert [name for name, _ in fake.calls] == ["memory_stats", "reset_peak_memory_stats"]
    assert all(args == {"device": "cuda:0"} for _, args in fake.calls)


def test_free_memory_after_a_cuda_oom(cuda):
    from cognition.runtime.oom import free_memory

    reserved = iter([3 * GiB, GiB])
    fake = cuda(is_initialized=True, memory_reserved=lambda d=None: next(reserved), synchronize=None, empty_cache=None)
    out = free_memory("cuda:0")
    assert out["reserved_bytes_before"] == 3 * GiB and out["reserved_bytes_after"] == GiB
    assert [name for name, _ in fake.calls] == ["is_initialized", "memory_reserved", "synchronize", "empty_cache",
                                                "memory_reserved"]


def test_rng_states_of_cuda_devices(cuda):
    from cognition.runtime.checkpoint import capture_rng_states, restore_rng_states

    states = [torch.zeros(16, dtype=torch.uint8)]
    fake = cuda(is_initialized=True, get_rng_state_all=states, set_rng_state_all=None)
    state = capture_rng_states()
    assert state["torch_cuda"] is states
    restore_rng_states(state)
    assert fake.calls[-1] == ("set_rng_state_all", {"new_states": states})


def test_allocator_refuses_after_cuda_initialised(cuda):
    from cognition.runtime.allocator import AllocatorAlreadyInitialisedError, apply_alloc_conf

    cuda(is_initialized=True)
    with pytest.raises(AllocatorAlreadyInitialisedError):
        apply_alloc_conf("expandable_segments:True")


def test_gpu_memory_fraction_call(cuda):
    from cognition.config.settings import load_config
    from cognition.simulator.session import Session

    # torch raises TypeError unless fraction is a float: a YAML integer (1) must arrive as 1.0
    assert type(load_config(overrides={"runtime": {"gpu_memory_fraction": 1}}).runtime.gpu_memory_fraction) is float
    fake = cuda(set_per_process_memory_fraction=None)
    host = types.SimpleNamespace(assembly=types.SimpleNamespace(device={"device": "cuda:0", "total_bytes": 4 * GiB},
                                                                notes=[]))
    cfg = types.SimpleNamespace(runtime=types.SimpleNamespace(gpu_memory_fraction=0.25))
    assert Session._cap_gpu_memory(host, cfg) == {"fraction": 0.25, "applied": True, "cap_bytes": GiB}
    (name, args), = fake.calls
    assert type(args["fraction"]) is float and args["device"] == torch.device("cuda:0")


def test_torch_statevector_backend_accepts_cuda_when_torch_sees_one(cuda):
    from quantum.backends.torch_statevector import TorchStatevectorBackend
    from quantum.select import _torch_cuda

    cuda(is_available=True)
    assert _torch_cuda() == (True, "")
    backend = TorchStatevectorBackend(device="cuda", max_qubits=4, threads=1, precision="single",
                                      memory_budget_bytes=None)
    assert backend.name == "torch-cuda" and backend._dtype == torch.complex64


# ------------------------------------------------------------ torch.compile and autocast
def test_compile_modes_are_modes_of_this_torch():
    import torch._inductor

    from cognition.runtime.compile import COMPILE_MODES

    # source of truth: torch._inductor.list_mode_options (what torch.compile(mode=...) accepts)
    assert set(COMPILE_MODES) - {"off"} <= set(torch._inductor.list_mode_options())
    from torch._dynamo.exc import BackendCompilerFailed, TorchDynamoException  # runtime/compile.py:warm_up

    assert issubclass(BackendCompilerFailed, TorchDynamoException)


def test_cuda_graph_replay_path(monkeypatch):
    from cognition.runtime.compile import StepCompiler

    calls = []
    real_compile, real_mark = torch.compile, torch.compiler.cudagraph_mark_step_begin

    def fake_compile(*args, **kwargs):
        calls.append(("compile", inspect.signature(real_compile).bind(*args, **kwargs).arguments))
        return args[0]

    def fake_mark(*args, **kwargs):
        calls.append(("mark", inspect.signature(real_mark).bind(*args, **kwargs).arguments))

    monkeypatch.setattr(torch, "compile", fake_compile)
    monkeypatch.setattr(torch.compiler, "cudagraph_mark_step_begin", fake_mark)
    compiler = StepCompiler("reduce-overhead", "cuda:0")

    def kernel(x):
        return x * 2, x

    replay = compiler(kernel)
    x = torch.ones(3)
    doubled, same = replay(x)
    assert compiler.cuda_graphs and same is not x and torch.equal(same, x)  # outputs cloned
    assert [c[0] for c in calls] == ["compile", "mark"]
    assert {k: v for k, v in calls[0][1].items() if k != "model"} == {
        "mode": "reduce-overhead", "dynamic": False, "fullgraph": True}


@pytest.mark.parametrize("setting, dtype", [("bf16", torch.bfloat16), ("fp16", torch.float16)])
def test_autocast_on_cuda(setting, dtype):
    from cognition.architecture.loop import IntegrationLoop

    host = types.SimpleNamespace(cfg=types.SimpleNamespace(runtime=types.SimpleNamespace(autocast=setting)),
                                 device="cuda:0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "CUDA is not available ... Disabling autocast" on this machine
        ctx = IntegrationLoop._autocast(host)
    assert isinstance(ctx, torch.autocast) and ctx.device == "cuda" and ctx.fast_dtype == dtype


# ------------------------------------------------------------------- allocator options
def _torch_root() -> Path:
    return Path(torch.__file__).parent


def _cuda_allocator_keys() -> set[str]:
    """CUDAAllocatorConfig::getKeys() of this torch, from the header the wheel ships
    (torch/include/c10/cuda/CUDAAllocatorConfig.h; adjacent literals joined)."""
    text = (_torch_root() / "include/c10/cuda/CUDAAllocatorConfig.h").read_text()
    block = re.search(r"getKeys\(\)\s*\{(.*?)\};", text, re.S).group(1)
    block = re.sub(r"//[^\n]*", "", block)
    block = re.sub(r'"\s*"', "", block)  # "release_lock_on_cud" "amalloc" -> one literal
    return set(re.findall(r'"([^"]+)"', block))


def test_allocator_keys_are_keys_of_this_torch():
    from cognition.runtime.allocator import ALLOC_KEYS, VARIABLES

    cuda_keys = _cuda_allocator_keys()
    assert "backend" in cuda_keys and "release_lock_on_cudamalloc" in cuda_keys
    # the device-independent keys are parsed in c10/core/AllocatorConfig.cpp, compiled into libc10
    libc10 = b"".join(p.read_bytes() for p in (_torch_root() / "lib").glob("libc10.*"))
    for key in ALLOC_KEYS:
        assert key in cuda_keys or key.encode() in libc10, f"allocator key {key!r} is not read by this torch"
    # every CUDA key of this torch is accepted (the HIP spellings are aliases for ROCm builds)
    missing = {k for k in cuda_keys if "hip" not in k} - set(ALLOC_KEYS)
    assert not missing, f"torch accepts these allocator keys but ALLOC_KEYS rejects them: {missing}"
    header = (_torch_root() / "include/c10/cuda/CUDAAllocatorConfig.h").read_text()
    assert all(f'"{v}"' in header for v in VARIABLES)


def test_nvml_assert_text_names_a_member_of_this_torchs_driver_api():
    from cognition.errors import _NVML_ASSERT

    # "NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_()": DriverAPI declares one member name##_
    # per entry of C10_NVML_DRIVER_API (torch/include/c10/cuda/driver_api.h)
    member = re.search(r"->(\w+)_\(\)", _NVML_ASSERT).group(1)
    text = (_torch_root() / "include/c10/cuda/driver_api.h").read_text()
    nvml_api = re.search(r"#define C10_NVML_DRIVER_API\(_\)(.*?)\n\s*\n", text, re.S).group(1)
    assert f"_({member})" in nvml_api and "CREATE_MEMBER(name) decltype(&name) name##_;" in text


# ---------------------------------------------------------------------------- Aer GPU
def _aer_gpu_kwargs(monkeypatch) -> dict:
    """The keyword arguments quantum/backends/aer.py passes to AerSimulator for device='gpu'."""
    import qiskit_aer

    from quantum.backends import aer

    seen = {}

    class Recorder:
        def __init__(self, **kwargs):
            seen.update(kwargs)

    monkeypatch.setattr(aer, "aer_info", lambda: {"installed": True, "gpu": True, "gpu_reason": None,
                                                  "distribution": "qiskit-aer-gpu", "version": "0"})
    monkeypatch.setattr(qiskit_aer, "AerSimulator", Recorder)
    aer.AerBackend(device="gpu", max_qubits=4, threads=2, precision="single", memory_budget_bytes=None)
    return seen


def test_aer_gpu_options_are_accepted_by_this_aer(monkeypatch):
    from qiskit_aer import AerSimulator
    from qiskit_aer.backends.aer_compiler import BACKEND_RUN_ARG_TYPES

    kwargs = _aer_gpu_kwargs(monkeypatch)
    monkeypatch.undo()
    assert kwargs["device"] == "GPU" and kwargs["method"] == "statevector"
    options = set(AerSimulator._default_options().keys())  # source: AerSimulator._default_options
    for name, value in kwargs.items():
        assert name in options, f"AerSimulator has no option {name!r}"
        # qiskit_aer/backends/aer_compiler.py: the types run() accepts without a deprecated cast
        assert isinstance(value, BACKEND_RUN_ARG_TYPES[name]), (name, value)
    assert kwargs["device"] in AerSimulator._SIMULATION_DEVICES  # ("CPU", "GPU", "Thrust")
    assert kwargs["precision"] in ("single", "double")  # AerSimulator docstring, "precision"
    sim = AerSimulator(**kwargs)  # set_option raises AerError("Invalid option ...") on an unknown name
    assert sim.options.device == "GPU" and sim.options.method == "statevector"
    assert kwargs["method"] in sim.available_methods()
    assert callable(sim.available_devices)  # quantum/backends/aer_info.py


# ----------------------------------------------------------------------------- NVML
# pynvml functions and result fields the code uses, checked by hand against pynvml.py of
# nvidia-ml-py 12.535.x (the oldest the `monitoring` extra allows) and 13.615.71; when
# nvidia-ml-py is installed the test checks them against it as well. A name the code starts
# using that is not listed here fails the test until someone checks it.
NVML_FUNCTIONS = {
    "nvmlInit", "nvmlShutdown", "nvmlSystemGetDriverVersion", "nvmlDeviceGetCount",
    "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetHandleByUUID", "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetName", "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses",
}
NVML_FIELDS = {  # struct -> fields (c_nvmlUtilization_t, c_nvmlMemory_t, c_nvmlProcessInfo_t)
    "utilization": {"gpu", "memory"},
    "memory": {"total", "free", "used"},
    "process": {"pid", "usedGpuMemory"},
}


def _recording_pynvml():
    used, fields = set(), set()

    class Struct:
        def __init__(self, kind):
            self._kind = kind

        def __getattr__(self, name):
            fields.add((self._kind, name))
            return 1 if name == "pid" else 2**20

    answers = {"nvmlDeviceGetCount": 1, "nvmlSystemGetDriverVersion": "580.65.06", "nvmlDeviceGetName": "GPU0",
               "nvmlDeviceGetMemoryInfo": Struct("memory"), "nvmlDeviceGetUtilizationRates": Struct("utilization"),
               "nvmlDeviceGetComputeRunningProcesses": [Struct("process")],
               "nvmlDeviceGetGraphicsRunningProcesses": []}

    class Module(types.ModuleType):
        def __getattr__(self, name):
            if not name.startswith("nvml"):
                raise AttributeError(name)
            used.add(name)
            return lambda *args: answers.get(name)

    return Module("pynvml"), used, fields


def test_nvml_calls_are_functions_of_nvidia_ml_py(monkeypatch):
    from cognition import doctor
    from cognition.runtime.gpu_monitor import _open_nvml

    fake, used, fields = _recording_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    assert doctor.nvml_census()["available"]
    for gpu in ("0", "GPU-8f6e0f55-0000-0000-0000-000000000000"):
        sample, close = _open_nvml(gpu)
        sample()
        close()
    monkeypatch.undo()
    assert used and used <= NVML_FUNCTIONS, f"check against nvidia-ml-py, then list: {used - NVML_FUNCTIONS}"
    for kind, name in fields:
        assert name in NVML_FIELDS[kind], (kind, name)
    try:
        import pynvml
    except ImportError:
        return  # nvidia-ml-py is not a dependency; the lists above were checked by hand
    assert all(callable(getattr(pynvml, f)) for f in used)
    structs = {"utilization": pynvml.c_nvmlUtilization_t, "memory": pynvml.c_nvmlMemory_t}
    for kind, name in fields:
        if kind in structs:
            assert name in {f[0] for f in structs[kind]._fields_}, (kind, name)
    assert hasattr(pynvml, "NVMLError_NotSupported")  # gpu_monitor matches "NotSupported" in the class name
