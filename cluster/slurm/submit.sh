#!/bin/bash
# Submit a sharded tournament: the array of shards, the watcher (only when the tournament has
# an [sprt] table: pass --sprt) and the merge after every shard has ended. With --tune, a
# sharded tune instead: the array of tune.sbatch, its aggregator beside it, and the merge of
# its games after every shard has ended, which then ends the aggregator.
#   ./cluster/slurm/submit.sh [--sprt|--tune] [extra sbatch options for the array, e.g. --array=0-63%16]
# Environment: HARNESS, TOURNAMENT, OUT, STOP_FILE, INTERVAL (see the .sbatch files).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=run
case "${1:-}" in
  --sprt) mode=sprt; shift ;;
  --tune) mode=tune; shift ;;
esac
export HARNESS=${HARNESS:-$PWD/target/release/harness} TOURNAMENT=${TOURNAMENT:-tournament.toml}
export OUT=${OUT:-out/arena}
export STOP_FILE=${STOP_FILE:-$OUT/stop}
mkdir -p "$OUT"
rm -f "$STOP_FILE"
if [ "$mode" = tune ]; then
  shards=$(sbatch --parsable --export=ALL "$@" "$here/tune.sbatch")
  echo "shards: job $shards"
  aggregator=$(sbatch --parsable --export=ALL "$here/tune-aggregate.sbatch")
  echo "aggregator: job $aggregator"
else
  rm -f "$OUT/decision.json"
  shards=$(sbatch --parsable --export=ALL "$@" "$here/shards.sbatch")
  echo "shards: job $shards"
  if [ "$mode" = sprt ]; then
    watcher=$(sbatch --parsable --export=ALL,ARRAY_JOB="$shards" "$here/watch.sbatch")
    echo "watcher: job $watcher"
  fi
fi
# After a tune the merge also ends the aggregator, by its stop file (see merge.sbatch).
ends_aggregator=
[ "$mode" = tune ] && ends_aggregator=",AGGREGATOR_STOP_FILE=$STOP_FILE"
merge=$(sbatch --parsable --export=ALL"$ends_aggregator" --dependency=afterany:"$shards" "$here/merge.sbatch")
echo "merge: job $merge (after every shard)"
