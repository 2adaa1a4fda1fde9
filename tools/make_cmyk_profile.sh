#!/bin/sh
# Remake cardgen/data/icc/cardgen-FOGRA39-240.icc from the FOGRA39L characterization data.
# Needs ArgyllCMS (Debian: argyll) and icc-profiles-free (for FOGRA39L.ti3 and sRGB.icc).
# About a minute. See cardgen/data/icc/README.md.
set -eu
out="$(cd "$(dirname "$0")/.." && pwd)/cardgen/data/icc/cardgen-FOGRA39-240.icc"
icc="${ICC_DIR:-/usr/share/color/icc}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$icc/FOGRA39L.ti3" "$icc/sRGB.icc" "$work/"
cd "$work"
# -qm medium quality tables; -nc leave the measurements out (smaller); -kr black ramp;
# -l240 total ink 240 % (DriveThruCards), -L95 black at most 95 %;
# -S sRGB.icc -cmt -dpp: perceptual table gamut-mapped from sRGB (a monitor) to print.
colprof -qm -nc -kr -l240 -L95 -S sRGB.icc -cmt -dpp \
    -D "cardgen FOGRA39 coated, 240% total ink" \
    -C "Made by cardgen from FOGRA39L characterization data (Fogra; ti3 by Kai-Uwe Behrmann, zlib licence)" \
    -O "$out" FOGRA39L
echo "wrote $out"
