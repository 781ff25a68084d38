#!/bin/bash
# Submit a sharded tournament: the array of shards, the watcher (only when the tournament has
# an [sprt] table: pass --sprt) and the merge after every shard has ended.
#   ./cluster/slurm/submit.sh [--sprt] [extra sbatch options for the array, e.g. --array=0-63%16]
# Environment: HARNESS, TOURNAMENT, OUT, STOP_FILE, INTERVAL (see the .sbatch files).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sprt=no
if [ "${1:-}" = "--sprt" ]; then sprt=yes; shift; fi
export HARNESS=${HARNESS:-$PWD/target/release/harness} TOURNAMENT=${TOURNAMENT:-tournament.toml}
export OUT=${OUT:-out/arena}
export STOP_FILE=${STOP_FILE:-$OUT/stop}
mkdir -p "$OUT"
rm -f "$STOP_FILE" "$OUT/decision.json"
shards=$(sbatch --parsable --export=ALL "$@" "$here/shards.sbatch")
echo "shards: job $shards"
if [ "$sprt" = yes ]; then
  watcher=$(sbatch --parsable --export=ALL,ARRAY_JOB="$shards" "$here/watch.sbatch")
  echo "watcher: job $watcher"
fi
merge=$(sbatch --parsable --export=ALL --dependency=afterany:"$shards" "$here/merge.sbatch")
echo "merge: job $merge (after every shard)"
