#!/usr/bin/env bash
# Re-resolve the test extra from scratch and write constraints.txt (what `make` installs with -c).
# Run it after changing dependencies in pyproject.toml; it takes minutes, as pip backtracks.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --upgrade pip
"$scratch/venv/bin/pip" install --quiet -e '.[test]'
{
  sed -n '1,4p' constraints.txt
  "$scratch/venv/bin/pip" freeze --exclude-editable | grep -iv '^hotato=='
} > constraints.txt.new
mv constraints.txt.new constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) pins"
