"""Every configuration field is tagged by what it changes, in the schema only, and docs/configuration.md shows
each tag (issue 32)."""
import dataclasses
import re
from pathlib import Path

import pytest

from cognition.config.settings import CHANGES_OF, Config
from cognition.config.schema import CHANGES, field_tags, leaves, section, setting

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_every_field_has_a_tag():
    assert set(CHANGES_OF) == set(leaves(Config()))
    assert set(CHANGES_OF.values()) <= set(CHANGES)


@pytest.mark.parametrize("key, tag", [
    ("runtime.autocast", "numerics"), ("runtime.compile", "numerics"), ("runtime.device", "numerics"),
    ("run.dtype", "numerics"), ("quantum.precision", "numerics"), ("quantum.backend", "numerics"),
    ("runtime.threads", "execution"), ("quantum.lite_threads", "execution"), ("runtime.batch", "execution"),
    ("run.seed", "science"), ("modules.hybrid.gamma", "science"), ("criteria.alpha", "verdict"),
])
def test_tags_of_the_fields_that_differ_from_their_section(key, tag):
    assert CHANGES_OF[key] == tag


def test_an_untagged_field_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Inner:
        a: int = 1
        b: str = setting("x", "numerics")

    @dataclasses.dataclass(frozen=True)
    class Tagged:
        inner: Inner = section(Inner, "science")

    @dataclasses.dataclass(frozen=True)
    class Untagged:
        inner: Inner = dataclasses.field(default_factory=Inner)

    assert field_tags(Tagged) == {"inner.a": "science", "inner.b": "numerics"}
    with pytest.raises(TypeError, match="inner.a has no 'changes' tag"):
        field_tags(Untagged)


def test_diff_names_each_differing_field_with_both_values():
    a = Config()
    b = dataclasses.replace(a, runtime=dataclasses.replace(a.runtime, autocast="bf16", threads=8))
    assert a.diff(b) == [("runtime.autocast", None, "bf16")]  # threads: execution, not compared
    assert a.diff(b, changes=("execution",)) == [("runtime.threads", 1, 8)]


def test_the_docs_show_the_tag_of_every_key():
    shown, current = {}, None
    for line in DOC.read_text().splitlines():
        heading = re.match(r"## (\w+)$", line)
        if heading:
            current = heading.group(1)
        row = re.match(r"\| `([\w.]+)` \| [^|]* \| (\w+) \|", line)
        if row and current is not None:
            shown[f"{current}.{row.group(1)}"] = row.group(2)
    assert shown == CHANGES_OF
