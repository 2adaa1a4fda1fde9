"""What changed since an earlier build or git revision (docs/changes.md): the baseline a game
is compared with, for `cardgen changes` and the `changes` output of `cardgen build
--changed-since`.

The baseline is a build folder's `manifest.json` (the game's own output folder by default,
the one the next build replaces), or the game as it was at a git revision: the repository's
files at that commit are unpacked into a temporary folder (`git archive`), the game is laid
out there like a build would (nothing is written) and its manifest made in memory.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from cardgen.core import gitinfo
from cardgen.core.errors import CardgenError, Diagnostic, Loc, Report, display_path
from cardgen.layout.changes import Changes, compare
from cardgen.layout.engine import Rendered, layout_game
from cardgen.layout.manifest import MANIFEST, Manifest, ManifestError, manifest_of, read_manifest
from cardgen.load.game import Game
from cardgen.pipeline.check import Checked, check_game


def laid_out(checked: Checked, report: Report) -> Rendered | None:
    """The checked game's cards laid out (also when it has no decks, which the checks skip);
    None when errors stop it."""
    game = checked.game
    if game is None or checked.blocking(report):
        return None
    if checked.rendered is not None:
        return checked.rendered
    try:
        return layout_game(game, report)
    except CardgenError as exc:
        report.extend(exc.diagnostics)
        return None


def _from_folder(folder: Path, game: Game, since: str) -> Manifest:
    """The manifest in a build folder: `folder/manifest.json` or `folder/<game>/manifest.json`."""
    for candidate in (folder, folder / game.slug):
        if (candidate / MANIFEST).is_file():
            try:
                found = read_manifest(candidate)
            except ManifestError as exc:
                raise CardgenError(Loc(exc.where), exc.reason, code="manifest") from None
            if found is not None:
                return found
    raise CardgenError(Loc(since), f"no {MANIFEST} of {game.slug} in this folder (neither here nor in "
                                   f"{game.slug}/); give a build folder of cardgen 0.2 or later, or a git "
                                   f"revision", code="manifest")


def at_revision(game: Game, ref: str) -> Manifest:
    """The manifest of `game` as it was at git revision `ref`, laid out in a temporary folder;
    an empty one if the game did not exist then."""
    try:
        commit = gitinfo.commit_of(game.root, ref)
        top = gitinfo.toplevel(game.root)
        if top is None or not gitinfo.has_file(game.root, commit, game.root / "game.yaml"):
            return Manifest(game.slug, "", [])
        top, root, project = top.resolve(), game.root.resolve(), game.project.resolve()
        inside = project.is_relative_to(top)
        with tempfile.TemporaryDirectory(prefix="cardgen-changes-") as tmp:
            # only the project's files (the game's, when the project is not in the repository)
            tree = gitinfo.archive(game.root, commit, Path(tmp), project if inside else root)
            then = tree / root.relative_to(top)
            # a project outside the repository (only the game is in git): its files as they are now
            project_then = tree / project.relative_to(top) if inside else project
            report = Report()
            rendered = laid_out(check_game(then, project_then, report), report)
            if rendered is None:
                errors = [d for d in report.items if d.severity == "error"] or \
                    [Diagnostic(Loc(""), "it cannot be laid out")]
                raise CardgenError(Loc(str(game.root)), f"{game.slug} as it was at {ref} does not build "
                                                        f"({len(errors)} error{'s' if len(errors) != 1 else ''}, "
                                                        f"the first: {errors[0].message}); compare with a build "
                                                        f"folder instead", code="changes")
            then_manifest = manifest_of(rendered)
        if not then_manifest.version and "version" not in rendered.game.data:    # versioned by git
            then_manifest.version = gitinfo.describe_commit(game.root, commit)
        return then_manifest
    except gitinfo.GitError as exc:
        raise CardgenError(Loc(str(game.root)), str(exc), code="git") from None


def changes_since(since: str | None, game: Game, new: Manifest, previous: Manifest | None) -> Changes:
    """What changed from the baseline `since` names to the manifest `new`: `since` None is the
    game's last build (`previous`), a folder a build folder, anything else a git revision."""
    if since is None:
        if previous is None:
            raise CardgenError(Loc(str(game.root)), f"{game.slug} has no earlier build to compare with; build it "
                                                    f"first, or name a build folder or git revision (--since)",
                               code="changes")
        return compare(previous, new, "the last build", revisions=True)
    folder = Path(since)
    if folder.is_dir():
        return compare(_from_folder(folder, game, since), new, display_path(since), revisions=True)
    return compare(at_revision(game, since), new, since, revisions=False)


def game_changes(path: Path, project: Path, since: str | None, out: Path | None, report: Report) -> Changes:
    """`cardgen changes`: the game at `path` laid out as a build would (revisions continuing
    from its last build into `out`), compared with `since`.  CardgenError when it cannot be
    laid out."""
    checked = check_game(path, project, report, out)
    rendered = laid_out(checked, report)
    if rendered is None or checked.game is None:
        raise CardgenError(None, diagnostics=sorted(set(report.items), key=Diagnostic.sort_key))
    return changes_since(since, checked.game, manifest_of(rendered), checked.previous)
