#!/usr/bin/env bash
# Debian's packages the tests drive as real servers (each test starts and stops its own, in a temporary folder):
# Chromium (the approvals console; playwright-core ships no browser), PostgreSQL 15, Redis and HAProxy (the shared
# stores and `mcp serve` replicas behind a load balancer; docs/deployment.md). Run by `npm test` before the tests:
# installs what is missing when it can (root with apt-get), else says which line to run.
set -uo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql-15)
command -v redis-server >/dev/null || missing+=(redis-server)
[ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null || missing+=(haproxy)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "test services missing: ${missing[*]} — install them (sudo apt-get install -y ${missing[*]}); their tests fail until then" >&2
  exit 0
fi
echo "installing the test services: ${missing[*]}" >&2
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
# Packages whose install started a system service (where policy-rc.d allows it): stopped, the tests start their own.
for service in postgresql redis-server haproxy; do service "$service" stop >/dev/null 2>&1 || true; done
