"""Command-line flags made from the declarations (`opt()`, cardgen/schema/core.py): `cardgen
build`'s every flag, `render`'s, and the same options where other commands take them (`serve
--lang`, `i18n export --lang`), each command in its own words; and the commands whose flags are
made only when the command is used."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cardgen.core.imports import importing

if TYPE_CHECKING:   # (imported when a flag is made: `cardgen --help` makes none)
    from cardgen.schema.core import Decl, Kind, Opt


class _CommaChoice(click.Choice):
    """A choice given once or as a comma-separated list (`print,tts`): a tuple of choices."""

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        return tuple(super(_CommaChoice, self).convert(v.strip(), param, ctx) for v in str(value).split(","))


def click_option(o: Opt, dest: str, help: str | None = None, **attrs: Any) -> click.Option:
    """A declared option as a flag: `cardgen build`'s, its help the declaration's words and
    default; `help`: another command's own words for it, `attrs`: click's (`required=True`,
    `default="en"`)."""
    from cardgen.schema.core import Bool, ListOf

    kind, multiple = o.kind, False
    if isinstance(kind, ListOf):
        kind, multiple = kind.item, True
    help_text = o.doc[0].upper() + o.doc[1:]
    if isinstance(kind, Bool):
        kw: dict[str, Any] = {"is_flag": True, "default": False,
                              "help": ("Do not " + o.doc if o.cli.startswith("--no-") else help_text) + "."}
    else:
        kw = {"help": help_text + f" (default: {o.default_text().strip('`')}).", **_value(o, kind, multiple)}
    if help is not None:
        kw["help"] = help
    return click.Option([o.cli, dest], **{**kw, **attrs})


def _value(o: Opt, kind: Kind, multiple: bool) -> dict[str, Any]:
    """How a flag of `kind` (a list's item when `multiple`) takes its value: click's arguments."""
    from cardgen.pipeline.options import Folder, OutputName, metavar
    from cardgen.schema.core import STATIC_ENV, Choice, Invalid

    if isinstance(kind, OutputName):
        kind = kind.choice
    if isinstance(kind, Choice) and multiple:      # `--only print --only tts` or `--only print,tts`
        return {"type": _CommaChoice(kind.choices), "multiple": True,
                "callback": lambda ctx, param, value: tuple(v for vs in value for v in vs)}
    if isinstance(kind, Choice):
        return {"type": click.Choice(kind.choices)}
    if isinstance(kind, Folder):
        return {"type": click.Path(file_okay=False, path_type=Path), "metavar": kind.metavar}
    item = kind

    def convert(ctx, param, value):
        if value is None or value == ():
            return value
        try:
            return o.kind.convert(list(value), STATIC_ENV) if multiple else item.convert(value, STATIC_ENV)
        except Invalid as exc:
            raise click.BadParameter(exc.message) from None

    return {"callback": convert, "multiple": multiple, "metavar": metavar(kind)}


def declared(decl: type[Decl], attr: str, help: str, **attrs: Any) -> click.Option:
    """The flag of `decl`'s option `attr` (its name, value check and metavar as `cardgen build`
    has them), for a command that says in `help` what it does there; its value comes to the
    command as `attr`."""
    o = next(o for a, o in decl.options().values() if a == attr)
    return click_option(o, attr, help, **attrs)


class Lazy(click.Command):
    """A command whose parameters come from declarations and are made when it is used
    (`make_params`; or `later`: a function giving those to add to the ones its decorators
    made), so `cardgen --help` and `cardgen validate` do not import the outputs' modules."""

    def __init__(self, name: str, callback, params: list[click.Parameter] | None = None,
                 later: Callable[[], list[click.Parameter]] | None = None, **attrs: Any) -> None:
        self._params: list[click.Parameter] | None = None
        self._later = later
        attrs.setdefault("help", callback.__doc__)
        super().__init__(name, callback=callback, params=params, **attrs)

    def make_params(self) -> list[click.Parameter]:
        if self._later is None:
            raise NotImplementedError
        return [*self._eager, *self._later()]

    @property
    def params(self) -> list[click.Parameter]:
        if self._params is None:
            with importing():       # (the declarations' modules: `core.imports`)
                self._params = self.make_params()
        return self._params

    @params.setter
    def params(self, value: list[click.Parameter]) -> None:
        self._eager, self._params = list(value), None
