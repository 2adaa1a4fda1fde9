"""Language codes: what game.yaml's `languages:` and a translated key's `FIELD@LANG` take
(docs/languages.md).

A code is an ISO 639-1 language (`de`), optionally with a region or script (`en-GB`, `pt-BR`,
`zh-Hant`), compared without regard to case (`text@DE` is `text@de`).  `qps` is the
pseudo-locale: accented, longer text made from the source language, for finding what a
translation will break before there is one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from cardgen.schema.core import LANGUAGE_CODE, STATIC_ENV, Env, Invalid, Kind, show, suggest

PSEUDO = "qps"
CODE = re.compile(LANGUAGE_CODE)

# ISO 639-1 languages by code, in English (messages: "German text of 'Digging' ...")
NAMES = {
    "af": "Afrikaans", "am": "Amharic", "ar": "Arabic", "az": "Azerbaijani", "be": "Belarusian",
    "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian", "ca": "Catalan", "cs": "Czech", "cy": "Welsh",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "eo": "Esperanto", "es": "Spanish",
    "et": "Estonian", "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fil": "Filipino", "fo": "Faroese",
    "fr": "French", "fy": "Western Frisian", "ga": "Irish", "gd": "Scottish Gaelic", "gl": "Galician",
    "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "hy": "Armenian",
    "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese", "ka": "Georgian",
    "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean", "ku": "Kurdish", "ky": "Kyrgyz",
    "la": "Latin", "lb": "Luxembourgish", "lo": "Lao", "lt": "Lithuanian", "lv": "Latvian",
    "mk": "Macedonian", "ml": "Malayalam", "mn": "Mongolian", "mr": "Marathi", "ms": "Malay",
    "mt": "Maltese", "my": "Burmese", "nb": "Norwegian Bokmål", "ne": "Nepali", "nl": "Dutch",
    "nn": "Norwegian Nynorsk", "no": "Norwegian", "oc": "Occitan", "pa": "Punjabi", "pl": "Polish",
    "ps": "Pashto", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sa": "Sanskrit",
    "si": "Sinhala", "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian",
    "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "tg": "Tajik", "th": "Thai",
    "tk": "Turkmen", "tl": "Tagalog", "tr": "Turkish", "tt": "Tatar", "uk": "Ukrainian", "ur": "Urdu",
    "uz": "Uzbek", "vi": "Vietnamese", "yi": "Yiddish", "zh": "Chinese", "zu": "Zulu",
    PSEUDO: "the pseudo-locale",
}


def norm(code: str) -> str:
    """A code as compared: lower case, `_` as `-` (`en_GB` is `en-gb`)."""
    return code.replace("_", "-").lower()


def name_of(code: str) -> str:
    """`German` for de, `English (GB)` for en-GB; the code itself for one not in the table."""
    base, _, rest = code.replace("_", "-").partition("-")
    name = NAMES.get(base.lower(), code)
    return f"{name} ({rest})" if rest and base.lower() in NAMES else name


def problem(code: Any) -> str | None:
    """Why `code` is not a language code cardgen knows (completes "... "), or None."""
    if not isinstance(code, str) or not CODE.fullmatch(code):
        return f"must be a language code such as en, en-GB, de or fr, got {show(code)}"
    base = norm(code).partition("-")[0]
    if base not in NAMES:
        return f"'{code}' is not a language code cardgen knows{suggest(base, NAMES)} (ISO 639-1: en, de, fr, ...)"
    return None


@dataclass(frozen=True)
class LanguageList(Kind):
    """game.yaml's `languages:`: language codes, the source language first, each once."""

    def convert(self, value: Any, env: Env) -> Any:
        if not isinstance(value, list) or not value:
            raise Invalid(f"must be a list of language codes, the source language first, such as [en, de], "
                          f"got {show(value)}")
        seen: dict[str, int] = {}
        for i, code in enumerate(value):
            why = problem(code)
            if why is not None:
                raise Invalid(f"item {i + 1} {why}", (i,))
            if norm(code) == PSEUDO:
                raise Invalid(f"item {i + 1}: {PSEUDO} is the pseudo-locale, built from the source language with "
                              f"`cardgen build --lang {PSEUDO}`; leave it out of `languages:`", (i,))
            if norm(code) in seen:
                raise Invalid(f"item {i + 1}: '{code}' is listed twice (also item {seen[norm(code)] + 1})", (i,))
            seen[norm(code)] = i
        return tuple(value)

    def describe(self) -> str:
        return "list of language codes, the source language first"

    def json_schema(self) -> dict:
        return {"type": "array", "minItems": 1, "uniqueItems": True,
                "items": {"type": "string", "pattern": "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$"}}


@dataclass(frozen=True)
class LanguageCode(Kind):
    """One language code (`--lang de`), or the pseudo-locale `qps`."""

    metavar: ClassVar[str] = "LANG"

    def convert(self, value: Any, env: Env) -> Any:
        why = problem(value)
        if why is not None:
            raise Invalid(why)
        return value

    def describe(self) -> str:
        return f"language code, or {PSEUDO} (the pseudo-locale)"

    def json_schema(self) -> dict:
        return {"type": "string", "pattern": "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$"}


def declared_languages(data: Any) -> tuple[str, ...] | None:
    """game.yaml's `languages:` as read (`data`: its mapping), or None: none, or not valid (said
    where game.yaml is checked)."""
    value = data.get("languages") if isinstance(data, dict) else None
    if value is None:
        return None
    try:
        return tuple(LanguageList().convert(value, STATIC_ENV))
    except Invalid:
        return None
