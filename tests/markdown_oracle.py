"""What GitHub shows for a Markdown text: the oracle of the Markdown renderings.

GitHub renders comments with cmark-gfm; `cmarkgfm` binds that C library, with its table,
strikethrough and autolink extensions. GitHub keeps the raw HTML of a comment and then drops
the tags its sanitizer does not allow (``<int>`` of ``BM_Sort<int>`` disappears); the helpers
here render with raw HTML kept and report every element the renderer made beyond tables,
paragraphs, lists, code and line breaks, and read back the text a reader sees.
"""
from __future__ import annotations

import html.parser

import cmarkgfm
from cmarkgfm.cmark import Options


def rendered(markdown: str) -> str:
    """The HTML GitHub's renderer makes of `markdown`, raw HTML kept (GitHub's sanitizer runs
    after it)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


class _Reader(html.parser.HTMLParser):
    """The text inside each element named in `tags` (``<br>`` read as a line break), and
    whether any other element than the renderer's own structure appeared."""

    STRUCTURE = {"table", "thead", "tbody", "tr", "th", "td", "p", "ul", "li", "code", "pre",
                 "strong", "details", "summary", "h3"}

    def __init__(self, tags: set[str]):
        super().__init__(convert_charrefs=True)
        self.tags, self.texts, self.depth, self.foreign = tags, [], 0, []

    def handle_starttag(self, tag, attrs):
        if tag == "br" and self.depth:
            self.texts[-1] += "\n"
        elif tag in self.tags:
            self.depth += 1
            self.texts.append("")
        elif tag not in self.STRUCTURE and tag != "br":
            self.foreign.append(tag)

    def handle_endtag(self, tag):
        if tag in self.tags:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.texts[-1] += data

    def handle_comment(self, data):
        self.foreign.append("comment: " + data)


def shown(markdown: str, tags: set[str]) -> tuple[list[str], list[str]]:
    """The texts a reader sees in the elements `tags` of the rendered `markdown`, and the
    elements other than tables, paragraphs, lists and code (emphasis, links, images, raw HTML
    placeholders) the renderer made: a rendering of plain text should make none."""
    reader = _Reader(tags)
    reader.feed(rendered(markdown))
    return reader.texts, reader.foreign


def table_cells(markdown: str) -> tuple[list[str], list[str]]:
    """The header and body cells of the tables of `markdown`, as shown, and the foreign
    elements (see `shown`)."""
    return shown(markdown, {"th", "td"})
