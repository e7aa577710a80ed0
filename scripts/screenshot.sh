#!/usr/bin/env bash
# Renders docs/screenshot.png, the README's picture of the terminal UI: the
# end-to-end test TestScreenshotScreen runs indusr in tmux against the
# scripted model server and keeps the screen with its colours
# (docs/screenshot.ansi), then freeze draws it. freeze comes from the module
# in scripts/screenshot, never from the binaries' module. Needs tmux.
#
# freeze's PNG renderer has one font, JetBrains Mono, and no fallback: the
# three glyphs of the UI it lacks (⎿ under a tool line, ◐ a running tool,
# ※ a notice) are drawn as the nearest it has (└ ◔ *); a terminal falls
# back to another font and shows the real ones.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
go test -count=1 -run '^TestScreenshotScreen$' ./cmd/internal/agent/tui/e2e -screenshot "$root/docs/screenshot.ansi"
drawn=$(mktemp --suffix=.ansi)
trap 'rm -f "$drawn"' EXIT
sed -e 's/⎿/└/g' -e 's/◐/◔/g' -e 's/※/*/g' "$root/docs/screenshot.ansi" >"$drawn"
cd scripts/screenshot
go tool freeze --language ansi --window --padding 20,40 --border.radius 8 \
  --output "$root/docs/screenshot.png" "$drawn"
chmod 644 "$root/docs/screenshot.png" # freeze writes it for its owner only
echo "wrote docs/screenshot.png"
