"""docs/outputs.md's tables, from the outputs' declarations (a test holds the doc to them)."""
from __future__ import annotations

from cardgen.outputs import OUTPUTS
from cardgen.schema.core import doc_table

BEGIN = "<!-- generated: cardgen.outputs.docs.options_markdown() -->"
END = "<!-- end of generated part -->"


def options_markdown() -> str:
    """One section per output: what it writes, its summary, its options table and the
    command-line flags that set them."""
    parts = []
    for name, o in OUTPUTS.items():
        lines = [f"## `{name}`: {o.files}", "", o.summary + ("" if o.default else
                                                            f" Made only when asked for: `--only {name}`."), ""]
        if o.section is None or not o.Options.options():
            lines.append("No options." if o.section is None else "")
        else:
            lines += [f"Options, in game.yaml under `{o.section}:`:", "", doc_table(o.Options)]
            flags = [(o_.cli, key) for key, (_, o_) in o.Options.options().items() if o_.cli]
            if flags:
                lines += ["", "On the command line (over game.yaml): "
                          + ", ".join(f"`{flag}` sets `{key}`" + (": false" if flag.startswith("--no-") else "")
                                   for flag, key in flags) + "."]
            if o.DeckOptions is not None:
                lines += ["", f"A deck file's own `{o.section}:` may set these for its deck (over game.yaml's):", "",
                          doc_table(o.DeckOptions)]
        parts.append("\n".join(lines).rstrip())
    return "\n\n".join(parts) + "\n"
