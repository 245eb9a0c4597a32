# Shared helpers for the scripts in this folder. Source it; it changes nothing by itself.
# Every ensure_* function installs what is missing and skips what is already there, so the
# scripts work on a fresh Debian 12 machine with rustup and are quick on a prepared one.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ROOT

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Runs a command as root: directly when we are root (CI), else through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_rust_components COMPONENT...: rustup components of the active toolchain.
ensure_rust_components() {
  local installed missing=()
  installed="$(rustup component list --installed 2>/dev/null)"
  for c in "$@"; do
    grep -q "^$c" <<<"$installed" || missing+=("$c")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "rustup component add ${missing[*]}"
    rustup component add "${missing[@]}"
  fi
}

# ensure_rust_targets TARGET...: rustup targets (standard libraries for cross builds).
ensure_rust_targets() {
  local installed missing=()
  installed="$(rustup target list --installed)"
  for t in "$@"; do
    grep -qx "$t" <<<"$installed" || missing+=("$t")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "rustup target add ${missing[*]}"
    rustup target add "${missing[@]}"
  fi
}

APT_UPDATED=""
# ensure_apt PACKAGE...: Debian packages, with one apt-get update per run.
ensure_apt() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "$APT_UPDATED" ]; then
    say "apt-get update"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -o DPkg::Lock::Timeout=600
    APT_UPDATED=1
  fi
  say "apt-get install ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=600 \
    --no-install-recommends "${missing[@]}"
}
