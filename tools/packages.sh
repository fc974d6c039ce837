# ensure_packages PKG...: apt-get install those of PKG that are not installed (sourced by
# tools/run.sh and .ci/run; runs apt-get update once per shell, before the first install).
dimgraph_apt_updated=0
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
      missing+=("$pkg")
    fi
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    sudo=(sudo)
  fi
  echo "== installing: ${missing[*]}"
  if ((!dimgraph_apt_updated)); then
    "${sudo[@]}" apt-get update || return 1
    dimgraph_apt_updated=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}
