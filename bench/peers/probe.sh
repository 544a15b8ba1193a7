#!/usr/bin/env bash
# One Teahouse run of the load generator with the server's own pause figures: like run.sh's
# teahouse-sqlite / teahouse-redis (server on core 0, load generator on core 1, a fresh store),
# but /metrics is scraped before the server stops, so the run prints its garbage-collection
# pauses and event-loop lag (teahouse_gc_pause_seconds, teahouse_loop_lag_seconds) with the
# latency figures. For A/B runs on a shared machine, where the wall clock alone misleads.
#
#   TEAHOUSE_HOME=<checkout> ./probe.sh LABEL sqlite|redis LOADGEN-ARGS...
#   e.g. ./probe.sh b-sqlite sqlite --matches 100 --spectators 8 --rate 2 --duration 30
# Results: $OUT (default /tmp/teahouse-probe)/LABEL.{json,metrics,log,server.log}.
# PORT (default 8650) and REDIS_PORT (6950) keep it apart from a run.sh on the same machine.
set -u
LABEL=$1; STORE=$2; shift 2
H=${TEAHOUSE_HOME:?set TEAHOUSE_HOME}; PORT=${PORT:-8650}; RPORT=${REDIS_PORT:-6950}
OUT=${OUT:-/tmp/teahouse-probe}; mkdir -p "$OUT"
cd "$(dirname "$0")"
D=$(mktemp -d -t teahouse-probe.XXXXXX)
ulimit -n 20000
RP=""
if [ "$STORE" = redis ]; then
  taskset -c 0 redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$D" --appendonly yes --appendfsync everysec \
    --save "" --maxclients 20000 >/dev/null 2>&1 &
  RP=$!; sleep 0.5; URL=redis://127.0.0.1:$RPORT/0
else URL=sqlite:$D/db; fi
PYTHONPATH=$H taskset -c 0 "$H/.venv/bin/teahouse" serve --bench-games --port "$PORT" --store "$URL" \
  --connections-per-address 0 --matches-per-address-per-minute 0 --requests-per-second 0 \
  --spectators-per-match 0 >"$OUT/$LABEL.server.log" 2>&1 &
SP=$!
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
sleep 0.5
echo "== $LABEL $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
TEAHOUSE_HOME=$H TEAHOUSE_CLIENT=sdk timeout 600 taskset -c 1 node loadgen/loadgen.js --adapter teahouse \
  --url "http://127.0.0.1:$PORT" --server-pid "$SP${RP:+,$RP}" --label "$LABEL" --out "$OUT/$LABEL.json" "$@" \
  >/dev/null 2>"$OUT/$LABEL.log"
curl -s "http://127.0.0.1:$PORT/metrics" >"$OUT/$LABEL.metrics"
kill "$SP"; wait "$SP" 2>/dev/null
if [ -n "$RP" ]; then kill "$RP"; fi
rm -rf "$D"
node -e 'const r=require(process.argv[1]);const l=r.latency_all_ms;console.log(`   ${r.moves_per_s}/${Math.round(r.target_moves_per_s)} moves/s, p50 ${l.p50} p95 ${l.p95} p99 ${l.p99} max ${l.max} ms; server CPU ${Math.round(r.server_cpu_util*100)}%, ${r.server_cpu_ms_per_move_net} ms/move, run-queue wait ${Math.round(r.server_runq_wait_util*100)}%, RSS max ${Math.round(r.server_rss_mib_max)} MiB; load ${r.loadavg_end}`)' "$(realpath "$OUT/$LABEL.json")"
# count and total seconds of each generation's collections; lag samples over 25 / 100 ms
awk '/^teahouse_gc_pause_seconds_count/{match($0,/"[0-9]"/);g=substr($0,RSTART+1,1);c[g]=$2}
     /^teahouse_gc_pause_seconds_sum/{match($0,/"[0-9]"/);g=substr($0,RSTART+1,1);s[g]=$2}
     /^teahouse_loop_lag_seconds_bucket.*le="0.025"/{l25=$2} /^teahouse_loop_lag_seconds_bucket.*le="0.1"/{l100=$2}
     /^teahouse_loop_lag_seconds_count/{n=$2}
     END{if(n=="")exit; printf "   GC: gen0 %d in %.3f s, gen1 %d in %.3f s, gen2 %d in %.3f s; loop lag: %d samples, %d over 25 ms, %d over 100 ms\n",
         c[0],s[0],c[1],s[1],c[2],s[2],n,n-l25,n-l100}' "$OUT/$LABEL.metrics"
