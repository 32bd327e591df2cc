"""Modules of one's own named by path (``modules.plugins``, cognition.modules.plugin_paths), and docs/modules.md.

The default suite loads small module files written into the test's tmp dir (each under a name of
its own, forgotten again after the test), checks every refusal is one line naming the field, the
resume check of the recorded sha256, the script-only resume message, and that a module whose build
fails leaves no run directory. The integration test runs docs/modules.md's minimal module, copied
from the page as it stands, from the page's YAML file through ``validate`` and a two-point sweep,
each killed and resumed, and compares the results bit for bit.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from runtools import science

from cognition import validate
from cognition.modules import plugin_paths, plugins
from cognition.config.settings import load_config
from cognition.errors import ConfigError, PluginFileChanged
from cognition.runtime.stop import resume_command

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "modules.md"

MODULE = textwrap.dedent('''
    import torch

    from cognition.modules import CognitiveModule, Proposal


    class Echo(CognitiveModule):
        unit_signals = ("salience",)

        def init_state(self, agents, streams):
            return {"x": torch.zeros(len(agents), self.D, dtype=self.dtype, device=self.device)}

        def propose(self, state, inputs, streams, weights):
            b = inputs["broadcast"]
            return Proposal(b, b.abs().mean(dim=1)), {"x": b}

        def units(self, proposal, b_prev):
            return proposal.salience[:, None]
''')


@pytest.fixture
def plugin_file(tmp_path):
    """write(source, stem=None) -> the path of a module file with a fresh name; forgotten afterwards."""
    stems = []

    def write(source: str = MODULE, stem: str | None = None, folder: Path = tmp_path) -> Path:
        stem = stem or f"plug_{uuid.uuid4().hex[:10]}"
        stems.append(stem)
        path = folder / f"{stem}.py"
        path.write_text(source)
        return path

    yield write
    for stem in stems:
        sys.modules.pop(stem, None)
        plugins.unregister(stem)
    for name in ("echo", "echoed"):
        plugins.unregister(name)


def _cfg(entries, enabled=("expectation",), **sections):
    return load_config(overrides={"modules": {"plugins": list(entries), "enabled": list(enabled)}, **sections})


@pytest.mark.parametrize("entry, name, target, attr, is_file", [
    ("leaky.py:Leaky", None, "leaky.py", "Leaky", True),
    ("sub/dir/leaky:Leaky", None, "sub/dir/leaky", "Leaky", True),
    ("mine=leaky.py:Leaky", "mine", "leaky.py", "Leaky", True),
    ("my_pkg.leaky:Leaky", None, "my_pkg.leaky", "Leaky", False),
    ("mine=my_pkg.leaky:Leaky", "mine", "my_pkg.leaky", "Leaky", False),
])
def test_entries_parse(entry, name, target, attr, is_file):
    assert plugin_paths.parse(entry) == plugin_paths.PluginEntry(entry, name, target, attr, is_file)


@pytest.mark.parametrize("entry", ["leaky.py", "leaky.py:", "leaky.py:Le-aky", ":Leaky", "my-pkg.leaky:Leaky"])
def test_malformed_entries_are_refused(entry):
    with pytest.raises(ConfigError) as info:
        _cfg([entry])
    assert info.value.field == "modules.plugins"
    assert "'path/to/file.py:Class' or 'package.module:Class'" in str(info.value)


@pytest.mark.parametrize("value", [[3], "leaky.py:Leaky"])
def test_plugins_is_a_list_of_strings(value):
    with pytest.raises(ConfigError, match="modules.plugins = .* is not allowed: expected a list of names"):
        load_config(overrides={"modules": {"plugins": value}})


def test_a_file_is_loaded_registered_and_recorded_relative_to_its_config_file(tmp_path, plugin_file):
    (tmp_path / "mods").mkdir()
    mod = plugin_file(folder=tmp_path / "mods")
    stem = mod.stem
    config = tmp_path / "cfg.yaml"
    config.write_text(f"modules: {{plugins: ['mods/{stem}.py:Echo'], enabled: [expectation, echo]}}\n")
    cfg = load_config(path=config)
    entry = f"{mod.resolve()}:Echo"
    assert cfg.modules.plugins == (entry,)  # the resolved configuration holds the absolute path
    assert cfg.modules.enabled == ("expectation", "echo")
    assert plugins.lookup("echo", "classical").__module__ == stem
    assert plugin_paths.records(cfg.modules.plugins) == [{
        "entry": entry, "name": "echo", "class": f"{stem}.Echo", "file": str(mod.resolve()),
        "sha256": hashlib.sha256(mod.read_bytes()).hexdigest()}]
    assert plugins.script_registered(["echo"]) == []  # the command line can import it again
    again = load_config(path=config)  # loading the same file again is the same registration
    assert again.modules.plugins == cfg.modules.plugins


def test_a_name_can_be_given_and_a_dotted_module_is_imported(tmp_path, plugin_file, monkeypatch):
    mod = plugin_file()
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = _cfg([f"echoed={mod.stem}:Echo"], enabled=["echoed"])
    assert cfg.modules.enabled == ("echoed",)
    assert plugin_paths.records(cfg.modules.plugins)[0]["file"] == str(mod.resolve())


@pytest.mark.parametrize("source, attr, fragment", [
    (MODULE, "Missing", "expected a class Missing in "),
    ("class NotAModule:\n    pass\n", "NotAModule", "expected a subclass of cognition.modules.CognitiveModule "
                                                   "(NotAModule is a class that does not derive from it)"),
    ("VALUE = 3\n", "VALUE", "(VALUE is an object of type int)"),
    ("from cognition.modules import CognitiveModule\nclass Half(CognitiveModule):\n    pass\n", "Half",
     "expected a class that implements the protocol (Half does not define init_state, propose)"),
    ("import torch\nraise RuntimeError('broken\\nsecond line')\n", "X",
     "expected a file that imports cleanly (it raised RuntimeError: broken)"),
    ("def f(:\n", "X", "expected a file that imports cleanly (it raised SyntaxError"),
    # issue 43: a file that ends the process its own way is refused like one that raises, not obeyed
    ("import sys\nsys.exit(0)\n", "X", "expected a file that imports cleanly (it called sys.exit(0))"),
    ("import sys\nsys.exit(3)\n", "X", "expected a file that imports cleanly (it called sys.exit(3))"),
    ("raise KeyboardInterrupt\n", "X", "expected a file that imports cleanly (it raised KeyboardInterrupt itself"),
])
def test_a_file_that_cannot_serve_is_one_line_naming_the_field(plugin_file, source, attr, fragment):
    mod = plugin_file(source)
    with pytest.raises(ConfigError) as info:
        _cfg([f"{mod}:{attr}"])
    assert info.value.field == "modules.plugins" and info.value.value == f"{mod}:{attr}"
    assert fragment in str(info.value) and "\n" not in str(info.value)
    assert mod.stem not in sys.modules or attr != "X"  # a file that raised is not left half-imported


def test_missing_files_modules_and_taken_names_are_refused(tmp_path, plugin_file):
    with pytest.raises(ConfigError, match=r"expected an existing \.py file \(.*nope\.py is missing\)"):
        _cfg([f"{tmp_path}/nope.py:Echo"])
    # issue 43: a directory or a device named like a module is said to be one, not "missing"
    (tmp_path / "folder.py").mkdir()
    with pytest.raises(ConfigError, match=r"\(.*folder\.py is a directory\)"):
        _cfg([f"{tmp_path}/folder.py:Echo"])
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match=r"\(.*zero\.py is a symlink to /dev/zero, a character device\)"):
        _cfg([f"{tmp_path}/zero.py:Echo"])
    with pytest.raises(ConfigError, match=r"expected an importable module \(ModuleNotFoundError: No module named "
                                          "'no_such_pkg_h1'\\)"):
        _cfg(["no_such_pkg_h1.mod:Echo"])
    shadow = plugin_file(stem="json")
    with pytest.raises(ConfigError, match="a module 'json' is already imported from .*; rename the file"):
        _cfg([f"{shadow}:Echo"])
    with pytest.raises(ConfigError, match="module name 'hybrid' is taken by the package"):
        _cfg([f"hybrid={plugin_file()}:Echo"])


def test_an_unknown_module_names_the_path_route():
    with pytest.raises(ConfigError, match=r"or by path in modules.plugins: \['path/to/file.py:Class'\]"):
        _cfg([], enabled=["leaky"])


def test_validate_refuses_a_bad_plugin_in_one_line_and_writes_nothing(tmp_path, capsys):
    config = tmp_path / "cfg.yaml"
    config.write_text("modules: {plugins: ['gone.py:Leaky'], enabled: [expectation]}\n")
    out = tmp_path / "run"
    assert validate.main(["--config", str(config), "--out", str(out), "--disable-quantum", "--quick"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: modules.plugins = ") and "gone.py is missing" in err
    assert not out.exists()
    # a file that calls sys.exit(0) at import: exit 2 and one line naming it, not exit 0 and silence
    (tmp_path / "quits.py").write_text("import sys\nsys.exit(0)\n")
    config.write_text("modules: {plugins: ['quits.py:Quits'], enabled: [expectation]}\n")
    assert validate.main(["--config", str(config), "--out", str(out), "--disable-quantum", "--quick"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "quits.py:Quits" in err and "(it called sys.exit(0))" in err
    assert not out.exists()
    assert validate.main(["--accept-plugin-change", "--out", str(out)]) == 2
    assert "--accept-plugin-change goes with --resume" in capsys.readouterr().err


def _provenance(run_dir: Path, entry: str, sha: str, name: str = "provenance.json") -> None:
    run_dir.mkdir(exist_ok=True)
    (run_dir / name).write_text(json.dumps({"plugins": [{"entry": entry, "name": "echo", "sha256": sha}]}))


def test_resume_check_refuses_a_changed_or_missing_file_unless_accepted(tmp_path, plugin_file):
    mod = plugin_file()
    entry, run = f"{mod}:Echo", tmp_path / "run"
    assert plugin_paths.check_resume(run) == []  # no record: not judged
    _provenance(run, entry, hashlib.sha256(mod.read_bytes()).hexdigest())
    assert plugin_paths.check_resume(run) == []
    mod.write_text(MODULE + "# changed\n")
    with pytest.raises(PluginFileChanged) as info:
        plugin_paths.check_resume(run)
    text = str(info.value)
    assert text.startswith(f"--resume {run}: modules.plugins = {entry!r}: {mod} changed since the run last ran")
    assert "in provenance.json" in text and text.endswith(f"--resume {run} --accept-plugin-change")
    assert "\n" not in text
    notes = plugin_paths.check_resume(run, accept_changed=True)
    assert len(notes) == 1 and "continuing with the changed module" in notes[0]
    # the newest record wins: a resume that accepted the change recorded the new bytes
    _provenance(run, entry, hashlib.sha256(mod.read_bytes()).hexdigest(), "provenance.resume.json")
    assert plugin_paths.check_resume(run) == []
    mod.unlink()
    with pytest.raises(PluginFileChanged, match="its file .* is missing; the run was started with it"):
        plugin_paths.check_resume(run, accept_changed=True)


def test_a_run_with_a_script_module_is_told_to_resume_from_a_script(tmp_path, plugin_file):
    from cognition.modules import CognitiveModule, register_module

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("modules:\n  enabled: [expectation, echo]\n")
    assert resume_command(run) == f"python -m cognition.validate --resume {run}"  # nothing registered yet
    register_module("echo")(type("Echo", (CognitiveModule,), {"__module__": __name__, "name": "",
                                                               "init_state": None, "propose": None}))
    said = resume_command(run)
    assert said.startswith(f"cognition.api.Simulator.resume({str(run)!r}).run() in a script that first imports "
                           "the module echo")
    assert "modules.plugins" in said
    plugins.unregister("echo")
    _cfg([f"{plugin_file()}:Echo"])  # the same name loaded by path: the command line can import it
    assert resume_command(run) == f"python -m cognition.validate --resume {run}"


def test_resuming_a_run_of_an_unregistered_module_names_the_script_route(tmp_path):
    from cognition.simulator.rundir import open_for_resume

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("modules:\n  enabled: [expectation, ghost]\n")
    with pytest.raises(ConfigError) as info:
        open_for_resume(run)
    assert info.value.field == "modules.enabled" and "\n" not in str(info.value)
    assert str(info.value).endswith(f"is resumed from a script that imports it: "
                                    f"cognition.api.Simulator.resume({str(run)!r})")


def test_a_module_whose_build_fails_leaves_no_run_directory(tmp_path, plugin_file):
    import cognition.api as hc

    mod = plugin_file(MODULE.replace("return {\"x\": torch.zeros(len(agents), self.D",
                                     "return {\"x\": torch.zeros(agents, self.D"))  # the mistake the old page invited
    cfg = hc.configure(quantum={"mode": "disabled"}, run={"agents": 2, "cycles": 3},
                       modules={"plugins": [f"{mod}:Echo"], "enabled": ["expectation", "echo"]})
    out = tmp_path / "run"
    with pytest.raises(Exception, match="init_state|zeros"):
        hc.Simulator(cfg, out=out, progress=False)
    assert not out.exists()


# -- end to end: docs/modules.md's module, verbatim, in fresh interpreters ----------------------------------
def _fenced(heading: str, lang: str) -> str:
    """The first ``lang`` block after the line ``heading`` of docs/modules.md, as the page has it."""
    page = DOC.read_text()
    start = page.index(f"\n{heading}\n")
    return re.search(rf"```{lang}\n(.*?)```", page[start:], re.S).group(1)


def test_the_pages_blocks_are_there():
    assert "class Leaky(CognitiveModule)" in _fenced("## A minimal module", "python")
    assert "leaky.py:Leaky" in _fenced("## Running it from a YAML file", "yaml")


def _python(args, cwd, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.integration
def test_the_documented_module_runs_from_yaml_through_validate_and_a_sweep_killed_and_resumed(tmp_path):
    work = tmp_path / "work"
    (work / "mods").mkdir(parents=True)
    (work / "mods" / "leaky.py").write_text(_fenced("## A minimal module", "python"))
    (work / "mods" / "leaky.yaml").write_text(_fenced("## Running it from a YAML file", "yaml"))
    flags = ["--disable-quantum", "--cycles", "14", "--agents", "4"]
    ref = _python(["-m", "cognition.validate", "--config", "mods/leaky.yaml", *flags, "--out", tmp_path / "ref"], work)
    assert ref.returncode in (0, 1), ref.stderr  # 1: a criterion may fail at 14 cycles
    assert "status: completed, 14 cycles" in ref.stdout
    report = json.loads((tmp_path / "ref" / "report.json").read_text())
    assert "leaky.salience" in json.dumps(report) and "leaky.content_mean" in json.dumps(report)
    prov = json.loads((tmp_path / "ref" / "provenance.json").read_text())
    assert prov["plugins"][0]["file"] == str((work / "mods" / "leaky.py").resolve())

    run = tmp_path / "run"
    killed = _python(["-m", "cognition.validate", "--config", "mods/leaky.yaml", *flags, "--out", run,
                      "--inject-fault", "sigkill@9"], work)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = _python(["-m", "cognition.validate", "--resume", run], tmp_path)  # from elsewhere: the path is absolute
    assert resumed.returncode in (0, 1), resumed.stderr
    assert science(run) == science(tmp_path / "ref")

    # a two-point sweep over the module's own setting, from the same YAML file; the 0.3 point (the file's own
    # value) is killed, resumed by the sweep, and equals the validate run bit for bit
    (work / "sweep.yaml").write_text("config: mods/leaky.yaml\nbase: {quantum: {mode: disabled}, run: {cycles: 14, "
                                     "agents: 4}}\ngrid:\n  modules.settings.leaky.leak: [0.3, 0.6]\n")
    sweep = _python(["-m", "cognition.sweep", "sweep.yaml", "--out", tmp_path / "sweep", "--inject-fault",
                     "1:sigkill@9"], work, timeout=600)
    point = tmp_path / "sweep" / "modules.settings.leaky.leak=0.3"
    met = [json.loads((tmp_path / "sweep" / f"modules.settings.leaky.leak={v}" / "report.json").read_text())["passed"]
           for v in ("0.3", "0.6")]
    assert sweep.returncode == (0 if all(met) else 1), sweep.stderr + sweep.stdout  # 1: a criterion failed at 14 cycles
    assert "2/2 points done" in sweep.stderr and "0 failed" in sweep.stderr, sweep.stderr
    assert "--resume" in (tmp_path / "sweep" / "logs" / f"{point.name}.log").read_text()
    assert science(point) == science(tmp_path / "ref")
    rows = (tmp_path / "sweep" / "aggregate.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].split(",")[1] == "modules.settings.leaky.leak"

    # the module's file changed while a run was stopped: refused in one line, accepted only when asked
    shutil.rmtree(run)
    killed = _python(["-m", "cognition.validate", "--config", "mods/leaky.yaml", *flags, "--out", run,
                      "--inject-fault", "sigkill@9"], work)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    leaky = work / "mods" / "leaky.py"
    leaky.write_text(leaky.read_text().replace("s.leak * b", "s.leak * b * 0.5"))
    refused = _python(["-m", "cognition.validate", "--resume", run], work)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "modules.plugins = " in refused.stderr and "changed since the run last ran" in refused.stderr
    accepted = _python(["-m", "cognition.validate", "--resume", run, "--accept-plugin-change"], work)
    assert accepted.returncode in (0, 1), accepted.stderr
    assert "continuing with the changed module" in accepted.stderr
    assert json.loads((run / "provenance.resume.json").read_text())["plugins"][0]["sha256"] != \
        prov["plugins"][0]["sha256"]
