#!/usr/bin/env bash
# Benchmark rig for the handcards peers. Runs every scenario against a FRESH
# server process (pinned to core 0; the load generator is pinned to core 1).
#
#   ./run.sh                      # all configs: bgio bgio-delta colyseus colyseus-50ms
#   ./run.sh colyseus bgio        # a subset
#   SCENARIOS="a b" ./run.sh bgio # a subset of scenarios (a b c idle)
#
# (Teahouse's copy, bench/peers: the server runs with --bench-games, which plays handcards, and
# without the per-address limits, since every client of the rig comes from 127.0.0.1; the
# adapter speaks protocol v2 unless TEAHOUSE_PROTOCOL=1; TEAHOUSE_SERVE_ARGS adds serve flags.)
# Teahouse (configs teahouse-sqlite, teahouse-redis; the -lean variants drive it with the
# adapter's lean client instead of the project's JS SDK) needs TEAHOUSE_HOME = a Teahouse
# checkout with its .venv (deploy/bootstrap.sh) and a game registered as "handcards" (see
# README.md). Its store gets a fresh temp dir per
# run; teahouse-redis also starts its own redis-server (appendonly, appendfsync everysec)
# pinned to core 0 with the server, and the server CPU/RSS figures are the sum of both.
#
# More knobs (environment):
#   ORDER=interleaved   scenarios outside, configs inside (a for every config, then b, ...)
#   SCENARIOS="a b a2 idle a3 c"   a2, a3, ... repeat scenario a (results <config>-a2.json, ...)
#   SCENARIOS="... cup"  c ramped up from 5 moves/s per match while sustained (see run_one)
#   SCENARIOS="a+b a2+idle a3+c"   a group joined by + runs under one lock hold (below)
#   LOCK=FILE           hold `flock FILE` around each config's group of scenarios (for a machine
#                       shared with other heavy jobs), never around the whole run
#   SKIP_EXISTING=1     skip steps whose result file exists (resume an interrupted session)
#   OUT=DIR             results directory (default results)
#   LEAN_ALL=1          run every scenario for the teahouse-*-lean configs (default: a only)
#   PORT_OFFSET=N       add N to every port (bgio 8000, colyseus 2567, teahouse 8100, its redis
#                       6390): two runs at once on one machine must not share a port
#   WORKER_CORES=0,1    the cores of the teahouse-redis-wN configs (default: core 0, as every server)
#
# teahouse-redis-wN = teahouse-redis served by `teahouse serve --workers N`: the CPU and RSS
# figures sum the supervisor, its N worker processes (every descendant) and the redis-server.
#
# Results: results/<config>-<scenario>.json, then `node summarize.js results` prints the table.
# Everything talks to 127.0.0.1 only; every step is wrapped in `timeout`.
set -euo pipefail
cd "$(dirname "$0")"
OUT=${OUT:-results}
SCENARIOS=${SCENARIOS:-"a b c idle"}
CONFIGS=${*:-"bgio bgio-delta colyseus colyseus-50ms"}
ORDER=${ORDER:-byconfig}
# Ports: PORT_OFFSET shifts all four, so that two runs on one machine do not serve each other.
PORT_OFFSET=${PORT_OFFSET:-0}
BGIO_PORT=$((8000 + PORT_OFFSET)); COLYSEUS_PORT=$((2567 + PORT_OFFSET))
TEAHOUSE_PORT=$((8100 + PORT_OFFSET)); REDIS_PORT=$((6390 + PORT_OFFSET))
LOCK=${LOCK:-}
mkdir -p "$OUT"
ulimit -n 20000 2>/dev/null || true
if [ -n "$LOCK" ]; then exec 9>>"$LOCK"; fi

PIN_SRV=""; PIN_GEN=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then PIN_SRV="taskset -c 0"; PIN_GEN="taskset -c 1"; fi

server_cmd() { # config -> "adapter url command..."
  case "$1" in
    bgio)          echo "bgio http://127.0.0.1:$BGIO_PORT node bgio/server.js --port $BGIO_PORT" ;;
    bgio-delta)    echo "bgio http://127.0.0.1:$BGIO_PORT node bgio/server.js --port $BGIO_PORT --delta" ;;
    colyseus)      echo "colyseus ws://127.0.0.1:$COLYSEUS_PORT node colyseus/server.js --port $COLYSEUS_PORT --patch-rate 0" ;;
    colyseus-50ms) echo "colyseus ws://127.0.0.1:$COLYSEUS_PORT node colyseus/server.js --port $COLYSEUS_PORT --patch-rate 50" ;;
    teahouse-sqlite|teahouse-sqlite-lean|teahouse-redis|teahouse-redis-lean|teahouse-redis-w[0-9]*)
      # the store URL (@STORE@) is filled in by start_server: a fresh directory / redis-server
      echo "teahouse http://127.0.0.1:$TEAHOUSE_PORT ${TEAHOUSE_HOME:?set TEAHOUSE_HOME}/.venv/bin/teahouse serve --bench-games --port $TEAHOUSE_PORT --store @STORE@ --connections-per-address 0 --matches-per-address-per-minute 0 --requests-per-second 0 --spectators-per-match 0 $(workers_arg "$1") ${TEAHOUSE_SERVE_ARGS:-}" ;;
    *) echo "unknown config $1" >&2; exit 2 ;;
  esac
}

workers_arg() { # config -> "--workers N" for teahouse-redis-wN[-lean]
  if [[ "$1" =~ -w([0-9]+) ]]; then echo "--workers ${BASH_REMATCH[1]}"; fi
}
descendants() { # pid -> every process below it (teahouse serve --workers N: the N worker processes)
  local p
  for p in $(pgrep -P "$1" 2>/dev/null || true); do echo "$p"; descendants "$p"; done
}

SRV_PID=""; REDIS_PID=""; DATA_DIR=""; PIDS=""; CLIENT_ENV=""; SRV_LOG=""
wait_port() { # port -> 0 once something listens (up to 15 s)
  for _ in $(seq 1 150); do
    if (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}
start_server() { # config
  read -r ADAPTER URL CMD <<<"$(server_cmd "$1")"
  local port=${URL##*:}
  CLIENT_ENV=""
  case "$1" in
    teahouse-*)
      DATA_DIR=$(mktemp -d -t teahouse-peers.XXXXXX)
      local store="sqlite:$DATA_DIR/db"
      if [[ "$1" == teahouse-redis* ]]; then
        $PIN_SRV redis-server --port $REDIS_PORT --bind 127.0.0.1 --dir "$DATA_DIR" --appendonly yes \
          --appendfsync everysec --save "" --maxclients 20000 >"$OUT/$1.redis.log" 2>&1 &
        REDIS_PID=$!
        wait_port $REDIS_PORT || { echo "redis-server did not start" >&2; return 1; }
        store="redis://127.0.0.1:$REDIS_PORT/0"
      fi
      CMD=${CMD/@STORE@/$store}
      if [[ "$1" == *-lean ]]; then CLIENT_ENV=lean; fi
      ;;
  esac
  SRV_LOG="$OUT/$1.server.log"
  local pin=$PIN_SRV
  if [[ "$1" == teahouse-redis-w* && -n "$PIN_SRV" && -n "${WORKER_CORES:-}" ]]; then pin="taskset -c $WORKER_CORES"; fi
  # Teahouse: the checkout's own code first (the shared venv's editable install may point at
  # another worktree), as bench/_support.Server does.
  NODE_ENV=production PYTHONPATH=${TEAHOUSE_HOME:-}${PYTHONPATH:+:$PYTHONPATH} $pin $CMD >"$SRV_LOG" 2>&1 &
  SRV_PID=$!
  PIDS=$SRV_PID${REDIS_PID:+,$REDIS_PID}
  if wait_port "$port"; then
    sleep 0.5
    if [[ "$1" == teahouse-* ]]; then
      # Every process of the server counts: `--workers N` serves from N children of the
      # supervisor (which listens); wait until they all answer, then list them all.
      local want=1 kids
      if [[ "$1" =~ -w([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
      for _ in $(seq 1 100); do
        kids=$(descendants "$SRV_PID" | wc -l)
        if [ "$want" -le 1 ] || [ "$kids" -ge "$want" ]; then break; fi
        sleep 0.1
      done
      if [ "$want" -gt 1 ]; then sleep 2; fi  # each worker imports the app and opens its store
      local d
      for d in $(descendants "$SRV_PID"); do PIDS="$PIDS,$d"; done
      echo "   $1 pids (CPU and RSS summed): $PIDS" >&2
    fi
    return 0
  fi
  echo "server $1 did not start" >&2; return 1
}
stop_pid() { # pid: TERM, up to 10 s, then KILL
  local p=$1
  kill "$p" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}
stop_server() {
  if [ -n "$SRV_PID" ]; then stop_pid "$SRV_PID"; SRV_PID=""; fi
  if [ -n "$REDIS_PID" ]; then stop_pid "$REDIS_PID"; REDIS_PID=""; fi
  if [ -n "$DATA_DIR" ]; then
    # keep the machine's temp path out of the results (they may be committed)
    if [ -f "$SRV_LOG" ]; then sed -i "s#$DATA_DIR#<fresh temp dir>#g" "$SRV_LOG"; fi
    rm -rf "$DATA_DIR"; DATA_DIR=""
  fi
  sleep 1
}
trap stop_server EXIT

loadgen() { # config scenario-name args...
  local cfg=$1 name=$2; shift 2
  if [ -n "${SKIP_EXISTING:-}" ] && [ -f "$OUT/$cfg-$name.json" ]; then echo "   skip $cfg $name (done)" >&2; return 0; fi
  if ! start_server "$cfg"; then
    echo "   FAILED to start $cfg (see $OUT/$cfg.server.log)" >&2
    stop_server; return 0
  fi
  echo "== $cfg $name: $* ($(date -u +%H:%M:%S))" >&2
  TEAHOUSE_CLIENT=${CLIENT_ENV:-${TEAHOUSE_CLIENT:-sdk}} \
  timeout 400 $PIN_GEN node loadgen/loadgen.js --adapter "$ADAPTER" --url "$URL" --server-pid "$PIDS" \
    --label "$cfg $name" --out "$OUT/$cfg-$name.json" "$@" >/dev/null 2>"$OUT/$cfg-$name.log" || echo "   FAILED (see $OUT/$cfg-$name.log)" >&2
  stop_server
}

sustained() { # file -> exit 0 if >= 95% of target moves/s, p99 <= 1 s, nothing lost
  node -e 'const r=require(process.argv[1]);const ok=r.moves_per_s>=0.95*r.target_moves_per_s&&r.latency_all_ms.p99<=1000&&r.moves_incomplete_after_drain===0;
    console.error(`   ${r.moves_per_s}/${r.target_moves_per_s} moves/s, p99 ${r.latency_all_ms.p99} ms -> ${ok?"sustained":"NOT sustained"}`);process.exit(ok?0:1)' "$(realpath "$1")"
}

sustained_in_play() { # file -> as sustained, but moves/s over the time matches were in play:
  # the load generator's own rotation (closing a finished match, creating the next and joining
  # its 12 connections) is not offered load, yet `sustained` counts it as moves not made, and at
  # 2.4 moves/s per match and up (a match lasts under the 30 s window) that alone puts every
  # server, Colyseus included, at ~94% of the target.
  node -e 'const r=require(process.argv[1]);const m=r.moves_per_s_excl_setup;const ok=m>=0.95*r.target_moves_per_s&&r.latency_all_ms.p99<=1000&&r.moves_incomplete_after_drain===0;
    console.error(`   ${m}/${r.target_moves_per_s} moves/s in play, p99 ${r.latency_all_ms.p99} ms -> ${ok?"sustained":"NOT sustained"}`);process.exit(ok?0:1)' "$(realpath "$1")"
}

stop_if_sustained() { ! sustained "$1"; }
go_on_while_sustained_in_play() { sustained_in_play "$1"; }

ramp() { # config name go-on-test next-rate-js: 200 matches x 8 spectators from 5 moves/s per
  # match; after each step, go on (at most 4 steps) while `go-on-test file` succeeds, at the
  # per-match rate the JS expression gives (of `rate` and the step's result `r`)
  local cfg=$1 name=$2 go_on=$3 next=$4 r=5 f
  if [ -n "${SKIP_EXISTING:-}" ] && compgen -G "$OUT/$cfg-$name-r*.json" >/dev/null; then echo "   skip $cfg $name (done)" >&2; return 0; fi
  for _ in 1 2 3 4; do
    f="$OUT/$cfg-$name-r$r.json"
    loadgen "$cfg" "$name-r$r" --matches 200 --spectators 8 --rate "$r" --duration 30
    [ -f "$f" ] || break
    if ! "$go_on" "$f"; then break; fi
    r=$(node -e 'const r=require(process.argv[1]);const rate=Number(process.argv[2]);console.log(Number(('"$next"').toPrecision(2)))' "$(realpath "$f")" "$r")
  done
}

run_one() { # config scenario
  local cfg=$1 sc=$2
  # the -lean configs only matter for the client's share of latency: scenario a (and its
  # repeats) unless LEAN_ALL=1
  if [[ "$cfg" == *-lean && "$sc" != a* && -z "${LEAN_ALL:-}" ]]; then return 0; fi
  case "$sc" in
    a|a[0-9]*) loadgen "$cfg" "$sc" --matches 1 --spectators 8 --rate 0 --duration 20 ;;
    b) loadgen "$cfg" b --matches 100 --spectators 8 --rate 2 --duration 30 ;;
    c) # 200 matches x 8 spectators at 5 moves/s. If not sustained, retry at a lower
       # per-match rate: min(0.7 x rate, 0.85 x achieved/200), up to 4 tries.
       ramp "$cfg" c stop_if_sustained 'Math.min(0.7*rate,0.85*r.moves_per_s/200)' ;;
    cup) # c ramped UP: from 5 moves/s per match, x1.4 a step while sustained (moves/s counted
       # while matches are in play, see sustained_in_play), at most 4 steps. The highest
       # sustained step is the server's figure, unless the load generator's own core was near
       # full there (loadgen CPU % in the table).
       ramp "$cfg" cup go_on_while_sustained_in_play '1.4*rate' ;;
    idle) loadgen "$cfg" idle --idle 2000 --duration 0 ;;
    *) echo "unknown scenario $sc" >&2 ;;
  esac
}

run_group() { # config "sc+sc+..." : one lock hold for the group
  local cfg=$1 grp=$2 sc
  if [ -n "$LOCK" ]; then flock 9; fi
  for sc in ${grp//+/ }; do run_one "$cfg" "$sc"; done
  if [ -n "$LOCK" ]; then flock -u 9; fi
}

if [ "$ORDER" = interleaved ]; then
  for grp in $SCENARIOS; do for cfg in $CONFIGS; do run_group "$cfg" "$grp"; done; done
else
  for cfg in $CONFIGS; do for grp in $SCENARIOS; do run_group "$cfg" "$grp"; done; done
fi
node summarize.js "$OUT" | tee "$OUT/summary.md"
