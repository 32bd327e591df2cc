"""A report as data (sections of paragraphs, lists, tables and figures), rendered twice.

The same :class:`Section` list becomes ``report.md`` (figures linked as files beside
it) and ``report.html`` (figures embedded as base64 ``data:`` URIs, so the page is
one file that can be opened or mailed on its own). Writing the content once keeps the
two from drifting apart.
"""
from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass
class Figure:
    path: Path  # a PNG file
    caption: str


@dataclass
class Section:
    """One ``##`` section: a title and blocks (str paragraph, list[str] bullets, Table, Figure)."""

    title: str
    blocks: list = field(default_factory=list)


def markdown(title: str, sections: list[Section]) -> str:
    """GitHub-flavoured markdown; figures are relative links (the PNGs sit beside the .md)."""
    out = [f"# {title}", ""]
    for s in sections:
        out += [f"## {s.title}", ""]
        for b in s.blocks:
            out += _md_block(b) + [""]
    return "\n".join(out).rstrip() + "\n"


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_block(b) -> list[str]:
    if isinstance(b, str):
        return [b]
    if isinstance(b, list):
        return [f"- {item}" for item in b]
    if isinstance(b, Table):
        return (["| " + " | ".join(_md_cell(h) for h in b.header) + " |",
                 "|" + "---|" * len(b.header)] +
                ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows])
    if isinstance(b, Figure):
        return [f"![{b.caption}]({b.path.name})", "", f"*{b.caption}*"]
    raise TypeError(f"report block of type {type(b).__name__} is not a str, list, Table or Figure")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{border-bottom:2px solid #ddd;padding-bottom:.3rem}h2{margin-top:2rem;border-bottom:1px solid #eee}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:left;
vertical-align:top}th{background:#f4f4f4}td.pass{color:#116611;font-weight:600}td.fail{color:#b00020;font-weight:600}
figure{margin:1rem 0}img{max-width:100%;height:auto;border:1px solid #eee}figcaption{color:#555;font-size:.9rem}
code{background:#f4f4f4;padding:0 .2rem}
""".strip()


def html_page(title: str, sections: list[Section]) -> str:
    """A self-contained HTML5 page: inline CSS, PNGs as data URIs, no script, no external resource."""
    esc = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{esc(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>", f"<h1>{esc(title)}</h1>"]
    for i, s in enumerate(sections):
        out.append(f'<section id="s{i}"><h2>{esc(s.title)}</h2>')
        out += [_html_block(b) for b in s.blocks]
        out.append("</section>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def _html_cell(text: str, tag: str) -> str:
    verdict = {"pass": ' class="pass"', "FAIL": ' class="fail"'}.get(str(text), "")
    return f"<{tag}{verdict if tag == 'td' else ''}>{html.escape(str(text))}</{tag}>"


def _html_block(b) -> str:
    if isinstance(b, str):
        return f"<p>{html.escape(b)}</p>"
    if isinstance(b, list):
        return "<ul>" + "".join(f"<li>{html.escape(str(i))}</li>" for i in b) + "</ul>"
    if isinstance(b, Table):
        head = "<tr>" + "".join(_html_cell(h, "th") for h in b.header) + "</tr>"
        body = "".join("<tr>" + "".join(_html_cell(c, "td") for c in row) + "</tr>" for row in b.rows)
        return f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"
    if isinstance(b, Figure):
        data = base64.b64encode(Path(b.path).read_bytes()).decode("ascii")
        cap = html.escape(b.caption)
        return (f'<figure><img alt="{cap}" src="data:image/png;base64,{data}">'
                f"<figcaption>{cap}</figcaption></figure>")
    raise TypeError(f"report block of type {type(b).__name__} is not a str, list, Table or Figure")
