#!/usr/bin/env bash
# Create PyPhi 2.0's own virtualenv for make_iit4_reference.py (never the package's environment).
#
#   bash benchmarks/pyphi_compare/setup_venv_pyphi2.sh VENV [SOURCE] [COMMIT]
#
# VENV    where to create the virtualenv (default /tmp/pyphi2/venv)
# SOURCE  either a PyPhi source tree (a directory holding pyproject.toml and pyphi/), or a git
#         repository / bare mirror of github.com/wmayner/pyphi (default /tmp/pyphi2/src)
# COMMIT  commit to take from a git SOURCE (default 051052105a7e9769d9624743b5d35b1588c1671c,
#         PyPhi's main branch of June 2026, the one the reference files were made with)
#
# Python 3.13: ${PYTHON:-$HOME/.pyenv/versions/3.13.0/bin/python}. PyPhi 2.0 is not on PyPI;
# it is installed from the snapshot with `pip install . pot` and SETUPTOOLS_SCM_PRETEND_VERSION
# (no .git metadata in an exported tree). A git SOURCE is exported file by file with
# `git show COMMIT:path` (files absent from a partial mirror, such as large data files that
# PyPhi's import never reads, are skipped and listed). The commit is written to
# VENV/pyphi_commit.txt, which pyphi2_worker.py reports in every result.
set -euo pipefail
VENV="${1:-/tmp/pyphi2/venv}"
SOURCE="${2:-/tmp/pyphi2/src}"
COMMIT="${3:-051052105a7e9769d9624743b5d35b1588c1671c}"
PY="${PYTHON:-$HOME/.pyenv/versions/3.13.0/bin/python}"
VERSION="${PYPHI_VERSION:-2.0.0}"

if [ -f "$SOURCE/pyproject.toml" ] && [ -d "$SOURCE/pyphi" ]; then
  SRC="$(cd "$SOURCE" && pwd)"
  if [ -d "$SOURCE/.git" ]; then COMMIT="$(git -C "$SOURCE" rev-parse HEAD)"; fi
else
  # a git repository or bare mirror: export COMMIT's tree
  if [ "$(git -C "$SOURCE" rev-parse --is-bare-repository)" = true ]; then
    GIT=(git --git-dir "$(cd "$SOURCE" && pwd)")
  else
    GIT=(git -C "$SOURCE")
  fi
  COMMIT="$("${GIT[@]}" rev-parse "$COMMIT^{commit}")"
  SRC="$(mktemp -d)/pyphi-src"
  mkdir -p "$SRC"
  missing=0
  while IFS= read -r path; do
    case "$path" in pyproject.toml|README.md|LICENSE.md|pyphi/*) ;; *) continue ;; esac
    mkdir -p "$SRC/$(dirname "$path")"
    if ! "${GIT[@]}" show "$COMMIT:$path" > "$SRC/$path" 2>/dev/null; then
      rm -f "$SRC/$path"; missing=$((missing + 1)); echo "skipped (absent from the mirror): $path" >&2
    fi
  done < <("${GIT[@]}" ls-tree -r --name-only "$COMMIT")
  echo "exported $COMMIT to $SRC ($missing files skipped)"
fi

"$PY" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
(cd "$SRC" && SETUPTOOLS_SCM_PRETEND_VERSION="$VERSION" "$VENV/bin/pip" install --quiet . pot)
echo "$COMMIT" > "$VENV/pyphi_commit.txt"
VENV="$(cd "$VENV" && pwd)"
cd "$(mktemp -d)"  # keep any log or cache PyPhi writes out of the repository
PYPHI_WELCOME_OFF=yes "$VENV/bin/python" - <<'PY'
import importlib.metadata as md, sys
import pyphi
from pyphi.conf import presets
from pyphi.system import System
from pyphi import examples
with pyphi.config.override(**presets.iit4_2023, progress_bars=False, parallel=False):
    phi = float(System(examples.iit4_2023_fig6b_substrate(), (1, 0, 0, 0, 0, 0), node_indices=(0, 1)).sia().phi)
assert abs(phi - 0.536) < 0.01, phi  # Albantakis et al. 2023 Fig 6B: phi_s(Ab) = 0.53
commit = open(sys.prefix + "/pyphi_commit.txt").read().strip()
print("pyphi", md.version("pyphi"), "commit", commit, "python", sys.version.split()[0], "fig6B phi_s(Ab) = %.4f ok" % phi)
PY
