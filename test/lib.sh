# Shell helpers shared by the test scripts (sourced, POSIX sh).

# write_cnf FILE PROVIDER MODULE_PATH [DEFAULT_PROPERTIES]
# An openssl.cnf that activates the default provider and PROVIDER (loaded from MODULE_PATH), with
# config_diagnostics on. PROVIDER "default" gives a cnf with default alone (the scripts' self-check).
# DEFAULT_PROPERTIES, if given, becomes the library's default property query (an alg_section),
# e.g. "?provider=aesfast" so that applications that ask for nothing in particular get aesfast.
write_cnf() {
  {
    echo "config_diagnostics = 1"
    echo "openssl_conf = openssl_init"
    echo "[openssl_init]"
    echo "providers = provider_sect"
    if [ -n "${4:-}" ]; then
      echo "alg_section = evp_properties"
      echo "[evp_properties]"
      echo "default_properties = $4"
    fi
    echo "[provider_sect]"
    echo "default = default_sect"
    [ "$2" = default ] || echo "$2 = ${2}_sect"
    echo "[default_sect]"
    echo "activate = 1"
    if [ "$2" != default ]; then
      echo "[${2}_sect]"
      echo "module = $3"
      echo "activate = 1"
    fi
  } >"$1"
}

# stop_process_groups PID...: stops servers the scripts started, each the leader of its own
# process group (`timeout`, `sshd -D`): TERM to each, up to 3 s for it to go, then KILL to its
# whole group (nginx's workers, sshd's session processes), and reaps it.
stop_process_groups() {
  for _p in "$@"; do kill -TERM "$_p" 2>/dev/null || true; done
  for _p in "$@"; do
    for _ in $(seq 30); do kill -0 "$_p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$_p" 2>/dev/null || true
    kill -KILL "$_p" 2>/dev/null || true
    wait "$_p" 2>/dev/null || true
  done
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice).
free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    echo $((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
  fi
}
