#!/bin/sh
# Records the traces of data/traces/ on the box it runs on, with `schedlab trace record` (needs
# root and tracefs). Each recording waits (up to 10 x 30 s) for a 1-minute load average of 1.0
# or less, so that other work on the box stays out of the trace; the load average at the start
# is in each meta.json either way. Run from anywhere: ./data/traces/record.sh [NAME...]
set -eu
cd "$(dirname "$0")"
BUFFER_KB=32768 # per CPU: no trace here loses an event at this size (meta.json lostEvents)
PY=/usr/bin/python3

quiet_box() {
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    if awk "BEGIN { exit !($load <= 1.0) }"; then return 0; fi
    echo "load average $load > 1.0: waiting 30 s" >&2
    sleep 30
  done
  echo "load average still $load: recording anyway (meta.json loadavgStart says so)" >&2
}

record() {
  name=$1
  shift
  quiet_box
  tmp=$(mktemp -d)
  npx schedlab trace record --out "$tmp/rec" --buffer-kb "$BUFFER_KB" -- "$@"
  gzip -9 "$tmp/rec/trace.txt"
  mkdir -p "$name"
  rm -f "$name/trace.txt.gz" "$name/machine.json" "$name/meta.json"
  mv "$tmp/rec/trace.txt.gz" "$tmp/rec/machine.json" "$tmp/rec/meta.json" "$name/"
  rm -rf "$tmp"
}

want() { [ $# -eq 0 ] || echo " $* " | grep -q " $NAME "; }
for NAME in perf-bench-pipe messaging-procs messaging-threads cpu-sleeper-mix fork-burst; do
  if ! want "$@"; then continue; fi
  case $NAME in
  perf-bench-pipe) record "$NAME" perf bench sched pipe -l 20000 ;;
  messaging-procs) record "$NAME" perf bench sched messaging -g 2 -l 50 ;;
  messaging-threads) record "$NAME" perf bench sched messaging -g 2 -l 50 -t ;;
  cpu-sleeper-mix) record "$NAME" "$PY" cpu-sleeper-mix/cpu_sleeper_mix.py 1.0 ;;
  fork-burst) record "$NAME" sh -c 'for i in $(seq 200); do /bin/true & done; wait' ;;
  esac
done
