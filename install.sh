#!/bin/sh
# Installs rein from its latest release:
#   curl -fsSL https://raw.githubusercontent.com/rein-agent/rein/main/install.sh | sh
#
# REIN_RELEASE_URL  a folder URL holding the archives and SHA256SUMS (a mirror; tests), instead
#                   of the latest GitHub release
# REIN_INSTALL      where the binary goes (default ~/.local/bin)
# REIN_REPO         the GitHub repository (default rein-agent/rein)
#
# It picks the archive for this machine, checks it against SHA256SUMS (a mismatch installs
# nothing), puts `rein` in place and says how to reach it from PATH.
set -eu

say() { printf 'rein-install: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

repo="${REIN_REPO:-rein-agent/rein}"
base="${REIN_RELEASE_URL:-https://github.com/$repo/releases/latest/download}"
base="${base%/}"
dest="${REIN_INSTALL:-${HOME:?HOME is not set; set REIN_INSTALL}/.local/bin}"

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64 | Linux-amd64) target=x86_64-unknown-linux-musl ;;
    Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-musl ;;
    Darwin-arm64 | Darwin-aarch64) target=aarch64-apple-darwin ;;
    Darwin-x86_64) target=x86_64-apple-darwin ;;
    *) fail "no rein build for $(uname -s) $(uname -m); build it from source: cargo install --git https://github.com/$repo rein-cli --locked" ;;
esac

if [ "$(id -u)" = 0 ]; then
    say "running as root: rein goes to $dest for root only (set REIN_INSTALL to choose)"
fi

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 2 -o "$2" "$1" || fail "cannot download $1"
    elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$1" || fail "cannot download $1"
    else
        fail "neither curl nor wget is installed"
    fi
}

sha256() { # FILE
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d' ' -f1
    else
        fail "neither sha256sum nor shasum is installed: the download cannot be checked"
    fi
}

archive="rein-$target.tar.gz"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT INT TERM

say "downloading $base/$archive"
fetch "$base/$archive" "$tmp/$archive"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS"
expected="$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1 }' "$tmp/SHA256SUMS")"
[ -n "$expected" ] || fail "SHA256SUMS names no $archive"
actual="$(sha256 "$tmp/$archive")"
if [ "$expected" != "$actual" ]; then
    fail "checksum mismatch for $archive (expected $expected, got $actual): nothing installed"
fi

tar -xzf "$tmp/$archive" -C "$tmp" || fail "cannot unpack $archive"
[ -f "$tmp/rein-$target/rein" ] || fail "$archive holds no rein-$target/rein"
mkdir -p "$dest"
cp "$tmp/rein-$target/rein" "$dest/rein.new"
chmod 755 "$dest/rein.new"
mv -f "$dest/rein.new" "$dest/rein"
say "installed $("$dest/rein" --version) to $dest/rein"

case ":${PATH:-}:" in
    *":$dest:"*) ;;
    *) say "$dest is not on your PATH; add it, e.g.: echo 'export PATH=\"$dest:\$PATH\"' >> ~/.profile" ;;
esac
