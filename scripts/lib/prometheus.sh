# Shared by scripts/test.sh: makes sure the real metrics servers that the Prometheus weight-source
# integration tests run (Debian packages `prometheus` and `victoria-metrics`) are installed.
#
#   source scripts/lib/prometheus.sh && ensure_prometheus_servers
#
# As root it installs what is missing with apt-get (one `apt-get update` first). Otherwise it
# prints what to install and returns 1; the tests then skip with the same message, except under
# CI=true, where they run and fail. The tests start their own servers on free loopback ports with
# temporary data, so the system services these packages ship are never used: installs here keep
# them from starting (policy-rc.d) and, on a machine run by systemd, disable the ones this
# function installed so that nothing keeps listening on :9090 or :8428.

ensure_prometheus_servers() {
  local missing=() bin pkg
  for pair in prometheus:prometheus victoria-metrics:victoria-metrics; do
    bin=${pair%%:*}
    pkg=${pair##*:}
    command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/bin/$bin" ] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "Prometheus weight-source integration tests need: ${missing[*]} (Debian packages)." >&2
    echo "  Install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    echo "  Without them those tests are skipped locally and fail under CI=true." >&2
    return 1
  fi

  echo "==> installing ${missing[*]} (apt-get)"
  # policy-rc.d exiting 101 tells invoke-rc.d not to start services during this install; an
  # existing one (containers usually ship one) is left as it was.
  local policy=/usr/sbin/policy-rc.d own_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
  fi
  local status=0
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || status=$?
  if [ "$status" = 0 ]; then
    # --no-install-recommends: prometheus recommends node-exporter, another service on :9100.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || status=$?
  fi
  [ "$own_policy" = 1 ] && rm -f "$policy"
  if [ "$status" != 0 ]; then
    echo "apt-get could not install ${missing[*]} (exit $status)" >&2
    return 1
  fi
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    for pkg in "${missing[@]}"; do
      systemctl disable --now "$pkg.service" >/dev/null 2>&1 || true
    done
  fi
  return 0
}
