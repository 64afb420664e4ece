# Shell helpers shared by the test scripts (sourced, POSIX sh).

# write_cnf FILE PROVIDER MODULE_PATH
# An openssl.cnf that activates the default provider and PROVIDER (loaded from MODULE_PATH), with
# config_diagnostics on. PROVIDER "default" gives a cnf with default alone (the scripts' self-check).
write_cnf() {
  {
    echo "config_diagnostics = 1"
    echo "openssl_conf = openssl_init"
    echo "[openssl_init]"
    echo "providers = provider_sect"
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
