"""cardgen's version: declared here only (pyproject.toml reads it, `cardgen.__version__` and
the PDFs' Creator show it)."""
VERSION = "0.1.0"
