"""`cardgen upload tgc`: make (or bring up to date) a game at The Game Crafter from a plan
(`cardgen.pipeline.tgc_plan`) through its API (`cardgen.pipeline.tgc_api`).

Order of calls: sign in; the user (its root folder) and designers; the game (found by the id
remembered, else by name among the designer's games; else made); its folder; each image not
uploaded before (by content); per deck the container (deck, punchout set, board set: its
product identity, shared back, proof flag), then its cards or pieces, each made, changed or
removed to match; cardgen's containers no longer in the game removed; the price quote; sign out.

What was made is remembered in `build/<game>/.cache/tgc/state.json` (ids and image digests,
never a credential), written after every object made, so that a run cut short continues where
it stopped and a second run changes what changed and makes nothing twice.  The file is used
only by the account that wrote it; without it the game, decks and cards are found by name.
"""
from __future__ import annotations

import hmac
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardgen.core.errors import plural
from cardgen.pipeline.tgc_api import Client, TgcError, Upload
from cardgen.pipeline.tgc_plan import MAX_UPLOAD, Item, Plan, digest, prepared
from cardgen.pipeline.tgc_products import Family

STATE_FORMAT = 1


def _stamp(path: Path, body: dict) -> str | None:
    """An HMAC of the state and the folder it is in under this user's key (`core.digest`): a
    state file that came with a game's build folder, or was copied from another, is not used.
    None without a key (then no state is kept)."""
    from cardgen.core.digest import mac, user_key

    key = user_key()
    if key is None:
        return None
    folder = os.fsencode(os.path.realpath(path.parent))
    return mac(key, b"cardgen tgc upload state", folder, json.dumps(body, sort_keys=True).encode())


def _read(path: Path) -> dict | None:
    """The state kept at `path`, if this user's cardgen wrote it there."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("body"), dict):
        return None
    stamp = _stamp(path, data["body"])
    if stamp is None or not hmac.compare_digest(str(data.get("stamp")), stamp):
        return None
    body: dict = data["body"]
    return body if body.get("format") == STATE_FORMAT else None


@dataclass
class State:
    """What an upload made (`body`): the account's user id, the game's and folder's ids, each
    image's TGC file id by the SHA-256 of what was sent, each deck's container id and product."""

    path: Path
    data: dict = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, user_id: str) -> State:
        data = _read(path)
        if data is None or data.get("user_id") != user_id:
            data = {"format": STATE_FORMAT, "user_id": user_id}
        if not isinstance(data.get("files"), dict):
            data["files"] = {}
        if not isinstance(data.get("items"), dict):
            data["items"] = {}
        return cls(path, data)

    def save(self) -> None:
        from cardgen.core.atomic import write_bytes

        stamp = _stamp(self.path, self.data)
        if stamp is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(self.path, (json.dumps({"stamp": stamp, "body": self.data}, indent=1, sort_keys=True)
                                + "\n").encode())


def known_files(path: Path) -> dict[str, str]:
    """The images (sha256 -> TGC file id) the state remembers, for the dry run."""
    data = _read(path) or {}
    files = data.get("files", {})
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


@dataclass
class Tally:
    """How many of each thing an upload made."""

    made: dict[str, int] = field(default_factory=dict)

    def add(self, what: str, n: int = 1) -> None:
        self.made[what] = self.made.get(what, 0) + n

    def line(self) -> str:
        return ", ".join(f"{what} {n}" for what, n in self.made.items() if n) or "nothing to change"


@dataclass
class Sync:
    """An upload under way."""

    plan: Plan
    client: Client
    state: State
    proofed: bool = False
    designer: str | None = None
    say: Callable[[str], None] = print
    tally: Tally = field(default_factory=Tally)
    game_id: str = ""
    files: dict[tuple[str, str], str] = field(default_factory=dict)   # (item slug, image) -> file id

    def run(self) -> list[str]:
        """Everything after signing in; the price quote's lines."""
        user_id = self.state.data["user_id"]
        user = self.client.get(f"/user/{user_id}")
        designer_id = self._designer(user_id)
        self._game(designer_id)
        folder = self._folder(str(user.get("root_folder_id") or ""))
        self._upload(folder)
        for item in self.plan.uploadable:
            self._item(item)
        self._retire()
        self.say(f"tgc: {self.tally.line()}")
        try:
            return price_lines(self.client.get(f"/game/{self.game_id}/bulk-pricing"))
        except TgcError as exc:
            if not 400 <= exc.status < 500:
                raise
            return [f"price: The Game Crafter gave no quote ({exc}); see the game's page on the site"]

    # -- the account, the game, its folder ---------------------------------------------------------
    def _designer(self, user_id: str) -> str:
        designers = self.client.items(f"/user/{user_id}/designers")
        if not designers:
            raise TgcError("this account has no designer yet: make one on The Game Crafter's site (Designer "
                           "Dashboard), then run again")
        if self.designer:
            chosen = [d for d in designers if self.designer in (d.get("id"), d.get("name"))]
            if not chosen:
                names = ", ".join(str(d.get("name")) for d in designers)
                raise TgcError(f"no designer '{self.designer}' in this account (its designers: {names})")
            return str(chosen[0]["id"])
        if len(designers) > 1:
            self.say(f"tgc: using designer '{designers[0].get('name')}' (the account has {len(designers)}; "
                     f"--designer NAME chooses)")
        return str(designers[0]["id"])

    def _game(self, designer_id: str) -> None:
        """The game: found (by the id kept, else by name) and its name and player counts brought
        up to date (the description only when made: it may have been written on the site since)."""
        low, high = _players(self.plan.players)
        fields = {k: v for k, v in {"name": self.plan.title, "min_players": low, "max_players": high}.items()
                  if v is not None}
        gid = self.state.data.get("game_id")
        game: Any = None
        if gid:
            try:
                game = self.client.get(f"/game/{gid}")
            except TgcError as exc:
                if not 400 <= exc.status < 500:
                    raise
            if not isinstance(game, dict) or str(game.get("designer_id") or designer_id) != designer_id:
                gid, game = None, None
        if not gid:
            same = [g for g in self.client.items(f"/designer/{designer_id}/games") if g.get("name") == self.plan.title]
            gid, game = (str(same[0]["id"]), same[0]) if same else (None, None)
        if gid:
            if self._differs(game, fields):
                self.client.call("PUT", f"/game/{gid}", fields)
                self.tally.add("game updated")
        else:
            fields["description"] = self.plan.subtitle or f"{self.plan.title}, made with cardgen"
            gid = str(self.client.call("POST", "/game", {"designer_id": designer_id, **fields})["id"])
            self.tally.add("game made")
        self.game_id = gid
        self.state.data["game_id"] = gid
        self.state.save()

    def _folder(self, root: str) -> str:
        fid = self.state.data.get("folder_id")
        if fid:
            try:
                self.client.get(f"/folder/{fid}")
                return str(fid)
            except TgcError as exc:
                if not 400 <= exc.status < 500:
                    raise
                self.state.data["files"] = {}          # (its files went with it)
        fid = str(self.client.call("POST", "/folder", {"name": self.plan.title, "parent_id": root or None})["id"])
        self.state.data["folder_id"] = fid
        self.state.save()
        return fid

    def _upload(self, folder: str) -> None:
        known: dict[str, str] = self.state.data["files"]
        sent, seen = 0, set()
        for item in self.plan.uploadable:
            for image in item.images():
                data = prepared(self.plan, image, item)
                key = digest(data)
                seen.add(key)
                if key not in known:
                    name = Path(image).name
                    if len(data) > MAX_UPLOAD:
                        raise TgcError(f"{image} is {len(data) / 2 ** 20:.0f} MB, more than The Game Crafter takes "
                                       f"(50 MB); upload it by hand as a JPEG")
                    result = self.client.call("POST", "/file", {"name": name, "folder_id": folder},
                                              upload=Upload(name, data))
                    known[key] = str(result["id"])
                    self.state.save()
                    sent += 1
                self.files[(item.slug, image)] = known[key]
        self.tally.add("images uploaded", sent)
        self.tally.add("images unchanged", len(seen) - sent)

    # -- decks and their cards -------------------------------------------------------------------
    def _listed(self, family: Family) -> list[dict]:
        return self.client.items(f"/game/{self.game_id}/{family.relation}")

    def _item(self, item: Item) -> None:
        m = item.match
        assert m is not None
        family, product = m.product.family, m.product
        mine: dict = self.state.data["items"].get(item.slug) or {}
        listed = self._listed(family)
        found = [c for c in listed if c.get("id") == mine.get("id")] or \
            [c for c in listed if c.get("name") == item.name and c.get("identity") == product.identity]
        cid = str(found[0]["id"]) if found else None
        if cid and found[0].get("identity") not in (None, product.identity):
            self.client.call("DELETE", f"/{family.container}/{cid}")          # (another product: made anew)
            self.tally.add(f"{family.name}s remade")
            cid = None
        fields: dict[str, Any] = {"name": item.name}
        back = item.back or next((p.back for p in item.pieces if p.back), None)
        if family.shared_back and back:
            fields.update(back_id=self.files[(item.slug, back)], has_proofed_back=int(self.proofed))
        if family.member is None:          # a folding board: the container is the piece
            piece = item.pieces[0]
            fields.update(face_id=self.files[(item.slug, piece.front)], has_proofed_face=int(self.proofed),
                          quantity=piece.count)
        if cid is None:
            cid = str(self.client.call("POST", f"/{family.container}", {"game_id": self.game_id,
                                                                       "identity": product.identity,
                                                                       "quantity": 1, **fields})["id"])
            self.tally.add(f"{family.name}s made")
            mine = {"id": cid, "identity": product.identity, "container": family.container}
        elif self._differs(found[0], fields):
            self.client.call("PUT", f"/{family.container}/{cid}", fields)
            self.tally.add(f"{family.name}s updated")
        mine.update(id=cid, identity=product.identity, container=family.container)
        self.state.data["items"][item.slug] = mine
        self.state.save()
        if family.member is not None:
            self._members(item, family, cid)

    def _differs(self, current: dict, fields: dict[str, Any]) -> bool:
        """Whether `current` (as TGC lists it) lacks any of `fields`; a proof flag counts only
        when `--proofed` asks for it, or when the image it proofs changes."""
        for k, v in fields.items():
            if k.startswith("has_proofed_"):
                slot = k[len("has_proofed_"):] + "_id"
                if (self.proofed and str(current.get(k)) not in ("1", "True", "true")) or \
                        (slot in fields and str(current.get(slot)) != str(fields[slot])):
                    return True
            elif str(current.get(k)) != str(v):
                return True
        return False

    def _members(self, item: Item, family: Family, cid: str) -> None:
        assert family.member is not None
        listed = self.client.items(f"/{family.container}/{cid}/{family.members}")
        by_name: dict[str, list[dict]] = {}
        for c in listed:
            by_name.setdefault(str(c.get("name")), []).append(c)
        for name, piece in _unique(item):
            fields: dict[str, Any] = {"name": name, "face_id": self.files[(item.slug, piece.front)],
                                      "quantity": piece.count, "has_proofed_face": int(self.proofed)}
            back = piece.back or (None if family.shared_back else item.back)
            if back:
                fields.update(back_id=self.files[(item.slug, back)], has_proofed_back=int(self.proofed))
            there = by_name.get(name, [])
            if there:
                current = there.pop(0)
                if self._differs(current, fields):
                    self.client.call("PUT", f"/{family.member}/{current['id']}", fields)
                    self.tally.add(f"{family.member_name}s updated")
                else:
                    self.tally.add(f"{family.member_name}s unchanged")
            else:
                self.client.call("POST", f"/{family.member}", {family.parent: cid, **fields})
                self.tally.add(f"{family.member_name}s made")
        for rest in by_name.values():          # no longer in the deck
            for c in rest:
                self.client.call("DELETE", f"/{family.member}/{c['id']}")
                self.tally.add(f"{family.member_name}s removed")

    def _retire(self) -> None:
        """cardgen's containers of decks no longer uploaded: removed (others are left alone)."""
        wanted = {i.slug for i in self.plan.uploadable}
        items: dict = self.state.data["items"]
        for slug in sorted(set(items) - wanted):
            mine = items[slug]
            container = str(mine.get("container") or "")
            if re.fullmatch(r"[a-z]+", container) and mine.get("id"):
                try:
                    self.client.call("DELETE", f"/{container}/{mine['id']}")
                    self.tally.add("removed (no longer in the game)")
                except TgcError as exc:
                    if not 400 <= exc.status < 500:
                        raise
            del items[slug]
            self.state.save()


def _unique(item: Item) -> list[tuple[str, Any]]:
    """The pieces with names unique in the deck (a repeated name gets ' (2)', ' (3)', ...)."""
    seen: dict[str, int] = {}
    out = []
    for p in item.pieces:
        n = seen.get(p.name, 0) + 1
        seen[p.name] = n
        out.append((p.name if n == 1 else f"{p.name} ({n})", p))
    return out


def _players(text: str) -> tuple[int | None, int | None]:
    """'2-4' -> (2, 4); '3' -> (3, 3); anything else -> (None, None)."""
    nums = [int(n) for n in re.findall(r"\d+", text or "")][:2]
    if not nums:
        return None, None
    return nums[0], nums[-1]


def price_lines(result: Any) -> list[str]:
    """The quote from `/game/{id}/bulk-pricing`: a line per quantity with a price, as far as
    the answer gives them (its shape is not documented: anything else is said as not read)."""
    rows = result.get("items", result.get("prices", result)) if isinstance(result, dict) else result
    if isinstance(rows, dict):
        rows = [{"quantity": k, "price": v} for k, v in rows.items()]
    out = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        qty = row.get("quantity", row.get("qty"))
        price = next((row[k] for k in ("price", "price_each", "each", "cost", "total") if k in row), None)
        if qty is None or price is None:
            continue
        try:
            out.append(f"  {int(qty)} {'copy' if int(qty) == 1 else 'copies'}: ${float(price):.2f} each")
        except (TypeError, ValueError):
            continue
    if not out:
        return ["price: not in The Game Crafter's answer; see the game's page on the site"]
    return ["price quote (The Game Crafter, before shipping):", *out]


def summary(plan: Plan) -> str:
    ups = plan.uploadable
    cards = sum(i.count for i in ups)
    return (f"{plural(len(ups), 'deck')} ({plural(cards, 'piece')}) to upload"
            + (f", {len(plan.items) - len(ups)} not uploadable" if len(ups) < len(plan.items) else ""))
