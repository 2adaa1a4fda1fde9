"""cardgen: print-and-play card generator.

The pipeline, one module a stage, plain data between them:

    yamlsrc        load YAML, keeping the source line of every value
    model          games, decks and cards (plain dataclasses); schema: the keys each file takes
    components     the rules' component list;  validate: schema, references and counts
    templates      layout templates, `extends:` resolved;  expr: sandboxed Jinja values
    layout         one card through its template -> positioned drawing operations (ops)
                   (richtext: markup and line breaking; fonts, icons: what text and icons use)
    draw           drawing operations -> ReportLab canvas, each card side one PDF form
    impose         sheet geometry: grids, crop marks, duplex mirroring;  pdfout: the PDFs
    rulebook       the rules summary in rules.yaml;  booklet, impose_booklet: booklet, player aid
    raster         card sides -> exact-size bitmaps with pypdfium2 (cached);  tts: TTS decks
    atomic         write outputs atomically
    build          runs the stages for each game;  cli: the `cardgen` command
"""
__version__ = "0.1.0"
