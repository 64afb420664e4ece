#!/usr/bin/env bash
# Fetches an OpenSSL 3.x or 4.x source (3.5 unless told) through Debian's source packages and
# builds, in place in a cache folder (never in this repository), what the aesfast tests need:
# libcrypto.so.MAJOR (.3, or .4 for 4.x), apps/openssl and test/evp_test.  Prints only the absolute path of the built tree on stdout; logs
# go to stderr and to <cache>/openssl-<version>[-<host>].log.
#
#   test/build-openssl.sh                 build (or reuse) the newest downloadable 3.5.x
#   test/build-openssl.sh --series 3.6    the same for another series: the newest downloadable 3.6.x
#                                         that the deb-src suites offer (test/install-deps.sh --src:
#                                         bookworm, trixie, sid and experimental), in its own tree
#                                         openssl-3.6.<p>; --series 4.0: experimental's 4.0.x
#   test/build-openssl.sh --host aarch64  the same source cross-built for linux-aarch64 with
#                                         aarch64-linux-gnu-gcc, in its own tree openssl-<v>-aarch64
#                                         (its programs run under qemu-aarch64)
#   test/build-openssl.sh --static        also the static libraries (libcrypto.a, libssl.a), for the
#                                         static hosts (test/static_host_test.sh), from the objects
#                                         of the shared ones (reuse_objects below): seconds
#   test/build-openssl.sh --full          --static, and what OpenSSL's own test suite needs for its CI
#                                         selection (test/openssl-suite.sh --programs: its recipes'
#                                         test programs, the legacy module, the dasync engine), not
#                                         the other test programs
#   test/build-openssl.sh --everything    --full, and everything else \`make\` builds (every test
#                                         program: test/openssl-suite.sh --all)
#   AESFAST_OPENSSL_VERSION=3.5.7 ...     insist on one upstream version (its series, unless
#                                         --series says otherwise, which must then agree)
#   AESFAST_CACHE_DIR=DIR ...             cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/aesfast)
#
# Idempotent: a finished tree carries a stamp and a second run returns at once without touching apt.
# Concurrent runs serialize on a flock in the cache root.
set -euo pipefail

host= series= full=0 static=0 everything=0
while [ $# -gt 0 ]; do
  case "$1" in
    --series) [ $# -ge 2 ] || { echo "build-openssl: --series needs a value" >&2; exit 2; }
      series=$2; shift ;;
    --series=*) series=${1#--series=} ;;
    --host) [ $# -ge 2 ] || { echo "build-openssl: --host needs a value" >&2; exit 2; }
      host=$2; shift ;;
    --host=*) host=${1#--host=} ;;
    --static) static=1 ;;
    --full) full=1 static=1 ;;
    --everything) everything=1 full=1 static=1 ;;
    *) echo "build-openssl: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
case "$host" in
  ''|x86_64|native) host= suffix= target=() deps=() ;;
  aarch64|arm64) host=aarch64 suffix=-aarch64 deps=(--arm64)
    target=(linux-aarch64 --cross-compile-prefix=aarch64-linux-gnu-) ;;
  *) echo "build-openssl: unsupported --host $host (aarch64 only)" >&2; exit 2 ;;
esac

exec 3>&1 1>&2            # fd 3 = the real stdout, for the one path we print
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${AESFAST_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache}/aesfast}
want=${AESFAST_OPENSSL_VERSION:-}
if [ -z "$series" ]; then
  if [ -n "$want" ]; then series=$(echo "$want" | cut -d. -f1,2); else series=3.5; fi
fi
case "$series" in
  [34].[0-9]|[34].[0-9][0-9]) ;;
  *) echo "build-openssl: --series $series: a 3.x or 4.x series such as 3.5, 3.6 or 4.0" >&2
     exit 2 ;;
esac
major=${series%%.*}          # the shared libraries' version: libcrypto.so.3, libcrypto.so.4
case "$want" in ''|"$series".*) ;;
  *) echo "build-openssl: AESFAST_OPENSSL_VERSION=$want is not in series $series" >&2; exit 2 ;;
esac
series_re=$(printf '%s' "$series" | sed 's/\./\\./g')
stamp=.aesfast-built
static_stamp=.aesfast-built-static
full_stamp=.aesfast-built-full
everything_stamp=.aesfast-built-everything
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

log() { echo "build-openssl: $*" >&2; }

# A finished tree: the stamp plus every file the tests rely on.
complete() {
  local t=$1
  [ -f "$t/$stamp" ] && [ -x "$t/test/evp_test" ] && [ -x "$t/apps/openssl" ] \
    && [ -e "$t/libcrypto.so.$major" ] \
    && [ -f "$t/test/recipes/30-test_evp_data/evpciph_aes_common.txt" ] \
    && { [ $static -eq 0 ] || { [ -f "$t/$static_stamp" ] && [ -f "$t/libcrypto.a" ] \
                                  && [ -f "$t/libssl.a" ]; }; } \
    && { [ $full -eq 0 ] || { [ -f "$t/$full_stamp" ] && [ -x "$t/test/sslapitest" ]; }; } \
    && { [ $everything -eq 0 ] || [ -f "$t/$everything_stamp" ]; }
}

# Newest finished tree of the series for this host in the cache (or the wanted one), if any.  Native trees
# are openssl-<v>, cross trees openssl-<v>-<host>; a version has no "-", so neither takes the other.
find_done() {
  local d v best=
  for d in "$cache"/openssl-"$series".*"$suffix"/; do
    [ -d "$d" ] || continue
    d=${d%/}
    v=${d##*/openssl-}
    v=${v%"$suffix"}
    case "$v" in *-*) continue ;; esac
    [ -z "$want" ] || [ "$v" = "$want" ] || continue
    complete "$d" && best+="$v"$'\n'
  done
  [ -n "$best" ] || return 1
  v=$(printf '%s' "$best" | sort -V | tail -n1)
  echo "$cache/openssl-$v$suffix"
}

# A cross tree follows the native one: the same version (and tarball), unless one is asked for.
if [ -n "$host" ] && [ -z "$want" ] && t=$(suffix= find_done); then want=${t##*/openssl-}; fi

# --static, --full or --everything completes a tree already built without it: the same version.
if [ $static -eq 1 ] && [ -z "$want" ] && t=$(static=0 full=0 everything=0 find_done); then
  want=${t##*/openssl-}; want=${want%"$suffix"}
fi

if t=$(find_done); then echo "$t" >&3; exit 0; fi

exec 9>"$cache/.build-openssl.lock"
log "taking the cache lock"
flock 9
if t=$(find_done); then echo "$t" >&3; exit 0; fi   # another run finished it meanwhile

"$here/install-deps.sh" --src "${deps[@]}"

dl=$cache/downloads
mkdir -p "$dl"
downloaded() { ls "$dl"/openssl_"$1".orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1 || true; }
tarball= upver=
# A wanted version already downloaded (the cross build after the native one) needs no apt index.
[ -z "$want" ] || { tarball=$(downloaded "$want"); [ -z "$tarball" ] || upver=$want; }

if [ -z "$tarball" ]; then
  # Debian versions of the series, newest first (e.g. 3.5.9-1~deb13u1).
  mapfile -t versions < <(apt-cache showsrc openssl 2>/dev/null | sed -n 's/^Version: *//p' \
    | grep -E "^([0-9]+:)?$series_re\." | sort -Vr -u)
  [ ${#versions[@]} -gt 0 ] || { log "apt-cache showsrc openssl lists no $series.x version"; exit 1; }

  for dv in "${versions[@]}"; do
    uv=${dv#*:}; uv=${uv%-*}                     # strip epoch and Debian revision
    [ -z "$want" ] || [ "$uv" = "$want" ] || continue
    found=$(downloaded "$uv")
    if [ -z "$found" ]; then
      log "trying apt-get source --download-only openssl=$dv"
      tmp=$(mktemp -d "$dl/.get.XXXXXX")
      if (cd "$tmp" && apt-get source --download-only -qq "openssl=$dv") \
           >>"$cache/apt-source.log" 2>&1; then
        found=$(ls "$tmp"/openssl_"$uv".orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1 || true)
        if [ -n "$found" ]; then mv "$found" "$dl/"; found=$dl/${found##*/}; fi
      else
        log "openssl=$dv did not download (see $cache/apt-source.log)"
      fi
      rm -rf "$tmp"
    fi
    if [ -n "$found" ]; then tarball=$found upver=$uv; break; fi
  done
fi
[ -n "$tarball" ] || { log "no OpenSSL $series.x source could be downloaded"; exit 1; }

tree=$cache/openssl-$upver$suffix
logf=$cache/openssl-$upver$suffix.log
log "building OpenSSL $upver${host:+ for $host} in $tree (log: $logf)"
if [ ! -f "$tree/Makefile" ]; then             # fresh unpack unless a configured tree is resumable
  rm -rf "$tree" "$tree.unpack"
  mkdir -p "$tree.unpack"
  tar -xf "$tarball" -C "$tree.unpack"
  top=$(find "$tree.unpack" -mindepth 1 -maxdepth 1 -type d | head -n1)
  mv "$top" "$tree"
  rm -rf "$tree.unpack"
  # no-docs: no man pages.  Nothing else is disabled: evp_test needs the full default provider.
  # A cross build names its target and compiler prefix; a native one lets Configure guess.
  (cd "$tree" && ./Configure "${target[@]}" --prefix="$tree/_prefix" --libdir=lib no-docs) \
    >"$logf" 2>&1 \
    || { tail -n 30 "$logf"; log "Configure failed"; exit 1; }
fi
jobs=${AESFAST_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -le 2 ] || jobs=2                    # shared machine: never more than two
start=$SECONDS
# Only the targets we need: the libraries, the default provider inside libcrypto, apps/openssl and
# test/evp_test (not the ~300 other test programs, engines or the legacy module).
(cd "$tree" && make -j"$jobs" build_generated && make -j"$jobs" "libcrypto.so.$major" "libssl.so.$major" \
   apps/openssl test/evp_test) >>"$logf" 2>&1 \
  || { tail -n 40 "$logf"; log "make failed"; exit 1; }
touch "$tree/$stamp"
log "libraries, apps/openssl and test/evp_test: $((SECONDS - start)) s"
# The rest, incrementally, each step in its own stamp.
step() { # step STAMP WHAT TARGET...: make the targets, then the stamp
  local st=$1 what=$2 t0=$SECONDS
  shift 2
  [ -f "$tree/$st" ] && return 0
  (cd "$tree" && make -j"$jobs" "$@") >>"$logf" 2>&1 || { tail -n 40 "$logf"; log "make ($what) failed"; exit 1; }
  touch "$tree/$st"
  log "$what: $((SECONDS - t0)) s"
}
# OpenSSL's Makefile compiles every source of libcrypto and libssl twice, once for each library
# kind (X/libcrypto-shlib-Y.o and X/libcrypto-lib-Y.o), with the same command line. Each static
# object whose shared twin is built and whose Makefile recipe is the twin's, names aside, is
# that object copied (its time kept): make then archives, compiling only what is left.
reuse_objects() {
  python3 - "$tree" <<'PY'
import os, re, shutil, sys
tree = sys.argv[1]
mk = open(os.path.join(tree, "Makefile"), encoding="utf-8", errors="replace").read()
recipes = {m.group(1): m.group(2)
           for m in re.finditer(r"^(\S+\.o):[^\n]*\n((?:\t[^\n]*\n)+)", mk, re.M)}
copied = 0
for obj, recipe in recipes.items():
    m = re.match(r"^(.*\blib(?:crypto|ssl))-lib-([^/]+\.o)$", obj)
    if not m:
        continue
    twin = f"{m.group(1)}-shlib-{m.group(2)}"
    src, dst = os.path.join(tree, twin), os.path.join(tree, obj)
    if twin in recipes and recipes[twin].replace("-shlib-", "-lib-") == recipe \
            and os.path.isfile(src) and not os.path.exists(dst):
        shutil.copy2(src, dst)
        copied += 1
print(f"build-openssl: {copied} objects of the static libraries from the shared ones",
      file=sys.stderr)
PY
}
if [ $static -eq 1 ] && [ ! -f "$tree/$static_stamp" ]; then reuse_objects || exit 1; fi
[ $static -eq 0 ] || step "$static_stamp" "--static: libcrypto.a, libssl.a" libcrypto.a libssl.a
if [ $full -eq 1 ]; then
  mapfile -t targets < <("$here/openssl-suite.sh" --programs --tree "$tree")
  [ ${#targets[@]} -gt 0 ] || { log "test/openssl-suite.sh --programs listed nothing"; exit 1; }
  step "$full_stamp" "--full: ${#targets[@]} targets for OpenSSL's suite" "${targets[@]}"
fi
[ $everything -eq 0 ] || step "$everything_stamp" "--everything" all
log "built in $((SECONDS - start)) s"
complete "$tree" || { log "build finished but $tree lacks an expected file"; exit 1; }
echo "$tree" >&3
