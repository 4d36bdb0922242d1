#!/usr/bin/env bash
# deploy/local/start.sh — agent-spaces as one service on one machine (docs/deployment.md): PostgreSQL, Redis, three
# `agent-spaces mcp serve` replicas of the project in the current folder, and HAProxy in front of them, round robin.
#
#   deploy/local/start.sh          start everything (the project is built first), print the URL for clients
#   deploy/local/start.sh stop     stop everything it started (through the pid files of the state folder)
#
# Copy the whole deploy/ folder: the load balancer's config is ../haproxy.cfg from here. Needs Debian's packages:
#   apt-get install postgresql-15 redis-server haproxy
# (the PostgreSQL server is used from /usr/lib/postgresql/<version>/bin; the packaged system-wide cluster and Redis
# service are not touched). Everything listens on 127.0.0.1 only.
#
# Environment (all optional):
#   AGENT_SPACES_DEPLOY_DIR   state folder: data, logs, pid files, passwords (default ./.agent-spaces/deploy)
#   AGENT_SPACES_MCP_TOKEN    the bearer token clients send (default: a new one, printed once, stored nowhere)
#   AGENT_SPACES_BIN          the agent-spaces command (default ./node_modules/.bin/agent-spaces, else from PATH)
#   AGENT_SPACES_PORT         the load balancer's port (default 8100); the replicas use the next three (8101-8103),
#                             PostgreSQL the one after (8104) and Redis the next (8105)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
state=$(realpath -m "${AGENT_SPACES_DEPLOY_DIR:-./.agent-spaces/deploy}")
port=${AGENT_SPACES_PORT:-8100}
replica_ports=($((port + 1)) $((port + 2)) $((port + 3)))
pg_port=$((port + 4))
redis_port=$((port + 5))
haproxy_cfg="$here/../haproxy.cfg"

say() { printf '%s\n' "$*"; }
fail() { printf 'start.sh: %s\n' "$*" >&2; exit 1; }

# The newest PostgreSQL of Debian's packages, redis-server and haproxy; names the apt-get line that installs what lacks.
find_programs() {
  local missing=()
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [[ -n $pg_bin && -x $pg_bin/initdb ]] || missing+=(postgresql-15)
  redis_bin=$(command -v redis-server || true)
  [[ -n $redis_bin ]] || missing+=(redis-server)
  haproxy_bin=$(command -v haproxy || ls /usr/sbin/haproxy 2>/dev/null || true)
  [[ -n $haproxy_bin ]] || missing+=(haproxy)
  ((EUID != 0)) || command -v runuser >/dev/null || fail 'runuser not found (util-linux; is /usr/sbin on PATH?): as root, PostgreSQL runs through it'
  ((${#missing[@]} == 0)) || fail "missing packages: apt-get install ${missing[*]}"
  [[ -f $haproxy_cfg ]] || fail "$haproxy_cfg not found: copy the whole deploy/ folder"
  if [[ -n ${AGENT_SPACES_BIN:-} ]]; then agent_spaces=$AGENT_SPACES_BIN
  elif [[ -x ./node_modules/.bin/agent-spaces ]]; then agent_spaces=./node_modules/.bin/agent-spaces
  else agent_spaces=$(command -v agent-spaces || true)
  fi
  [[ -n $agent_spaces ]] || fail 'agent-spaces not found: npm install agent-spaces in this project, or set AGENT_SPACES_BIN'
}

# PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user (made by the Debian package).
as_postgres() {
  if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

# A random secret: 32 bytes as hex.
secret() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }

# Whether the pid in pid file $1 is alive and its command line holds $2 (a pid reused by another program is not ours).
running() {
  local pid
  [[ -f $1 ]] && pid=$(head -n 1 "$1") && [[ -n $pid && -r /proc/$pid/cmdline ]] && [[ $(tr '\0' ' ' <"/proc/$pid/cmdline") == *"$2"* ]]
}

# Whether GET /health on 127.0.0.1:$1 answers 200 (bash's /dev/tcp: no curl needed).
healthy() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    read -r -t 2 _ status _ <&3 && [[ $status == 200 ]]
  ) 2>/dev/null
}

# Waits up to $2 seconds for command $1 (with the remaining arguments) to succeed.
wait_for() {
  local what=$1 seconds=$2
  shift 2
  for ((i = 0; i < seconds * 10; i++)); do "$@" && return 0; sleep 0.1; done
  fail "$what did not start within ${seconds}s (logs: $state/logs, $state/postgres/postgres.log)"
}

# A PostgreSQL cluster in $state/postgres (made once: initdb with a generated password, md5/scram over TCP only, no
# Unix socket), started with pg_ctl on 127.0.0.1:$pg_port, with a database `agent_spaces`. fsync stays on: the audit
# log and approvals must survive a crash of the machine.
start_postgres() {
  local data="$state/postgres/data"
  mkdir -p "$state/postgres"
  chmod 700 "$state/postgres"
  if ((EUID == 0)); then
    chown postgres: "$state/postgres"
    runuser -u postgres -- test -x "$state/postgres" ||
      fail "the postgres user cannot reach $state (a parent folder is closed to it): set AGENT_SPACES_DEPLOY_DIR to a folder it can reach, e.g. /var/lib/agent-spaces"
  fi
  if [[ ! -f $data/PG_VERSION ]]; then
    secret >"$state/postgres.password"
    chmod 600 "$state/postgres.password"
    # initdb runs as the postgres user under root: it needs its own copy of the password and its folder.
    install -m 600 "$state/postgres.password" "$state/postgres/pwfile"
    ((EUID != 0)) || chown postgres: "$state/postgres/pwfile"
    as_postgres "$pg_bin/initdb" -D "$data" -U postgres --pwfile="$state/postgres/pwfile" --auth-local=peer --auth-host=scram-sha-256 -E UTF8 >"$state/logs/initdb.log"
    rm -f "$state/postgres/pwfile"
    printf "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nmax_connections = 200\n" | as_postgres tee -a "$data/postgresql.conf" >/dev/null
  fi
  # Its log is in its own folder: under root, the postgres user writes it.
  as_postgres "$pg_bin/pg_ctl" -D "$data" -l "$state/postgres/postgres.log" -o "-p $pg_port" -w -s start
  local password
  password=$(cat "$state/postgres.password")
  export PGPASSWORD=$password
  if [[ -z $("$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'agent_spaces'") ]]; then
    "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres agent_spaces
  fi
  unset PGPASSWORD
  database_url="postgres://postgres:$password@127.0.0.1:$pg_port/agent_spaces"
}

# Redis on 127.0.0.1:$redis_port with a generated password (in a config file, not on the command line). It persists
# nothing — no RDB snapshots (`save ""`), no AOF (`appendonly no`): it holds only rate-limit counters, which at worst
# start their window again after a restart.
start_redis() {
  local password
  [[ -f $state/redis.password ]] || { secret >"$state/redis.password" && chmod 600 "$state/redis.password"; }
  password=$(cat "$state/redis.password")
  mkdir -p "$state/redis"
  (umask 077 && cat >"$state/redis.conf" <<EOF
bind 127.0.0.1
port $redis_port
requirepass $password
save ""
appendonly no
dir $state/redis
daemonize yes
pidfile $state/pids/redis.pid
logfile $state/logs/redis.log
EOF
  )
  "$redis_bin" "$state/redis.conf"
  redis_url="redis://:$password@127.0.0.1:$redis_port"
  wait_for Redis 10 running "$state/pids/redis.pid" redis-server
}

# The three replicas, each on its port with the shared stores (URLs and token in its environment, never on its command
# line), in the background with a pid file and a log; then waits for each one's /health.
start_replicas() {
  local i
  for i in 0 1 2; do
    local p=${replica_ports[$i]} n=$((i + 1))
    DATABASE_URL=$database_url REDIS_URL=$redis_url AGENT_SPACES_MCP_TOKEN=$token \
      nohup "$agent_spaces" mcp serve --port "$p" --host 127.0.0.1 --advertise-url "http://127.0.0.1:$p" \
      >>"$state/logs/replica-$n.log" 2>&1 </dev/null &
    echo $! >"$state/pids/replica-$n.pid"
  done
  for i in 0 1 2; do wait_for "replica $((i + 1)) (port ${replica_ports[$i]})" 60 healthy "${replica_ports[$i]}"; done
}

# HAProxy on 127.0.0.1:$port in front of the replicas (deploy/haproxy.cfg), as a daemon with a pid file.
start_haproxy() {
  AGENT_SPACES_LB_BIND="127.0.0.1:$port" AGENT_SPACES_REPLICA_1="127.0.0.1:${replica_ports[0]}" \
    AGENT_SPACES_REPLICA_2="127.0.0.1:${replica_ports[1]}" AGENT_SPACES_REPLICA_3="127.0.0.1:${replica_ports[2]}" \
    "$haproxy_bin" -D -p "$state/pids/haproxy.pid" -f "$haproxy_cfg"
  wait_for HAProxy 10 healthy "$port"
}

# Sends SIGTERM to the process of pid file $1 (when it is still the program $2), waits up to 15 s, then SIGKILL.
stop_pid() {
  local file=$1 name=$2 pid
  running "$file" "$name" || { rm -f "$file"; return 0; }
  pid=$(head -n 1 "$file")
  kill -TERM "$pid"
  for ((i = 0; i < 150; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  rm -f "$file"
  say "stopped $name ($pid)"
}

stop_all() {
  find_programs
  stop_pid "$state/pids/haproxy.pid" haproxy
  for n in 1 2 3; do stop_pid "$state/pids/replica-$n.pid" 'mcp serve'; done
  stop_pid "$state/pids/redis.pid" redis-server
  if [[ -f $state/postgres/data/postmaster.pid ]]; then
    as_postgres "$pg_bin/pg_ctl" -D "$state/postgres/data" -m fast -w -s stop && say 'stopped PostgreSQL'
  fi
}

start_all() {
  find_programs
  running "$state/pids/haproxy.pid" haproxy && fail "already running (from $state): deploy/local/start.sh stop first"
  mkdir -p "$state/logs" "$state/pids"
  # Passwords, logs and pid files are this user's only; the folder itself stays passable for the postgres user.
  chmod 711 "$state"
  chmod 700 "$state/logs" "$state/pids"
  local generated=''
  if [[ -n ${AGENT_SPACES_MCP_TOKEN:-} ]]; then token=$AGENT_SPACES_MCP_TOKEN; else token=$(secret) && generated=1; fi
  # Whatever fails from here on: stop what was started, and say where the logs are.
  trap 'status=$?; if ((status != 0)); then say "start failed: stopping what was started" >&2; stop_all >&2; fi' EXIT
  say "building the project's capabilities (nothing to do when unchanged)"
  "$agent_spaces" capabilities build >"$state/logs/build.log" 2>&1 || { cat "$state/logs/build.log" >&2; false; }
  start_postgres && say "PostgreSQL on 127.0.0.1:$pg_port (data: $state/postgres/data)"
  start_redis && say "Redis on 127.0.0.1:$redis_port (no persistence: counters only)"
  start_replicas && say "replicas on 127.0.0.1:${replica_ports[0]}, :${replica_ports[1]}, :${replica_ports[2]}"
  start_haproxy
  trap - EXIT
  say ''
  say "agent-spaces is serving at http://127.0.0.1:$port/mcp (HAProxy, round robin over 3 replicas)"
  if [[ -n $generated ]]; then
    say "bearer token (shown once, stored nowhere; set AGENT_SPACES_MCP_TOKEN to choose it): $token"
  else
    say 'bearer token: the value of AGENT_SPACES_MCP_TOKEN'
  fi
  say "clients send: Authorization: Bearer <token>"
  say "logs: $state/logs   stop: $0 stop"
}

case ${1:-start} in
  start) start_all ;;
  stop) stop_all ;;
  *) fail "unknown command \"$1\": start (default) or stop" ;;
esac
