#!/usr/bin/env bash
# Rebuilds the bundled image seed `digits_png` from the committed `digits`
# seed: stages it as an MLE-bench image competition, imports it, and adds
# the baseline panel's leaderboard and thresholds. Needs only python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
staging=${1:-/tmp/sandmle-image-seed}
rm -rf "$staging/digits_png"
python3 "$root/examples/seeds/build/prepare_image_seed.py" "$staging"
cargo build --release -p sandmle --bin sandmle --manifest-path "$root/Cargo.toml"
sandmle="${CARGO_TARGET_DIR:-$root/target}/release/sandmle"
out="$root/examples/seeds/digits_png"
"$sandmle" import --competition "$staging/digits_png" --task "$staging/digits_png/task.json" \
  --images train,test --overwrite --out "$out"
cp "$staging/digits_png/SOURCE.md" "$out/SOURCE.md"
"$sandmle" panel --env "$out" --write >/dev/null
du -sh "$out"
