"""The text engine: every text cardgen prints is set here, on cards, in the rules booklet and
on the player aid.

    markup.py   text -> paragraphs of words made of spans (`**bold**`, `*italic*`, `:icon:`)
    measure.py  a span -> runs by font with their widths: the one place shaping goes
    typeset.py  line breaking, fitting (`fit: shrink`), alignment; a text in a box (`set`)
                or at its size for a flow (`set_lines`)
    flow.py     set text as strips (one per line) that go down frames and pages (`flow`)

It comes after `resources` (fonts, icons) and before `render`: it measures without drawing,
so `cardgen validate` lays out every card's text without ReportLab.
"""
