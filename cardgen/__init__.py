"""cardgen: print-and-play card generator.

The pipeline, one module a stage, plain data between them:

    yamlsrc   load YAML, keeping the source line of every value
    model     games, decks and cards (plain dataclasses)
    templates layout templates, `extends:` resolved
    layout    one card through its template -> positioned drawing operations
    draw      drawing operations -> ReportLab canvas
    impose    sheet geometry: grids, crop marks, duplex mirroring
    pdfout    print sheets and cards.pdf
    atomic    write outputs atomically
    build     runs the stages for each game
    cli       the `cardgen` command
"""
__version__ = "0.1.0"
