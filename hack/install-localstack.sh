#!/usr/bin/env bash
# Installs LocalStack (community, a plain Python process: no Docker) into .tools/localstack for the LocalStack lane of
# the suite, from hack/localstack/requirements.txt with every package pinned. Skipped when that venv already holds
# exactly that list. localstack-core 2026.3.0 needs Python 3.13: python3.13 on PATH, else pyenv's, else Debian's.
# Where none is found it warns and returns 0: the lane then fails naming what is missing (it never skips).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.tools/localstack"
lock="$root/hack/localstack/requirements.txt"
stamp="$venv/.installed-from"
say() { echo "deps: $*"; }

want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi

python313() {
  local candidate
  if command -v python3.13 >/dev/null && python3.13 -c 'import venv' 2>/dev/null; then
    command -v python3.13; return
  fi
  local pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
  command -v pyenv >/dev/null && pyenv_root="$(pyenv root)"
  candidate="$(ls -d "$pyenv_root"/versions/3.13.* 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$candidate" ] && [ -x "$candidate/bin/python3.13" ]; then
    echo "$candidate/bin/python3.13"; return
  fi
  if command -v apt-get >/dev/null && apt-cache show python3.13-venv >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3.13 python3.13-venv >/dev/null && command -v python3.13
  fi
}

python="$(python313 || true)"
if [ -z "$python" ]; then
  echo "deps: WARNING: no Python 3.13 (python3.13 on PATH, pyenv or Debian's python3.13-venv): LocalStack is not" \
    "installed and the LocalStack lane will fail" >&2
  exit 0
fi
say "installing LocalStack 2026.3.0 into .tools/localstack (Python $("$python" -c 'import platform; print(platform.python_version())'))"
start=$SECONDS
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$lock"
echo "$want" > "$stamp"
say "LocalStack installed in $((SECONDS - start)) s"
