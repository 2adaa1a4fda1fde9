"""`cardgen serve`: a live preview of one game in the browser, on this computer only.

`preview.py` keeps the game checked (`cardgen.pipeline.check.check_game`, the path
`validate` and `build` take) and its card images made (`cardgen.render.raster`), again after
every saved change (`cardgen.pipeline.watch`); `server.py` shows it on 127.0.0.1 with the
standard library's HTTP server and tells open pages what changed (server-sent events).
"""
